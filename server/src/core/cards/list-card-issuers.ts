import { CARD_ISSUER_LIMITS, type CardIssuerListQuery, type CardIssuerListResponse } from '../../../../protocol/api/card-ops';
import type { Mode } from '../../../../protocol/ids';
import type { AccountSettings } from '../../kernel/account-settings-types';
import { requireCardAcquirer } from '../payments/card-rail';
import { CARD_ISSUERS } from './card-issuer-catalog';

/**
 * GET /card_issuers (secret key or operator session): the issuers whose name contains `query` (case-insensitive;
 * all of them without one), alphabetical, at most `limit` (default 10, at most 100; 0 answers none). An account
 * without a card acquirer gets ERR_4004. `mode`: the key's; undefined for an operator session (any mode counts).
 */
export function listCardIssuers(settings: AccountSettings, mode: Mode | undefined, query: CardIssuerListQuery): CardIssuerListResponse {
  requireCardAcquirer(settings, mode);
  const needle = (query.query ?? '').trim().toLowerCase();
  const limit = query.limit ?? CARD_ISSUER_LIMITS.defaultLimit;
  const matches = CARD_ISSUERS.filter((issuer) => issuer.issuer_name.toLowerCase().includes(needle));
  return { issuers: matches.slice(0, limit).map((issuer) => ({ ...issuer })) };
}
