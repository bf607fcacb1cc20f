/**
 * Test harness: a fresh store on SQLite (temp file) or PostgreSQL (a database of its own, dropped afterwards),
 * bootstrapped, with a manual clock and the API app. Used by the API suite on both engines.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createApp } from '../app';
import { compose } from '../compose';
import { DEFAULT_ACCOUNT_SETTINGS } from '../core/accounts/account-settings';
import type { AccountSettings, RailName } from '../kernel/account-settings-types';
import type { BootstrapResult, BootstrapSecretsFile } from '../core/accounts/bootstrap';
import { ManualClock } from '../kernel/clock';
import type { CoreDeps, KeyPolicy, RecoveryPolicy } from '../core/shared/deps';
import { SimulatorFaults } from '../rails/simulator/simulator-faults';
import { cryptoIds } from '../kernel/ids';
import { type RateLimitDeps, RateLimiter, SharedRateLimiter } from '../http/rate-limit';
import { createLogger, type Logger } from '../logger';
import type { RailAdapter, RailRegistry } from '../rails/rail-adapter';
import { openDatabase, type Engine, type OpenDatabaseOptions } from '../storage/database';
import type { Database } from '../storage/schema';
import type { SqlStore } from '../storage/sql-store';
import { sql, type Kysely } from 'kysely';
import { OperatorSecretBox } from '../vault/operator-secret-box';
import { VaultCipher } from '../vault/vault-cipher';

export const TEST_DATABASE_URL = process.env['RAIL_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** True when PostgreSQL answers at TEST_DATABASE_URL within a short timeout. */
export async function postgresReachable(url = TEST_DATABASE_URL): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** PostgreSQL's synchronous_commit as the session, or the transaction `db` runs in, sees it. */
export async function synchronousCommit(db: Kysely<Database>): Promise<string | undefined> {
  return (await sql<{ setting: string }>`select current_setting('synchronous_commit') as setting`.execute(db)).rows[0]?.setting;
}

export interface TestDatabase {
  engine: Engine;
  /** DATABASE_URL for PostgreSQL, or the SQLite file. */
  databaseUrl?: string;
  sqliteFile: string;
  drop(): Promise<void>;
}

/**
 * Runs `work` on a connection of its own to `database` (one pooled connection on PostgreSQL, so that what a statement
 * leaves on the session is what the next one sees), closed afterwards. `options` adds to the database's own.
 */
export async function withOwnConnection<T>(
  database: TestDatabase,
  work: (db: Kysely<Database>) => Promise<T>,
  options: Partial<OpenDatabaseOptions> = {},
): Promise<T> {
  const { db } = openDatabase({ databaseUrl: database.databaseUrl, sqliteFile: database.sqliteFile, poolSize: 1, ...options });
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

/**
 * withOwnConnection with SQLite's WAL syncs held: each stays pending until `work` is done (`heldSyncs()` counts
 * them), then they are released as they come, through the connection's close. On PostgreSQL, nothing is held.
 */
export async function withHeldSyncs<T>(database: TestDatabase, work: (db: Kysely<Database>, heldSyncs: () => number) => Promise<T>): Promise<T> {
  const held: (() => void)[] = [];
  let releasing: ReturnType<typeof setInterval> | undefined;
  try {
    return await withOwnConnection(
      database,
      async (db) => {
        try {
          return await work(db, () => held.length);
        } finally {
          releasing = setInterval(() => held.splice(0).forEach((release) => release()), 1);
        }
      },
      { sqliteSync: () => () => new Promise<void>((resolve) => held.push(resolve)) },
    );
  } finally {
    clearInterval(releasing);
  }
}

/** The rows of `text` run on a PostgreSQL client of its own to `database`, which disconnects afterwards. */
export async function queryOnOwnClient<Row extends pg.QueryResultRow>(database: TestDatabase, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: database.databaseUrl });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** A fresh, empty database: a temp SQLite file, or a new PostgreSQL database. */
export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'rail-test-'));
  const sqliteFile = join(dir, 'rail.sqlite');
  if (engine === 'sqlite') {
    return { engine, sqliteFile, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `rail_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    engine,
    databaseUrl: url.toString(),
    sqliteFile,
    drop: async () => {
      const dropper = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A TOTP secret box with a throwaway vault key, for tests that bootstrap a store themselves. */
export function testOperatorSecrets(): OperatorSecretBox {
  return new OperatorSecretBox(new VaultCipher(randomBytes(32)));
}

export function memorySecretsFile(initial: { testSecretKey?: string; testPublishableKey?: string } = {}): BootstrapSecretsFile & {
  values: { testSecretKey?: string; testPublishableKey?: string };
} {
  const file = {
    values: { ...initial },
    read: async () => ({ ...file.values }),
    write: async (values: { testSecretKey: string; testPublishableKey: string }) => {
      file.values = { ...values };
    },
  };
  return file;
}

export interface Harness {
  engine: Engine;
  app: ReturnType<typeof createApp>;
  store: SqlStore;
  /** The raw database, for tests that read rows as stored (encryption at rest, data scans). */
  db: Kysely<Database>;
  clock: ManualClock;
  rails: RailRegistry;
  boot: BootstrapResult;
  /** Where the data lives (a second connection may count rows). */
  database: TestDatabase;
  secretKey: string;
  publishableKey: string;
  /** What the core operations take (for driving background jobs such as recovery in a test). */
  core: CoreDeps;
  /** Faults the simulators play on demand. */
  faults: SimulatorFaults;
  close(): Promise<void>;
}

export interface HarnessOptions {
  settings?: AccountSettings;
  poolSize?: number;
  demoPagePaths?: string[];
  /** RAIL_DEMO=auto: the demo answers 404 once the account has a live key. */
  demoOffWhenLiveKeysExist?: boolean;
  /** The vault key (random by default). */
  vaultKey?: Buffer;
  /** Logger of the app (silent by default). */
  logger?: Logger;
  /** Test-mode adapters that replace the simulators of their rails (for example stand-ins with other offers). */
  testAdapters?: Partial<Record<RailName, RailAdapter>>;
  /** Limits on the browser and public surfaces, on the harness clock (none by default). */
  rateLimits?: Omit<RateLimitDeps, 'limiter' | 'shared' | 'failedAuthentications'>;
  /** Rail call limits and recovery timing (DEFAULT_RECOVERY_POLICY by default). */
  recovery?: RecoveryPolicy;
  /** Operator sessions and key rotation (DEFAULT_KEY_POLICY by default). */
  keys?: KeyPolicy;
}

/** The composition options of a harness store on `database`, on `clock`. */
function compositionOptions(database: TestDatabase, clock: ManualClock, faults: SimulatorFaults, options: HarnessOptions, vaultKey: Buffer) {
  return {
    databaseUrl: database.databaseUrl,
    sqliteFile: database.sqliteFile,
    poolSize: options.poolSize ?? 10,
    clock,
    ids: cryptoIds,
    publicBaseUrl: 'http://127.0.0.1:8080',
    vaultKey,
    settings: options.settings ?? DEFAULT_ACCOUNT_SETTINGS,
    secretsFile: memorySecretsFile(),
    ...(options.testAdapters !== undefined ? { testAdapters: options.testAdapters } : {}),
    ...(options.recovery !== undefined ? { recovery: options.recovery } : {}),
    ...(options.keys !== undefined ? { keys: options.keys } : {}),
    simulatorFaults: faults,
  };
}

/** The API app of a harness instance, with rate limiters of its own (each instance keeps its own in memory). */
function harnessApp(core: CoreDeps, store: SqlStore, boot: BootstrapResult, clock: ManualClock, options: HarnessOptions) {
  return createApp({
    ...core,
    logger: options.logger ?? createLogger('silent'),
    publicBaseUrl: 'http://127.0.0.1:8080',
    publicJsUrl: 'http://127.0.0.1:8081',
    demo: { testSecretKey: boot.testSecretKey, pagePaths: options.demoPagePaths ?? [], offWhenLiveKeysExist: options.demoOffWhenLiveKeysExist ?? false },
    rateLimits: options.rateLimits && {
      ...options.rateLimits,
      limiter: new RateLimiter(clock),
      shared: new SharedRateLimiter(store.rateLimitBuckets, clock),
      failedAuthentications: new SharedRateLimiter(store.rateLimitBuckets, clock),
    },
  });
}

export async function createHarness(engine: Engine, options: HarnessOptions = {}): Promise<Harness> {
  const database = await createTestDatabase(engine);
  const clock = new ManualClock('2025-01-01T00:00:00.000Z');
  const faults = new SimulatorFaults();
  const vaultKey = options.vaultKey ?? randomBytes(32);
  const { db, store, rails, boot, core } = await compose(compositionOptions(database, clock, faults, options, vaultKey));
  const app = harnessApp(core, store, boot, clock, options);
  return {
    engine,
    app,
    store,
    db,
    clock,
    rails,
    boot,
    database,
    secretKey: boot.testSecretKey,
    publishableKey: boot.testPublishableKey,
    core,
    faults,
    close: async () => {
      await store.close();
      await database.drop();
    },
  };
}

/**
 * A second instance of `h`'s server: a store of its own (its own pool and key look-ups) on `h`'s database, on `h`'s
 * clock, with the same vault key and its own rate limiters (as another process behind a load balancer). Its
 * `close()` closes its store only; `h.close()` drops the database.
 */
export async function createSecondInstance(h: Harness, options: HarnessOptions & { vaultKey: Buffer }): Promise<Pick<Harness, 'app' | 'store' | 'core' | 'secretKey' | 'publishableKey' | 'close'>> {
  const { store, boot, core } = await compose(compositionOptions(h.database, h.clock, h.faults, options, options.vaultKey));
  return {
    app: harnessApp(core, store, boot, h.clock, options),
    store,
    core,
    secretKey: h.secretKey,
    publishableKey: h.publishableKey,
    close: () => store.close(),
  };
}
