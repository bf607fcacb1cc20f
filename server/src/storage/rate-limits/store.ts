/** A token to take from a bucket of `limit` tokens refilled evenly over a window, all in milliseconds. */
export interface BucketTake {
  /** The instant of the take (the caller's clock). */
  nowMs: number;
  /** The window divided by the limit: how long one token takes to come back. */
  intervalMs: number;
  windowMs: number;
}

/**
 * How far past a window a bucket's full-again instant may go and still count as within it: the interval of a limit
 * need not be a whole number of milliseconds, and `limit` intervals added up in floating point may end a hair past the
 * window, which would refuse the last token of a burst. Half a millisecond is below any interval of a limit of at most
 * 1,000 a second, so it never lets a token more through.
 */
export const FLOATING_POINT_ALLOWANCE_MS = 0.5;

export interface RateLimitBucketStore {
  /**
   * Takes one token from `bucket` in one statement (an upsert that writes only when a token is there), so that of
   * takes racing from several instances no more pass than the bucket holds. Returns the instant the bucket is full
   * again after the take, or undefined when it had no token (nothing is written then).
   */
  takeToken(bucket: string, take: BucketTake): Promise<number | undefined>;
  /** Deletes the buckets full again at `nowMs` (a full bucket is the same as none); returns how many. */
  deleteFullBuckets(nowMs: number): Promise<number>;
}

/** The rate-limit stores, as storage/stores.ts composes them into Stores. */
export interface RateLimitsStores {
  rateLimitBuckets: RateLimitBucketStore;
}
