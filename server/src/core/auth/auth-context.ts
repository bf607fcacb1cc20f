import type { ApiScope } from '../../../../protocol/api/keys';
import type { AccountRecord, ProfileRecord } from '../../storage/accounts/records';
import type { Scope } from '../../kernel/store-types';

/** `ephemeral`: an `epk_` key scoped to one customer (api-conventions §2). */
export type KeyKind = 'secret' | 'publishable' | 'ephemeral';

export interface AuthContext extends Scope {
  keyId: string;
  keyKind: KeyKind;
  account: AccountRecord;
  /** The one customer an ephemeral key may reach; absent for secret and publishable keys. */
  customerId?: string;
  /** The account's default business profile, when the key's look-up brought it (creating a payment uses it). */
  defaultProfile?: ProfileRecord;
  /** What an API key may do (docs/scopes.md); absent for an ephemeral key, which one customer bounds instead. */
  scopes?: readonly ApiScope[];
}
