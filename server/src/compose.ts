/**
 * The one composition root: from settings to a migrated, bootstrapped store, the rail adapters, the vault and the
 * core's dependencies. main.ts, the test harness and the benchmarks build the server through it, so the three can
 * never wire the adapters differently.
 */
import { bootstrap, prepareOperator, type BootstrapInput, type BootstrapResult, type BootstrapSecretsFile } from './core/accounts/bootstrap';
import type { CoreDeps } from './core/shared/deps';
import { ClientRailSyncs } from './core/payments/client-rail-syncs';
import type { AccountSettings, RailName } from './kernel/account-settings-types';
import type { Clock } from './kernel/clock';
import type { IdGenerator } from './kernel/ids';
import type { RailAdapter, RailRegistry } from './rails/rail-adapter';
import type { CollectProviderRegistry } from './rails/collect-provider';
import { createCollectSimulator } from './rails/simulator/collect-simulator';
import { createSimulatorRegistry } from './rails/simulator/registry';
import type { SimulatorFaults } from './rails/simulator/simulator-faults';
import { DEFAULT_KEY_POLICY, DEFAULT_RECOVERY_POLICY, type KeyPolicy, type RecoveryPolicy } from './core/shared/deps';
import { openDatabase, type Engine } from './storage/database';
import type { Database } from './storage/schema';
import { SqlStore } from './storage/sql-store';
import { DiskFileBlobStore } from './storage/files/disk-blob-store';
import { SqlFileBlobStore } from './storage/files/sql-store';
import { CardVault } from './vault/card-vault';
import { VaultCipher } from './vault/vault-cipher';
import { OperatorSecretBox } from './vault/operator-secret-box';
import type { Kysely } from 'kysely';
import { hkdfSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface CompositionOptions {
  /** `postgres://...` selects PostgreSQL; otherwise SQLite at sqliteFile. */
  databaseUrl: string | undefined;
  sqliteFile: string;
  /** Where SQLite keeps the bytes of uploaded files; default `files/` beside sqliteFile (RAIL_DATA_DIR/files). */
  filesDir?: string;
  /** Named prepared statements on PostgreSQL (on unless false; storage/prepared-statements.ts). */
  pgPreparedStatements?: boolean;
  /** Keeping PostgreSQL's planner statistics fresh (storage/postgres-statistics.ts): its warnings, or false for none. */
  pgStatistics?: false | { onWarning?: (message: string) => void };
  /** API key look-ups kept in memory on PostgreSQL (storage/postgres-table-watch.ts): its warnings, or false for none. */
  pgKeyLookups?: false | { onWarning?: (message: string) => void };
  poolSize?: number;
  onIdleConnectionError?: (error: Error) => void;
  clock: Clock;
  ids: IdGenerator;
  /** Where the simulators' pages live (their URLs are in next_action). */
  publicBaseUrl: string;
  /** The vault's AES-256-GCM key (32 bytes), or its read: the store opens and migrates meanwhile. */
  vaultKey: Buffer | Promise<Buffer>;
  settings: AccountSettings;
  secretsFile: BootstrapSecretsFile;
  bootstrap?: Omit<BootstrapInput, 'settings'>;
  /** Test-mode adapters that replace the simulators of their rails (tests only). */
  testAdapters?: Partial<Record<RailName, RailAdapter>>;
  /** Time limits of rail calls and recovery; DEFAULT_RECOVERY_POLICY when absent. */
  recovery?: RecoveryPolicy;
  /** Faults the simulators play on demand (tests). */
  simulatorFaults?: SimulatorFaults;
  /** Operator sessions and key rotation; DEFAULT_KEY_POLICY when absent. */
  keys?: KeyPolicy;
}

export interface Composition {
  engine: Engine;
  /** The raw database, for tests that read rows as stored. */
  db: Kysely<Database>;
  store: SqlStore;
  rails: RailRegistry;
  vault: CardVault;
  boot: BootstrapResult;
  /** What every core operation takes. */
  core: CoreDeps;
}

/** Runs `work` on the opened store; if it fails, the store is closed (a pool left open keeps the process alive). */
async function closingOnFailure<T>(store: SqlStore, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}

export async function compose(options: CompositionOptions): Promise<Composition> {
  // A SQLite file that does not exist yet is a first boot: the operator it creates has its password hashed (scrypt,
  // 50-200 ms on the thread pool) while the store is created, migrated and bootstrapped, not after.
  const newStoreOperator =
    !options.databaseUrl && !existsSync(options.sqliteFile) ? prepareOperator(options.ids, options.bootstrap ?? {}) : undefined;
  const { db, engine } = openDatabase({
    databaseUrl: options.databaseUrl,
    sqliteFile: options.sqliteFile,
    ...(options.poolSize !== undefined ? { poolSize: options.poolSize } : {}),
    ...(options.pgPreparedStatements !== undefined ? { preparedStatements: options.pgPreparedStatements } : {}),
    ...(options.onIdleConnectionError !== undefined ? { onIdleConnectionError: options.onIdleConnectionError } : {}),
    ...(options.pgStatistics !== undefined ? { statistics: options.pgStatistics } : {}),
    ...(options.pgKeyLookups !== undefined ? { keyLookups: options.pgKeyLookups } : {}),
  });
  const store = new SqlStore(db, engine);
  const { vaultKey, cipher, operatorSecrets, boot } = await closingOnFailure(store, async () => {
    await store.migrate();
    const vaultKey = await options.vaultKey;
    const cipher = new VaultCipher(vaultKey);
    const operatorSecrets = new OperatorSecretBox(cipher);
    const boot = await bootstrap(
      { store, clock: options.clock, ids: options.ids, secretsFile: options.secretsFile, operatorSecrets },
      // object-shapes: once per start
      { ...options.bootstrap, settings: options.settings, operator: newStoreOperator },
    );
    return { vaultKey, cipher, operatorSecrets, boot };
  });
  // Test mode: the deterministic simulators (an account uses a rail only when its settings provision it). Live
  // mode: provider adapters need credentials (none wired yet), so live payments answer ERR_3010.
  // The simulators remember their answers in the database, as a rail would on its side, for crash recovery.
  const simulators = createSimulatorRegistry({
    ids: options.ids,
    publicBaseUrl: options.publicBaseUrl,
    // A key of its own for the simulated PayPal order ids, derived from the vault key (every instance has it).
    walletOrderKey: Buffer.from(hkdfSync('sha256', vaultKey, Buffer.alloc(0), 'rail simulator: wallet order ids', 32)),
    ledger: store.railLedger,
    ...(options.simulatorFaults !== undefined ? { faults: options.simulatorFaults } : {}),
  });
  const overrides = options.testAdapters;
  const rails: RailRegistry =
    overrides === undefined
      ? simulators
      : { adapterFor: (mode, rail) => (mode === 'test' ? overrides[rail] : undefined) ?? simulators.adapterFor(mode, rail) };
  // File bytes beside the database: on disk for SQLite (one instance), in file_blobs for PostgreSQL (every instance).
  const fileBlobs = engine === 'postgres' ? new SqlFileBlobStore(db) : new DiskFileBlobStore(options.filesDir ?? join(dirname(options.sqliteFile), 'files'));
  const vault = new CardVault(cipher);
  const collectSimulator = createCollectSimulator({
    publicBaseUrl: options.publicBaseUrl,
    // A key of its own for the account a payer page's link names without showing it, derived from the vault key.
    pageKey: Buffer.from(hkdfSync('sha256', vaultKey, Buffer.alloc(0), 'rail simulator: collect payer pages', 32)),
  });
  const collect: CollectProviderRegistry = { providerFor: (mode) => (mode === 'test' ? collectSimulator : undefined) };
  return { engine, db, store, rails, vault, boot, core: {
      store,
      rails,
      clock: options.clock,
      ids: options.ids,
      vault,
      collect,
      fileBlobs,
      recovery: options.recovery ?? DEFAULT_RECOVERY_POLICY,
      operatorSecrets,
      keys: options.keys ?? DEFAULT_KEY_POLICY,
      clientRailSyncs: new ClientRailSyncs(),
      renewalTickResumesAfter: new Map(),
    },
  };
}
