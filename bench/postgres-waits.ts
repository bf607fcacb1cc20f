/**
 * What the busy backends of one PostgreSQL database are doing while a measure runs, sampled from pg_stat_activity at
 * a fixed interval: working (no wait event) or waiting, and on what. During the half-load open loop it says where a
 * payment's time inside the database goes: on this kind of machine mostly the WAL's flush, IO:WALSync for the backend
 * that flushes and LWLock:WALWrite for those queued behind it (docs/benchmarks-reading.md, twenty-seventh session).
 * One query per interval on a connection of its own, from the bench's process.
 */
import pg from 'pg';

export interface PostgresWaits {
  samples: number;
  /** Busy backends seen in all the samples together (a backend counts once per sample it is busy in). */
  busy: number;
  /** Busy backends by what they were doing (`CPU`, or `wait_event_type:wait_event`), most seen first. */
  byWait: [string, number][];
}

const BUSY_BACKENDS = `select coalesce(wait_event_type || ':' || wait_event, 'CPU') as wait from pg_stat_activity
  where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`;

/** The backends waiting for the WAL to reach the disk: the one flushing it, and those queued for its lock. */
export const WAL_FLUSH_WAITS: readonly string[] = ['IO:WALSync', 'LWLock:WALWrite'];

export async function samplePostgresWaits(databaseUrl: string, intervalMs = 10): Promise<{ stop(): Promise<PostgresWaits> }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
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
      } finally {
        await client.end();
      }
      const byWait = [...counts].sort((a, b) => b[1] - a[1]);
      return { samples, busy: byWait.reduce((sum, [, count]) => sum + count, 0), byWait };
    },
  };
}
