import { CARD_ISSUER_LIMITS, type CardIssuerListQuery, type CardIssuerListResponse } from '../../../../protocol/api/card-ops';
import { CARD_ISSUERS } from './card-issuer-catalog';

/**
 * GET /card_issuers (secret key or operator session): the issuers whose name contains `query` (case-insensitive;
 * all of them without one), alphabetical, at most `limit` (default 10, at most 100; 0 answers none).
 */
export function listCardIssuers(query: CardIssuerListQuery): CardIssuerListResponse {
  const needle = (query.query ?? '').trim().toLowerCase();
  const limit = query.limit ?? CARD_ISSUER_LIMITS.defaultLimit;
  const matches = CARD_ISSUERS.filter((issuer) => issuer.issuer_name.toLowerCase().includes(needle));
  return { issuers: matches.slice(0, limit).map((issuer) => ({ ...issuer })) };
}
