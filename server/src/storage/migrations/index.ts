import { DEFAULT_MIGRATION_TABLE, Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
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
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/**
 * Whether every migration is already applied, in one query. Kysely's Migrator takes a dozen statements (it creates
 * and introspects its tables, takes and releases its lock in a transaction, reads the log): at every start, for
 * nothing once the store is up to date. A store that is not, has no log yet or has a migration this code does not know goes
 * through the Migrator and its lock.
 */
async function upToDate(db: Kysely<unknown>): Promise<boolean> {
  try {
    const { rows } = await sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(db);
    // Exactly ours: a log with a migration this code does not know (a newer version's) is the Migrator's error to raise.
    const applied = new Set(rows.map((row) => row.name));
    const known = Object.keys(MIGRATIONS);
    return applied.size === known.length && known.every((name) => applied.has(name));
  } catch {
    return false;
  }
}

/** Applies every pending migration; throws with the failing migration's error. */
export async function migrateToLatest(db: Kysely<unknown>): Promise<void> {
  if (await upToDate(db)) return;
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error !== undefined) {
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed`, { cause: error });
  }
}
