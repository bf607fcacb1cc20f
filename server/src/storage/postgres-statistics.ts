/**
 * Keeps PostgreSQL's planner statistics of Rail's tables in step with their size while they are small. Every 2 s it
 * looks for the tables changed by more than 50 rows since their last ANALYZE that have doubled in size since then
 * and were analyzed at fewer than 10,000 rows (or were never analyzed), and analyzes them.
 *
 * Why Rail does it rather than leaving it to autovacuum: the statements it runs are named prepared statements
 * (storage/prepared-statements.ts), and PostgreSQL keeps a prepared statement's generic plan until the statistics of
 * its tables change. A plan chosen while a table was small and never analyzed (a new database) can be one that reads
 * the whole table: measured, the payment update found its row through payments_list_idx, scanning every payment of
 * the account, and the attempt update through payment_attempts_number_unique, every attempt of the account, so each
 * statement cost more with every payment. Autovacuum would analyze the tables, but only once a minute at most
 * (autovacuum_naptime), and not at all where it is off (as on the PostgreSQL the bench ran on): within 30 s of load
 * the half-load p50 went from 6 to 21 ms and kept growing, and one ANALYZE brought it back to 4 ms and the closed
 * loop from 431 to 592 payments/s (docs/benchmarks-reading.md, seventh session). An ANALYZE invalidates the cached plans
 * of its table, so the next executions are planned with the statistics.
 *
 * Size is all it follows: Rail's statements find their rows through unique and partial indexes, whose plans a
 * table's size settles. It used to analyze, too, every table changed by 10 % a minute after its last ANALYZE (as
 * autovacuum does), which under steady load was every table once a minute: each ANALYZE makes every pooled
 * connection analyze and plan each of its statements on those tables again (a new generic plan: PostgreSQL keeps
 * its count of custom plans across the invalidation), and at half load each was a cluster of 45-94 slow payments,
 * the slowest 33-74 ms (docs/benchmarks-reading.md, twenty-ninth session).
 * Fresher column statistics are autovacuum's, or the operator's VACUUM ANALYZE.
 *
 * And only while it is small: a table analyzed at SETTLED_ROWS or more is left to autovacuum. Past a few pages a
 * lookup by unique key is planned through its index whatever the size, and the planner scales a table's analyzed
 * row count by its current pages for every new plan, so a lap there changed no plan and was only its cost: at half
 * load a lap of the four payment tables at 3,500 rows each took 120 ms of the database's CPU in 100 ms, with 18 slow
 * payments up to 70 ms around it; the bench's fresh database doubled them again near 55,000 payments, in its
 * half load (docs/benchmarks-reading.md, thirtieth session).
 *
 * One instance at a time does it (an advisory lock held by the lap's transaction); ANALYZE takes a lock that does not
 * block reads or writes, and samples fewer rows than by default (STATISTICS_TARGET). Dead rows are autovacuum's (or
 * the operator's VACUUM): where autovacuum is off, the first lap says so once through onWarning.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema';

/** Changes below this never call for an ANALYZE (autovacuum_analyze_threshold's default). */
const BASE_THRESHOLD = 50;
/** A table this many times larger than at its last ANALYZE is analyzed: the plans were made for its old size. */
const GROWTH_FACTOR = 2;
/** A table analyzed at this many rows or more is no longer followed (above): hundreds of pages, past any crossover. */
export const SETTLED_ROWS = 10_000;

/**
 * The statistics target of the keeper's ANALYZE (a sample of 300 times as many rows), unless the server's default is
 * lower already; a column's own target (ALTER TABLE ... SET STATISTICS) still applies. ANALYZE at the default of
 * 100 reads up to 30,000 rows of each table: the bench's five tables at some 20,000 payments took 470 ms of one core
 * (the payments table 186 ms), on two cores already busy at half load, where a cluster of slow payments followed it
 * (docs/benchmarks-reading.md, eighth session). At 10: 92 ms. What the plans need of the statistics (a table's
 * size, and how selective a unique or status column is) a sample of 3,000 rows gives.
 */
const STATISTICS_TARGET = 10;

/**
 * How often the tables' counters are read (one query; how often a table is analyzed is the rules' above). 2 s rather
 * than 10 s: a table that starts to grow is analyzed within seconds, and the closed loop on a new database gave
 * 571-648 payments/s against 521-523 with 10 s (two runs of each).
 */
export const STATISTICS_INTERVAL_MS = 2_000;

/** The advisory lock of a lap (any fixed number: "rail" "stat" in ASCII). */
export const LAP_LOCK = 0x7261696c_73746174n;

export interface PostgresStatisticsOptions {
  intervalMs?: number;
  /** Told of what an operator should know: autovacuum is off, or a lap failed. */
  onWarning?: (message: string) => void;
}

export class PostgresStatistics {
  #timer: NodeJS.Timeout | undefined;
  #lap: Promise<void> | undefined;
  #checkedAutovacuum = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: PostgresStatisticsOptions = {},
  ) {}

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.runLap(), this.options.intervalMs ?? STATISTICS_INTERVAL_MS);
    this.#timer.unref();
  }

  /** Stops the timer and waits for a lap in progress (the pool is about to close). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#lap;
  }

  /** One lap: analyzes the tables the rules above pick. A lap still running is not overlapped. */
  runLap(): Promise<void> {
    this.#lap ??= this.#analyzeStale()
      .catch((error: unknown) => this.options.onWarning?.(`keeping planner statistics fresh failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => (this.#lap = undefined));
    return this.#lap;
  }

  async #analyzeStale(): Promise<void> {
    // One transaction, with a lock that ends with it: behind a pooler in transaction mode only a transaction keeps
    // its statements on one server connection, and a session lock taken on one would be left held there. ANALYZE
    // runs inside a transaction; its statistics take effect at the commit.
    await this.db.transaction().execute(async (trx) => {
      const locked = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${LAP_LOCK}) as locked`.execute(trx);
      if (locked.rows[0]?.locked !== true) return;
      if (!this.#checkedAutovacuum) {
        this.#checkedAutovacuum = true;
        const setting = await sql<{ autovacuum: string }>`select current_setting('autovacuum') as autovacuum`.execute(trx);
        if (setting.rows[0]?.autovacuum === 'off') {
          this.options.onWarning?.('PostgreSQL runs with autovacuum off: Rail analyzes its tables as they grow, but nothing reclaims dead rows or refreshes column statistics; run VACUUM ANALYZE regularly');
        }
      }
      // pg_class.reltuples is the row count as of the last ANALYZE or VACUUM, -1 before the first.
      const stale = await sql<{ relname: string }>`
        select s.relname from pg_stat_user_tables s join pg_class c on c.oid = s.relid
        where s.schemaname = current_schema()
          and s.n_mod_since_analyze > ${sql.lit(BASE_THRESHOLD)}
          and (c.reltuples < 0 or (c.reltuples < ${sql.lit(SETTLED_ROWS)} and s.n_live_tup > ${sql.lit(GROWTH_FACTOR)} * c.reltuples))
        order by s.n_mod_since_analyze desc`.execute(trx);
      if (stale.rows.length === 0) return;
      await sql`select set_config('default_statistics_target', least(current_setting('default_statistics_target')::int, ${sql.lit(STATISTICS_TARGET)})::text, true)`.execute(trx);
      for (const { relname } of stale.rows) {
        await sql`analyze ${sql.table(relname)}`.execute(trx);
      }
    });
  }
}
