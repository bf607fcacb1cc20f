/**
 * What one PostgreSQL database does while a measure runs. Its busy backends, sampled from pg_stat_activity at a fixed
 * interval: working (no wait event) or waiting, and on what. And the WAL the whole server wrote and flushed meanwhile
 * (pg_stat_wal, whose counters backends publish within a second of going idle). During the half-load open loop it
 * says where a payment's time inside the database goes: on this kind of machine mostly the WAL's flush, IO:WALSync for
 * the backend that flushes and LWLock:WALWrite for those queued behind it (docs/benchmarks-reading.md,
 * twenty-seventh session). One query per interval on a connection of its own, from the bench's process.
 */
import pg from 'pg';

export interface PostgresActivity {
  samples: number;
  /** Busy backends seen in all the samples together (a backend counts once per sample it is busy in). */
  busy: number;
  /** Busy backends by what they were doing (`CPU`, or `wait_event_type:wait_event`), most seen first. */
  byWait: [string, number][];
  /** The server's WAL meanwhile: bytes written, full-page images among its records, syncs to disk (fdatasync here). */
  wal: { bytes: number; fullPageImages: number; syncs: number };
}

const BUSY_BACKENDS = `select coalesce(wait_event_type || ':' || wait_event, 'CPU') as wait from pg_stat_activity
  where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`;

const WAL_COUNTERS = 'select wal_bytes::float8 as bytes, wal_fpi::float8 as fpi, wal_sync::float8 as syncs from pg_stat_wal';

/** Long enough for every backend that went idle to have published its WAL counters (PostgreSQL 15: within 1 s). */
const STATISTICS_SETTLE_MS = 1500;

/** The backends waiting for the WAL to reach the disk: the one flushing it, and those queued for its lock. */
export const WAL_FLUSH_WAITS: readonly string[] = ['IO:WALSync', 'LWLock:WALWrite'];

export async function samplePostgresActivity(databaseUrl: string, intervalMs = 10): Promise<{ stop(): Promise<PostgresActivity> }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const walCounters = async () => {
    await new Promise((resolveWait) => setTimeout(resolveWait, STATISTICS_SETTLE_MS));
    return (await client.query<{ bytes: number; fpi: number; syncs: number }>(WAL_COUNTERS)).rows[0]!;
  };
  // What the measure before wrote is published before the first reading, and what this one wrote before the last.
  const walBefore = await walCounters();
  const counts = new Map<string, number>();
  let samples = 0;
  let running = true;
  const sampling = (async () => {
    while (running) {
      const { rows } = await client.query<{ wait: string }>(BUSY_BACKENDS);
      samples += 1;
      for (const { wait } of rows) counts.set(wait, (counts.get(wait) ?? 0) + 1);
      await new Promise((resolveWait) => setTimeout(resolveWait, intervalMs));
    }
  })();
  // A failed sample ends the sampling; stop() rethrows it, and until then it is no unhandled rejection.
  sampling.catch(() => undefined);
  return {
    async stop() {
      running = false;
      try {
        await sampling;
        const walAfter = await walCounters();
        const byWait = [...counts].sort((a, b) => b[1] - a[1]);
        return {
          samples,
          busy: byWait.reduce((sum, [, count]) => sum + count, 0),
          byWait,
          wal: { bytes: walAfter.bytes - walBefore.bytes, fullPageImages: walAfter.fpi - walBefore.fpi, syncs: walAfter.syncs - walBefore.syncs },
        };
      } finally {
        await client.end();
      }
    },
  };
}
