import type { CoreDeps } from '../shared/deps';

/**
 * Deletes the shared rate-limit buckets that are full again (http/rate-limit.ts SharedRateLimiter): such a row counts
 * nothing a missing one would not, so the table holds only the buckets taken from within their window, however many
 * addresses a client sends from. Run by start.ts's housekeeping sweep; returns how many were deleted.
 */
export async function deleteFullRateLimitBuckets(deps: Pick<CoreDeps, 'store' | 'clock'>): Promise<number> {
  return deps.store.rateLimitBuckets.deleteFullBuckets(deps.clock.now().getTime());
}
