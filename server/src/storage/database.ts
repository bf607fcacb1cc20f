import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, type Transaction, type SqliteDatabase as KyselySqliteDatabase, type SqliteStatement } from 'kysely';
import { FALLBACK_AUTOCHECKPOINT_PAGES, SqliteCheckpointer } from './sqlite-checkpointer';
import { sendPreparedByName } from './prepared-statements';
import { useFastRowObjects } from './postgres-row-objects';
import { PostgresStatistics } from './postgres-statistics';
import { KEY_LOOKUP_TABLES, KeyLookupCache } from './accounts/key-lookup-cache';
import { SqliteTableWatch } from './sqlite-table-watch';
import { KEY_LOOKUP_LISTENER_NAME, PostgresTableWatch } from './postgres-table-watch';
import { runCompiledDirectly } from './direct-statements';
import { GroupCommitSqliteDialect, SqliteGroupCommit, walSync, type SyncCommitted } from './sqlite-group-commit';
import type Pg from 'pg';
import type { Database } from './schema';

export type Engine = 'sqlite' | 'postgres';

/**
 * The connections a server process's PostgreSQL pool opens at most, unless RAIL_PG_POOL_SIZE says otherwise: 16
 * matches the bench's 16 connections (10 kept six of them waiting for a connection: 1.07x calls/s with 16).
 */
export const DEFAULT_PG_POOL_SIZE = 16;

export interface OpenDatabaseOptions {
  /** `postgres://...` selects PostgreSQL. */
  databaseUrl?: string | undefined;
  /** SQLite file used when no databaseUrl is given. */
  sqliteFile: string;
  /** PostgreSQL pool size (DEFAULT_PG_POOL_SIZE unless given; RAIL_PG_POOL_SIZE). */
  poolSize?: number;
  /**
   * PostgreSQL: the statements compiled once run as named prepared statements (storage/prepared-statements.ts); on
   * unless false. A pooler in transaction mode that does not keep prepared statements across its server connections
   * (PgBouncer before 1.21, or without max_prepared_statements) needs false (RAIL_PG_PREPARED_STATEMENTS=off).
   */
  preparedStatements?: boolean;
  /**
   * Told when an idle pooled PostgreSQL connection fails (server restart, terminated backend). The pool has already
   * dropped that connection and opens a new one for the next query; without a listener pg's pool would rethrow the
   * error as an uncaught exception and stop the process.
   */
  onIdleConnectionError?: (error: Error) => void;
  /**
   * PostgreSQL: analyze Rail's tables as they grow (storage/postgres-statistics.ts), looking every `intervalMs`; on
   * unless false (RAIL_PG_ANALYZE=off).
   */
  statistics?: false | { intervalMs?: number; onWarning?: (message: string) => void };
  /**
   * PostgreSQL: API key look-ups kept in memory while a connection of their own listens for changes to the tables
   * they read (storage/postgres-table-watch.ts); on unless false (RAIL_PG_KEY_LOOKUPS=off). `onWarning` is told when
   * the keeping stops.
   */
  keyLookups?: false | { onWarning?: (message: string) => void };
  /** How SQLite's committed batches are made durable; the WAL's fdatasync unless a test holds it. */
  sqliteSync?: (sqlite: SqliteDatabase.Database) => SyncCommitted;
  /** How often the checkpoint worker runs (storage/sqlite-checkpointer.ts); tests shorten it. */
  checkpointIntervalMs?: number;
  /** WAL bytes from which the checkpoint worker starts (START_AT_WAL_BYTES); tests of the worker set 0 (the first write). */
  checkpointStartAtWalBytes?: number;
  /** WAL frames from which the worker has the WAL started over, and the request connection's own bound; tests lower them. */
  walRestartAtFrames?: number;
  fallbackAutocheckpointPages?: number;
}

const INT8_OID = 20;

/** Where better-sqlite3's build (node-gyp, or its prebuilt binary) puts its native addon. */
const SQLITE_ADDON = 'better-sqlite3/build/Release/better_sqlite3.node';

/** int8 (bigint) as a JS number: amounts are minor units within Number.MAX_SAFE_INTEGER (checked at the edge). */
function parseInt8(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new Error('bigint value outside the safe integer range');
  return parsed;
}

/**
 * better-sqlite3, loaded when a SQLite database is opened (a start on PostgreSQL never runs it), with the path of its
 * native addon: the build bundles its JavaScript (scripts/build-server.mjs), where the addon's own lookup (the
 * `bindings` package, which searches from the caller's file) would search beside the bundle instead of node_modules.
 */
function loadSqlite(): { Sqlite: typeof SqliteDatabase; nativeBinding: string } {
  const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof SqliteDatabase;
  return { Sqlite, nativeBinding: createRequire(import.meta.url).resolve(SQLITE_ADDON) };
}

/** pg, loaded when a PostgreSQL database is opened: a server on SQLite never pays for loading it at start. */
function loadPg(): typeof Pg {
  const pg = createRequire(import.meta.url)('pg') as typeof Pg;
  useFastRowObjects(pg);
  return pg;
}

function pgTypes(pg: typeof Pg): { getTypeParser: typeof Pg.types.getTypeParser } {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof Pg.types.getTypeParser,
  };
}

/** What openDatabase made beside the connection of a SQLite database. */
interface SqliteParts {
  group: SqliteGroupCommit;
  /** None for an in-memory database. */
  checkpointer: SqliteCheckpointer | undefined;
  keyLookups: KeyLookupCache;
}

const sqliteParts = new WeakMap<Kysely<Database>, SqliteParts>();

/** What openDatabase made beside the pool of a PostgreSQL database (each undefined when turned off). */
const postgresParts = new WeakMap<Kysely<Database>, { statistics: PostgresStatistics | undefined; keyLookups: KeyLookupCache | undefined }>();

/** The planner statistics keeper of a PostgreSQL database opened here (undefined for SQLite, or when turned off). */
export function postgresStatisticsOf(db: Kysely<Database>): PostgresStatistics | undefined {
  return postgresParts.get(db)?.statistics;
}

/** The in-process cache of API key look-ups of a database opened here (none in a transaction, nor when turned off). */
export function keyLookupCacheOf(db: Kysely<Database>): KeyLookupCache | undefined {
  return sqliteParts.get(db)?.keyLookups ?? postgresParts.get(db)?.keyLookups;
}

/** The checkpoint worker of a SQLite database opened here (undefined for PostgreSQL and in-memory databases). */
export function checkpointerOf(db: Kysely<Database>): SqliteCheckpointer | undefined {
  return sqliteParts.get(db)?.checkpointer;
}

/** The group commit of a SQLite database opened here (undefined for PostgreSQL). */
export function groupCommitOf(db: Kysely<Database>): SqliteGroupCommit | undefined {
  return sqliteParts.get(db)?.group;
}

/** What a transaction wrote, once committed (every later statement sees it), and when it is durable. */
export interface Committed<T> {
  result: T;
  /**
   * Resolves once a power loss could not lose the transaction; rejects if its COMMIT or the sync failed. Never an
   * unhandled rejection while nobody awaits it.
   */
  durable: Promise<void>;
}

/**
 * Runs `work` in one transaction and resolves once it has committed, before it is durable: on SQLite a transaction
 * is a savepoint of a group commit's batch, and `durable` waits for the sync that covers the batch
 * (storage/sqlite-group-commit.ts); on PostgreSQL the commit was durable already. For a write that a later durable
 * write covers (the WAL is synced in order): its caller goes on at once and awaits `durable` before it acknowledges.
 */
export async function committedTransaction<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<Committed<T>> {
  const group = groupCommitOf(db);
  if (group === undefined) return { result: await db.transaction().execute(work), durable: Promise.resolve() };
  let batch = 0;
  const result = await db.transaction().execute((trx) => {
    batch = group.currentBatch();
    return work(trx);
  });
  const durable = group.durable(batch);
  durable.catch(() => undefined);
  return { result, durable };
}

/** Runs `work` in one transaction and resolves once it is durable (committedTransaction, then its sync). */
export async function durableTransaction<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const { result, durable } = await committedTransaction(db, work);
  await durable;
  return result;
}

/** Prepared statements kept per SQLite connection; Kysely's queries are a fixed set of shapes, far fewer than this. */
const STATEMENT_CACHE_SIZE = 1_000;

/**
 * The SQLite connection as Kysely sees it, with a cache of prepared statements: Kysely prepares every query anew,
 * and preparing costs as much as running a small statement. better-sqlite3 runs one statement at a time, so a cached
 * statement is never in use twice (Kysely's stream, which would hold one open, is not used here).
 */
export function withStatementCache(sqlite: SqliteDatabase.Database, size = STATEMENT_CACHE_SIZE, group?: SqliteGroupCommit, watch?: SqliteTableWatch): KyselySqliteDatabase {
  const statements = new Map<string, { statement: SqliteStatement; readonly: boolean; writesWatched: boolean }>();
  return {
    close: () => sqlite.close(),
    prepare: (sql: string): SqliteStatement => {
      let entry = statements.get(sql);
      if (entry === undefined) {
        const statement = sqlite.prepare(sql);
        entry = { statement: statement as unknown as SqliteStatement, readonly: statement.readonly, writesWatched: !statement.readonly && watch?.writesWatched(sql) === true };
        if (statements.size >= size) statements.delete(statements.keys().next().value as string);
        statements.set(sql, entry);
      }
      if (entry.writesWatched) watch?.noteWrite();
      group?.noteStatement(entry.readonly, sql);
      return entry.statement;
    },
  };
}

/**
 * Opens the database: SQLite (WAL; durable before acknowledged through the group commit's WAL sync, which does
 * what synchronous=FULL would do inside each COMMIT, off the event loop) by default, PostgreSQL when a URL is given. Both sit behind the same Kysely<Database>.
 */
export function openDatabase(options: OpenDatabaseOptions): { db: Kysely<Database>; engine: Engine } {
  if (options.databaseUrl) {
    const pg = loadPg();
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? DEFAULT_PG_POOL_SIZE,
      // A fixed-size pool: a connection once opened stays open (HikariCP's advice for a service pool). With pg's
      // default (closing a connection idle for 10 s), a server whose load fell from a burst to a steady half closed
      // most of them at once, and the ones it opened again at once (a new backend, its catalog caches cold) held up
      // every payment for 0.4-0.7 s (docs/benchmarks-reading.md, sixth session).
      idleTimeoutMillis: 0,
      types: pgTypes(pg),
    });
    pool.on('error', (error) => options.onIdleConnectionError?.(error));
    const databaseUrl = options.databaseUrl;
    const keyLookupOptions = options.keyLookups === false ? undefined : (options.keyLookups ?? {});
    const watch =
      keyLookupOptions &&
      new PostgresTableWatch(KEY_LOOKUP_TABLES, {
        connect: () => new pg.Client({ connectionString: databaseUrl, types: pgTypes(pg), application_name: KEY_LOOKUP_LISTENER_NAME }),
        ...(keyLookupOptions.onWarning !== undefined ? { onWarning: keyLookupOptions.onWarning } : {}),
      });
    pool.on('connect', (client) => {
      if (options.preparedStatements !== false) sendPreparedByName(client, pg.Query);
      // Outermost, so it sees each statement's text as Kysely sends it.
      watch?.watchClient(client);
    });
    let statistics: PostgresStatistics | undefined;
    // The statistics' lap uses the pool: it ends before the pool does.
    const endingPool = {
      connect: () => pool.connect(),
      end: async () => {
        await statistics?.stop();
        await watch?.stop();
        await pool.end();
      },
    };
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: endingPool }) });
    if (options.statistics !== false) {
      statistics = new PostgresStatistics(db, options.statistics ?? {});
      statistics.start();
    }
    watch?.start();
    postgresParts.set(db, { statistics, keyLookups: watch && new KeyLookupCache(watch) });
    return { db, engine: 'postgres' };
  }
  mkdirSync(dirname(options.sqliteFile), { recursive: true });
  const { Sqlite, nativeBinding } = loadSqlite();
  const sqlite = new Sqlite(options.sqliteFile, { nativeBinding });
  sqlite.pragma('journal_mode = WAL');
  // COMMIT only writes the WAL; the group commit fdatasyncs it before anything is acknowledged
  // (storage/sqlite-group-commit.ts). Checkpoints still sync the WAL before and the database after copying.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Checkpoints run on a worker thread (storage/sqlite-checkpointer.ts), once the WAL has grown; this connection's own
  // is the fallback.
  const sync = options.sqliteSync?.(sqlite) ?? walSync(sqlite);
  const group = new SqliteGroupCommit(sqlite, () => {
    checkpointer?.noteSync();
    return sync();
  });
  const checkpointer = sqlite.memory
    ? undefined
    // object-shapes: once per start
    : new SqliteCheckpointer(sqlite.name, {
        ...(options.checkpointIntervalMs !== undefined ? { intervalMs: options.checkpointIntervalMs } : {}),
        ...(options.checkpointStartAtWalBytes !== undefined ? { startAtWalBytes: options.checkpointStartAtWalBytes } : {}),
        ...(options.walRestartAtFrames !== undefined ? { restartAtFrames: options.walRestartAtFrames } : {}),
        onError: (message) => process.emitWarning(`SQLite checkpoint worker: ${message}`),
        whileNoWrites: (work) => group.whileNoWrites(work),
      });
  if (checkpointer !== undefined) sqlite.pragma(`wal_autocheckpoint = ${options.fallbackAutocheckpointPages ?? FALLBACK_AUTOCHECKPOINT_PAGES}`);
  const watch = new SqliteTableWatch(sqlite, KEY_LOOKUP_TABLES);
  group.onWritesSettled(() => watch.noteSettled());
  const dialect = new GroupCommitSqliteDialect({ database: withStatementCache(sqlite, STATEMENT_CACHE_SIZE, group, watch) }, group, () => checkpointer?.stop());
  const db = new Kysely<Database>({ dialect });
  const driver = dialect.driver;
  if (driver !== undefined) runCompiledDirectly(db, driver.runDirectly.bind(driver));
  sqliteParts.set(db, { group, checkpointer, keyLookups: new KeyLookupCache(watch) });
  return { db, engine: 'sqlite' };
}
