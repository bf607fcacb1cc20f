/**
 * Rate-limit buckets counted in the database (migration 0032), shared by every instance on it: the surfaces whose
 * limits guard secrets (http/rate-limit.ts SHARED_SURFACES). One row per bucket, kept as the instant it is full again
 * (a token bucket written as its "theoretical arrival time", GCRA): a row at or past it is the same as no row.
 */
export interface RateLimitBucketsTable {
  /** The surface and scope in clear, then a hash of what is counted (an address, an e-mail, an operator id). */
  bucket: string;
  /** Milliseconds since the epoch, on the instances' clock; fractional (the interval of a limit need not be whole). */
  full_at_ms: number;
}

/** The rate-limit tables, as storage/schema.ts composes them into the database. */
export interface RateLimitsSchema {
  rate_limit_buckets: RateLimitBucketsTable;
}
