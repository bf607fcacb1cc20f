import type { SettlementRecord } from '../../storage/collect/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { advanceSettlement } from './advance-collect';
import { collectProviderFor } from './collect-provider';

/** GET /collect/settlements/{settlement_id} (secret key), with its outcome applied when it is due. */
export async function retrieveSettlement(deps: CoreDeps, auth: AuthContext, settlementId: string): Promise<SettlementRecord> {
  const provider = collectProviderFor(deps, auth);
  const settlement = await deps.store.settlements.findSettlement(auth, settlementId);
  if (settlement === undefined) throw new ApiError('ERR_4072', 'No such settlement exists for this account and mode.');
  return advanceSettlement(deps, provider, settlement);
}
