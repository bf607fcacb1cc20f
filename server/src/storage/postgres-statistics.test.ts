/**
 * Rail analyzes its PostgreSQL tables as they grow (storage/postgres-statistics.ts), whether or not autovacuum runs.
 * Laps are run by hand (the timer's interval is an hour); the rows are written by a client of their own that then
 * disconnects, which makes PostgreSQL count them at once (a backend that stays connected may report its counts up to
 * 10 s later).
 */
import { sql } from 'kysely';
import pg from 'pg';
import { expect, test } from 'vitest';
import { openDatabase, postgresStatisticsOf } from './database';
import { LAP_LOCK, SETTLED_ROWS } from './postgres-statistics';
import { onPostgres } from '../test-support/engines';
import { queryOnOwnClient } from '../test-support/harness';
import { until } from '../test-support/until';

onPostgres('planner statistics on PostgreSQL', (database) => {
  const query = <Row extends pg.QueryResultRow>(text: string) => queryOnOwnClient<Row>(database(), text);

  /** The writer's counts reach the statistics views as its backend exits, a moment after the client has gone. */
  const changesCounted = (table: string, changes: number) =>
    until(
      async () => Number((await query<{ n: string }>(`select n_mod_since_analyze as n from pg_stat_user_tables where relname = '${table}'`))[0]?.n) === changes,
      `PostgreSQL counts ${changes} changes of ${table}`,
      { intervalMs: 50, timeoutMs: 5_000 },
    );

  const lastAnalyzed = async (table: string) =>
    (await query<{ last_analyze: Date | null }>(`select last_analyze from pg_stat_user_tables where relname = '${table}'`))[0]?.last_analyze ?? null;

  test('analyzes a table never analyzed or twice its analyzed size, not one changed by 50 rows or fewer, nor one grown by half', async () => {
    await query('create table grown (id int primary key); create table barely (id int primary key)');
    await query('insert into grown select generate_series(1, 200); insert into barely select generate_series(1, 20)');
    await changesCounted('grown', 200);
    await changesCounted('barely', 20);
    const warnings: string[] = [];
    const { db } = openDatabase({ databaseUrl: database().databaseUrl, sqliteFile: database().sqliteFile, statistics: { intervalMs: 3_600_000, onWarning: (message) => warnings.push(message) } });
    try {
      const statistics = postgresStatisticsOf(db)!;
      await statistics.runLap();
      expect(warnings.filter((message) => message.includes('failed'))).toEqual([]);
      expect(await lastAnalyzed('grown')).not.toBeNull();
      expect(await lastAnalyzed('barely')).toBeNull();
      // The planner now knows the table's size.
      expect((await query<{ reltuples: number }>(`select reltuples from pg_class where relname = 'grown'`))[0]?.reltuples).toBe(200);

      // Analyzed, the table is not analyzed again until it changes again.
      const analyzedAt = await lastAnalyzed('grown');
      await statistics.runLap();
      expect(await lastAnalyzed('grown')).toEqual(analyzedAt);

      // Grown by half (more than 10 %, less than twice its size), within a minute of its last ANALYZE: left alone.
      await query('insert into grown select generate_series(201, 300)');
      await changesCounted('grown', 100);
      await statistics.runLap();
      expect(await lastAnalyzed('grown')).toEqual(analyzedAt);
      // More than twice the size it was analyzed at: analyzed again at once.
      await query('insert into grown select generate_series(301, 450)');
      await changesCounted('grown', 250);
      await statistics.runLap();
      expect(await lastAnalyzed('grown')).not.toEqual(analyzedAt);
      expect((await query<{ reltuples: number }>(`select reltuples from pg_class where relname = 'grown'`))[0]?.reltuples).toBe(450);

      const [{ autovacuum } = { autovacuum: '' }] = await query<{ autovacuum: string }>(`select current_setting('autovacuum') as autovacuum`);
      expect(warnings.filter((message) => message.includes('autovacuum off'))).toHaveLength(autovacuum === 'off' ? 1 : 0);
      expect(warnings.filter((message) => message.includes('failed'))).toEqual([]);
    } finally {
      await db.destroy();
    }
  });

  test('leaves a table that changed without growing, however long ago its last ANALYZE (plans follow its size)', async () => {
    await query('create table churned (id int primary key, n int); insert into churned select i, i from generate_series(1, 200) as i');
    await changesCounted('churned', 200);
    const { db } = openDatabase({ databaseUrl: database().databaseUrl, sqliteFile: database().sqliteFile, statistics: { intervalMs: 3_600_000 } });
    try {
      const statistics = postgresStatisticsOf(db)!;
      await statistics.runLap();
      expect(await lastAnalyzed('churned')).not.toBeNull();
      // Its counters start over (no ANALYZE on record, as long after one), while the planner keeps its 200 rows.
      await query(`select pg_stat_reset_single_table_counters('churned'::regclass)`);
      expect(await lastAnalyzed('churned')).toBeNull();
      await query('update churned set n = n + 1');
      await changesCounted('churned', 200);
      await statistics.runLap();
      expect(await lastAnalyzed('churned')).toBeNull();
    } finally {
      await db.destroy();
    }
  });

  test('stops following a table once it was analyzed at 10,000 rows: doubled from there, it is left to autovacuum', async () => {
    await query(`create table settled (id int primary key); insert into settled select generate_series(1, ${SETTLED_ROWS})`);
    await query(`create table unsettled (id int primary key); insert into unsettled select generate_series(1, ${SETTLED_ROWS - 1})`);
    await changesCounted('settled', SETTLED_ROWS);
    await changesCounted('unsettled', SETTLED_ROWS - 1);
    const { db } = openDatabase({ databaseUrl: database().databaseUrl, sqliteFile: database().sqliteFile, statistics: { intervalMs: 3_600_000 } });
    try {
      const statistics = postgresStatisticsOf(db)!;
      // Never analyzed: both are, whatever their size.
      await statistics.runLap();
      const settledAt = await lastAnalyzed('settled');
      const unsettledAt = await lastAnalyzed('unsettled');
      expect(settledAt).not.toBeNull();
      expect(unsettledAt).not.toBeNull();
      expect((await query<{ reltuples: number }>(`select reltuples from pg_class where relname = 'settled'`))[0]?.reltuples).toBe(SETTLED_ROWS);

      // Both more than doubled: the one analyzed one row short of SETTLED_ROWS is analyzed again, the other is not.
      await query(`insert into settled select generate_series(${SETTLED_ROWS + 1}, ${3 * SETTLED_ROWS})`);
      await query(`insert into unsettled select generate_series(${SETTLED_ROWS}, ${3 * SETTLED_ROWS})`);
      await changesCounted('settled', 2 * SETTLED_ROWS);
      await changesCounted('unsettled', 2 * SETTLED_ROWS + 1);
      await statistics.runLap();
      expect(await lastAnalyzed('unsettled')).not.toEqual(unsettledAt);
      expect(await lastAnalyzed('settled')).toEqual(settledAt);
    } finally {
      await db.destroy();
    }
  });

  test("samples 3,000 rows, not the default 30,000 (10 histogram buckets), in the lap's transaction only", async () => {
    await query('create table sampled (id int primary key, n int); insert into sampled select i, i from generate_series(1, 5000) as i');
    await changesCounted('sampled', 5000);
    // One connection: the lap's and the one read after it.
    const { db } = openDatabase({ databaseUrl: database().databaseUrl, sqliteFile: database().sqliteFile, poolSize: 1, statistics: { intervalMs: 3_600_000 } });
    const target = async () => (await sql<{ target: string }>`select current_setting('default_statistics_target') as target`.execute(db)).rows[0]?.target;
    try {
      const before = await target();
      await postgresStatisticsOf(db)!.runLap();
      const bounds = await query<{ n: number }>(`select array_length(histogram_bounds::text::int[], 1) as n from pg_stats where tablename = 'sampled' and attname = 'n'`);
      // 10 buckets have 11 bounds; PostgreSQL's default target (100) gives 101.
      expect(bounds[0]?.n).toBe(11);
      // The lap's setting ends with its transaction.
      expect(await target()).toBe(before);
    } finally {
      await db.destroy();
    }
  });

  test('analyzes nothing while another instance holds the lap', async () => {
    await query('create table held (id int primary key); insert into held select generate_series(1, 200)');
    await changesCounted('held', 200);
    const other = new pg.Client({ connectionString: database().databaseUrl });
    await other.connect();
    const { db } = openDatabase({ databaseUrl: database().databaseUrl, sqliteFile: database().sqliteFile, statistics: { intervalMs: 3_600_000 } });
    try {
      await other.query('begin');
      await other.query('select pg_advisory_xact_lock($1)', [LAP_LOCK.toString()]);
      await postgresStatisticsOf(db)!.runLap();
      expect(await lastAnalyzed('held')).toBeNull();
      await other.query('commit');
      await postgresStatisticsOf(db)!.runLap();
      expect(await lastAnalyzed('held')).not.toBeNull();
    } finally {
      await other.end();
      await db.destroy();
    }
  });

  test('is not kept when turned off', async () => {
    const { db } = openDatabase({ databaseUrl: database().databaseUrl, sqliteFile: database().sqliteFile, statistics: false });
    try {
      expect(postgresStatisticsOf(db)).toBeUndefined();
    } finally {
      await db.destroy();
    }
  });
});
