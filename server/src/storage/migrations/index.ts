import {
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  MIGRATION_LOCK_ID,
  Migrator,
  PostgresAdapter,
  sql,
  SqliteAdapter,
  type Kysely,
  type Migration,
  type MigrationProvider,
} from 'kysely';
import { migration0001Init } from './0001-init';
import { migration0002PaymentsOps } from './0002-payments-ops';
import { migration0003Customers } from './0003-customers';
import { migration0004Refunds } from './0004-refunds';
import { migration0005WebhookDelivery } from './0005-webhook-delivery';
import { migration0006IdempotencyKeys } from './0006-idempotency-keys';
import { migration0007Vault } from './0007-vault';
import { migration0008WaitingPayments } from './0008-waiting-payments';
import { migration0009Disputes } from './0009-disputes';
import { migration0010Collect } from './0010-collect';
import { migration0013Recurring } from './0013-recurring';
import { migration0014Recovery } from './0014-recovery';
import { migration0015Capture } from './0015-capture';
import { migration0016Keys } from './0016-keys';
import { migration0017PaymentIndexes } from './0017-payment-indexes';
import { migration0018IdempotencyIdsTime } from './0018-idempotency-ids-time';
import { migration0019KeyLookupNotify } from './0019-key-lookup-notify';
import { migration0020AccountIdWithoutForeignKeys } from './0020-account-id-without-foreign-keys';
import { migration0021IdempotencyBatchFunction } from './0021-idempotency-batch-function';
import { migration0022DisputeHolds } from './0022-dispute-holds';
import { migration0023EphemeralKeyIssuer } from './0023-ephemeral-key-issuer';
import { migration0024EventObjectVersion } from './0024-event-object-version';
import { migration0025FilesDisputeIndex } from './0025-files-dispute-index';
import { migration0026IdempotencyIdsScheme } from './0026-idempotency-ids-scheme';
import { migration0027SubscriptionRenewalPayment } from './0027-subscription-renewal-payment';
import { migration0028SubscriptionOutstandingRenewalIndex } from './0028-subscription-outstanding-renewal-index';
import { migration0029RefundIndexes } from './0029-refund-indexes';
import { migration0030CaptureAtRail } from './0030-capture-at-rail';
import { migration0031SubscriptionRenewalPeriod } from './0031-subscription-renewal-period';
import { migration0032RateLimitBuckets } from './0032-rate-limit-buckets';
import { migration0033CollectBalances } from './0033-collect-balances';
import { migration0034RecoveryKeyset } from './0034-recovery-keyset';
import { SQLITE_SCHEMA } from './sqlite-schema';
import { durableTransaction } from '../database';
import type { Database } from '../schema';

/** In-code migrations, in order. File names sort; Kysely applies them by name. */
const MIGRATIONS: Record<string, Migration> = {
  '0001_init': migration0001Init,
  '0002_payments_ops': migration0002PaymentsOps,
  '0003_customers': migration0003Customers,
  '0004_refunds': migration0004Refunds,
  '0005_webhook_delivery': migration0005WebhookDelivery,
  '0006_idempotency_keys': migration0006IdempotencyKeys,
  '0007_vault': migration0007Vault,
  '0008_waiting_payments': migration0008WaitingPayments,
  '0009_disputes': migration0009Disputes,
  '0010_collect': migration0010Collect,
  '0013_recurring': migration0013Recurring,
  '0014_recovery': migration0014Recovery,
  '0015_capture': migration0015Capture,
  '0016_keys': migration0016Keys,
  '0017_payment_indexes': migration0017PaymentIndexes,
  '0018_idempotency_ids_time': migration0018IdempotencyIdsTime,
  '0019_key_lookup_notify': migration0019KeyLookupNotify,
  '0020_account_id_without_foreign_keys': migration0020AccountIdWithoutForeignKeys,
  '0021_idempotency_batch_function': migration0021IdempotencyBatchFunction,
  '0022_dispute_holds': migration0022DisputeHolds,
  '0023_ephemeral_key_issuer': migration0023EphemeralKeyIssuer,
  '0024_event_object_version': migration0024EventObjectVersion,
  '0025_files_dispute_index': migration0025FilesDisputeIndex,
  '0026_idempotency_ids_scheme': migration0026IdempotencyIdsScheme,
  '0027_subscription_renewal_payment': migration0027SubscriptionRenewalPayment,
  '0028_subscription_outstanding_renewal_index': migration0028SubscriptionOutstandingRenewalIndex,
  '0029_refund_indexes': migration0029RefundIndexes,
  '0030_capture_at_rail': migration0030CaptureAtRail,
  '0031_subscription_renewal_period': migration0031SubscriptionRenewalPeriod,
  '0032_rate_limit_buckets': migration0032RateLimitBuckets,
  '0033_collect_balances': migration0033CollectBalances,
  '0034_recovery_keyset': migration0034RecoveryKeyset,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** The migrations this code knows, in the order they apply. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS);

/**
 * Whether every migration is already applied, in one query (two on PostgreSQL: migrationLogExists). Kysely's Migrator
 * takes a dozen statements (it creates and introspects its tables, takes and releases its lock in a transaction,
 * reads the log): at every start, for nothing once the store is up to date. A store that is not, has no log yet or
 * has a migration this code does not know goes through the Migrator and its lock.
 */
async function upToDate(db: Kysely<unknown>): Promise<boolean> {
  if (!(await migrationLogExists(db))) return false;
  try {
    const { rows } = await sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(db);
    // Exactly ours: a log with a migration this code does not know (a newer version's) is the Migrator's error to raise.
    const applied = new Set(rows.map((row) => row.name));
    return applied.size === MIGRATION_NAMES.length && MIGRATION_NAMES.every((name) => applied.has(name));
  } catch {
    return false;
  }
}

/**
 * Whether the migrations' log exists. PostgreSQL writes every failed statement to its own log as an ERROR, so a fresh
 * database is asked about the table rather than selected from: one more round trip at a PostgreSQL start, where an
 * operator reading the server's log at a first deploy would otherwise find an ERROR that is none. A failed select
 * on SQLite leaves no trace anywhere.
 */
async function migrationLogExists(db: Kysely<unknown>): Promise<boolean> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return true;
  const { rows } = await sql<{ present: boolean }>`select to_regclass(${DEFAULT_MIGRATION_TABLE}::text) is not null as present`.execute(db);
  return rows[0]?.present === true;
}

/** How migrateToLatest brought the store up to date. */
export type MigrationOutcome = 'up-to-date' | 'created-from-schema' | 'migrated';

/**
 * Applies every pending migration; throws with the failing migration's error. An empty SQLite store (the first boot,
 * and every test's fresh store) gets the schema the migrations end at in one step instead (below).
 */
export async function migrateToLatest(db: Kysely<unknown>): Promise<MigrationOutcome> {
  if (await upToDate(db)) return 'up-to-date';
  if (await createdFromSchema(db)) return 'created-from-schema';
  await migrateStepByStep(db);
  return 'migrated';
}

/**
 * Kysely's Migrator, migration after migration (a store that has some of them, PostgreSQL, the schema's generator);
 * up to `upTo` when given (a migration's test starts from the store before it).
 */
export async function migrateStepByStep(db: Kysely<unknown>, upTo?: string): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await (upTo === undefined ? migrator.migrateToLatest() : migrator.migrateTo(upTo));
  const failed = results?.find((result) => result.status === 'Error');
  if (error !== undefined) {
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed`, { cause: error });
  }
}

/**
 * An empty SQLite store is given sqlite-schema.ts (the tables and indexes every migration in order leaves, Kysely's
 * own two among them) and a log naming every migration, in one transaction. Kysely's Migrator builds each
 * migration's statements and reads and writes its log around each: 100-190 ms for a new store in a probe on this
 * machine, against 8 ms for these statements, and a first boot of the compiled server takes 0.95x the time
 * (docs/benchmarks-reading.md, eighteenth session). Rails loads a new database from its schema.rb the same way. Only
 * when the file names exactly these migrations (sqlite-schema.test.ts fails otherwise; `npm run schema:sqlite` writes
 * it again), and only on a store with nothing in it, checked inside the write transaction: a file another process
 * has just filled is left to the Migrator, which finds it up to date. PostgreSQL always goes through the Migrator.
 */
async function createdFromSchema(db: Kysely<unknown>): Promise<boolean> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return false;
  if (SQLITE_SCHEMA.migrations.join() !== MIGRATION_NAMES.join()) return false;
  // Durable, and so committed, before the store is used: a plain transaction on SQLite is a savepoint of the group
  // commit's open batch, which commits after this turn of the event loop (storage/sqlite-group-commit.ts).
  return durableTransaction(db as unknown as Kysely<Database>, async (trx) => {
    const { rows } = await sql<{ objects: number }>`select count(*) as objects from sqlite_master`.execute(trx);
    if (Number(rows[0]?.objects) !== 0) return false;
    for (const statement of SQLITE_SCHEMA.statements) await sql.raw(statement).execute(trx);
    const timestamp = new Date().toISOString();
    for (const name of MIGRATION_NAMES) {
      await sql`insert into ${sql.table(DEFAULT_MIGRATION_TABLE)} (name, timestamp) values (${name}, ${timestamp})`.execute(trx);
    }
    await sql`insert into ${sql.table(DEFAULT_MIGRATION_LOCK_TABLE)} (id, is_locked) values (${MIGRATION_LOCK_ID}, 0)`.execute(trx);
    return true;
  });
}
