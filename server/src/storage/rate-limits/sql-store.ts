import { sql } from 'kysely';
import { type Db, isPostgres } from '../sql-rows';
import { NO_DURABLE_WAIT } from '../sqlite-group-commit';
import { ASYNCHRONOUS_COMMIT_COLUMN } from '../write-without-sync-wait';
import { FLOATING_POINT_ALLOWANCE_MS, type BucketTake, type RateLimitBucketStore, type RateLimitsStores } from './store';

/**
 * rate_limit_buckets on SQLite and PostgreSQL. A take is one upsert: a new bucket is inserted with the take counted;
 * an existing one is moved on by one interval from its full-again instant (or from now, when it was full), only where
 * that stays within a window of now (the bucket had a token). PostgreSQL's ON CONFLICT DO UPDATE locks the row and
 * evaluates the condition on its latest version, so racing takes from several instances run one after the other;
 * SQLite has one writer. A bucket lost in a crash only forgets takes, so no take waits for its sync: on SQLite the
 * statement ends with NO_DURABLE_WAIT, on PostgreSQL a written row turns synchronous_commit off for the statement's
 * own transaction (storage/write-without-sync-wait.ts).
 */
export class SqlRateLimitBucketStore implements RateLimitBucketStore {
  constructor(private readonly db: Db) {}

  async takeToken(bucket: string, take: BucketTake): Promise<number | undefined> {
    const postgres = isPostgres(this.db);
    const larger = sql.raw(postgres ? 'greatest' : 'max');
    const now = sql`cast(${take.nowMs} as double precision)`;
    const interval = sql`cast(${take.intervalMs} as double precision)`;
    const latest = sql`cast(${take.nowMs + take.windowMs + FLOATING_POINT_ALLOWANCE_MS} as double precision)`;
    const moved = sql`${larger}(rate_limit_buckets.full_at_ms, ${now}) + ${interval}`;
    const end = postgres && !this.db.isTransaction ? sql`, ${ASYNCHRONOUS_COMMIT_COLUMN}` : sql.raw(` ${NO_DURABLE_WAIT}`);
    const { rows } = await sql<{ full_at_ms: number | string }>`insert into rate_limit_buckets (bucket, full_at_ms)
      values (${bucket}, cast(${take.nowMs + take.intervalMs} as double precision))
      on conflict (bucket) do update set full_at_ms = ${moved} where ${moved} <= ${latest}
      returning full_at_ms${end}`.execute(this.db);
    const row = rows[0];
    return row === undefined ? undefined : Number(row.full_at_ms);
  }

  async deleteFullBuckets(nowMs: number): Promise<number> {
    const result = await this.db.deleteFrom('rate_limit_buckets').where('full_at_ms', '<=', nowMs).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** The rate-limit stores on one connection or transaction. */
export function rateLimitsSqlStores(db: Db): RateLimitsStores {
  return { rateLimitBuckets: new SqlRateLimitBucketStore(db) };
}
