/**
 * Test harness: a fresh store on SQLite (temp file) or PostgreSQL (a database of its own, dropped afterwards),
 * bootstrapped, with a manual clock and the API app. Used by the API suite on both engines.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createApp } from '../app';
import { DEFAULT_ACCOUNT_SETTINGS, type AccountSettings } from '../core/account-settings';
import { bootstrap, type BootstrapResult, type BootstrapSecretsFile } from '../core/bootstrap';
import { ManualClock } from '../core/clock';
import { cryptoIds } from '../core/ids';
import { createLogger } from '../logger';
import { createRailRegistry, type RailAdapter, type RailRegistry } from '../rails/rail-adapter';
import type { RailName } from '../core/account-settings';
import { UpiSimulator } from '../rails/simulator/upi-simulator';
import { openDatabase, type Engine } from '../storage/database';
import { SqlStore } from '../storage/sql-store';

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

export interface TestDatabase {
  engine: Engine;
  /** DATABASE_URL for PostgreSQL, or the SQLite file. */
  databaseUrl?: string;
  sqliteFile: string;
  drop(): Promise<void>;
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
  clock: ManualClock;
  rails: RailRegistry;
  boot: BootstrapResult;
  /** Where the data lives (a second connection may count rows). */
  database: TestDatabase;
  secretKey: string;
  publishableKey: string;
  close(): Promise<void>;
}

export interface HarnessOptions {
  settings?: AccountSettings;
  poolSize?: number;
  demoPagePaths?: string[];
  /** Test-mode adapters besides the UPI simulator (for example stand-ins for rails without a simulator yet). */
  testAdapters?: Partial<Record<RailName, RailAdapter>>;
}

export async function createHarness(engine: Engine, options: HarnessOptions = {}): Promise<Harness> {
  const database = await createTestDatabase(engine);
  const { db } = openDatabase({ databaseUrl: database.databaseUrl, sqliteFile: database.sqliteFile, poolSize: options.poolSize ?? 10 });
  const store = new SqlStore(db, engine);
  await store.migrate();
  const clock = new ManualClock('2025-01-01T00:00:00.000Z');
  const boot = await bootstrap(
    { store, clock, ids: cryptoIds, secretsFile: memorySecretsFile() },
    { settings: options.settings ?? DEFAULT_ACCOUNT_SETTINGS },
  );
  const rails = createRailRegistry({ test: { upi: new UpiSimulator(cryptoIds), ...options.testAdapters } });
  const app = createApp({
    store,
    rails,
    clock,
    ids: cryptoIds,
    logger: createLogger('silent'),
    publicBaseUrl: 'http://127.0.0.1:8080',
    publicJsUrl: 'http://127.0.0.1:8081',
    demo: { testSecretKey: boot.testSecretKey, testPublishableKey: boot.testPublishableKey, pagePaths: options.demoPagePaths ?? [] },
  });
  return {
    engine,
    app,
    store,
    clock,
    rails,
    boot,
    database,
    secretKey: boot.testSecretKey,
    publishableKey: boot.testPublishableKey,
    close: async () => {
      await store.close();
      await database.drop();
    },
  };
}
