import { PostgresAdapter, sql, type CreateTableBuilder, type Kysely, type Migration } from 'kysely';

/**
 * Webhook events keep the object's own id and the version of the change they announce: unique is (account, mode,
 * object_id, event_type, object_version), no longer (account, mode, object_id, event_type). A repeat of an event type
 * (a payment needing action twice, a second partial capture, a subscription paused again) was stored under the
 * object_id `<id>.<version>`, which the events listing's object_id filter did not find, or was dropped (a second
 * action_required). Existing repeats get their object id back and their version in object_version; other rows keep
 * object_version 0. SQLite cannot drop a table's constraint: the table is rebuilt, its rows copied.
 */
export const migration0024EventObjectVersion: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      await db.schema.alterTable('webhook_events').addColumn('object_version', 'integer', (col) => col.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('webhook_events').dropConstraint(OLD_UNIQUE).execute();
      await moveVersionSuffixes(db);
      await db.schema.alterTable('webhook_events').addUniqueConstraint(NEW_UNIQUE, [...KEY, 'object_version']).execute();
      return;
    }
    await rebuildOnSqlite(db, { unique: [NEW_UNIQUE, [...KEY, 'object_version']], withVersion: true, thenInside: moveVersionSuffixes });
  },

  async down(db: Kysely<unknown>): Promise<void> {
    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      await restoreVersionSuffixes(db);
      await db.schema.alterTable('webhook_events').dropConstraint(NEW_UNIQUE).execute();
      await db.schema.alterTable('webhook_events').dropColumn('object_version').execute();
      await db.schema.alterTable('webhook_events').addUniqueConstraint(OLD_UNIQUE, [...KEY]).execute();
      return;
    }
    await rebuildOnSqlite(db, { unique: [OLD_UNIQUE, [...KEY]], withVersion: false, firstInside: restoreVersionSuffixes });
  },
};

const OLD_UNIQUE = 'webhook_events_object_type_unique';
const NEW_UNIQUE = 'webhook_events_object_version_unique';
const KEY = ['account_id', 'mode', 'object_id', 'event_type'] as const;

/** The columns webhook_events had before this migration (0001, 0005), in their order. */
const COLUMNS = [
  'event_id',
  'account_id',
  'mode',
  'event_type',
  'object_type',
  'object_id',
  'payload',
  'delivery_status',
  'attempt_count',
  'next_attempt_at',
  'created_at',
  'updated_at',
  'lease_id',
  'locked_until',
  'scheduled_attempt_count',
  'last_attempt_at',
  'failure_reason',
] as const;

/**
 * The table again with another unique key, its rows copied. SQLite checks webhook_attempts' foreign key on the drop
 * of the old table, and a deferred check would still count that drop's violations at the commit (a rename does not
 * undo them): the attempts wait in a temporary table meanwhile, and go back once their events are there again. The
 * rows' moves run in the same transaction (`firstInside` before the copy, `thenInside` after it): Kysely runs no
 * SQLite migration in a transaction of its own, and a rebuild committed without its moves was run again at the next
 * start, over rows already moved, and failed on the unique key at every start after.
 */
async function rebuildOnSqlite(
  db: Kysely<unknown>,
  options: { unique: [string, string[]]; withVersion: boolean; firstInside?: (trx: Kysely<unknown>) => Promise<void>; thenInside?: (trx: Kysely<unknown>) => Promise<void> },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await options.firstInside?.(trx);
    const attemptColumns = sql.join(ATTEMPT_COLUMNS.map((column) => sql.ref(column)));
    await sql`create temporary table webhook_attempts_aside as select ${attemptColumns} from webhook_attempts`.execute(trx);
    await sql`delete from webhook_attempts`.execute(trx);
    let table: CreateTableBuilder<'webhook_events_rebuilt', string> = trx.schema
      .createTable('webhook_events_rebuilt')
      .addColumn('event_id', 'text', (col) => col.primaryKey())
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('event_type', 'text', (col) => col.notNull())
      .addColumn('object_type', 'text', (col) => col.notNull())
      .addColumn('object_id', 'text', (col) => col.notNull())
      .addColumn('payload', 'text', (col) => col.notNull())
      .addColumn('delivery_status', 'text', (col) => col.notNull())
      .addColumn('attempt_count', 'integer', (col) => col.notNull())
      .addColumn('next_attempt_at', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addColumn('lease_id', 'text')
      .addColumn('locked_until', 'text')
      .addColumn('scheduled_attempt_count', 'integer')
      .addColumn('last_attempt_at', 'text')
      .addColumn('failure_reason', 'text');
    if (options.withVersion) table = table.addColumn('object_version', 'integer', (col) => col.notNull().defaultTo(0));
    await table.addUniqueConstraint(options.unique[0], options.unique[1]).execute();
    const columns = sql.join(COLUMNS.map((column) => sql.ref(column)));
    await sql`insert into webhook_events_rebuilt (${columns}) select ${columns} from webhook_events`.execute(trx);
    await sql`drop table webhook_events`.execute(trx);
    await sql`alter table webhook_events_rebuilt rename to webhook_events`.execute(trx);
    await trx.schema.createIndex('webhook_events_due_idx').on('webhook_events').columns(['delivery_status', 'next_attempt_at']).execute();
    await trx.schema.createIndex('webhook_events_list_idx').on('webhook_events').columns(['account_id', 'mode', 'created_at', 'event_id']).execute();
    await sql`insert into webhook_attempts (${attemptColumns}) select ${attemptColumns} from webhook_attempts_aside`.execute(trx);
    await sql`drop table webhook_attempts_aside`.execute(trx);
    await options.thenInside?.(trx);
  });
}

const ATTEMPT_COLUMNS = [
  'account_id',
  'mode',
  'event_id',
  'attempt_number',
  'trigger',
  'url',
  'attempted_at',
  'status_code',
  'error',
  'duration_ms',
  'response_body',
  'succeeded',
] as const;

interface EventRow {
  event_id: string;
  object_type: string;
  object_id: string;
  payload: string;
}

/** The object's own id in an event's snapshot: a payment's payment_id, a subscription's id. */
function snapshotId(row: EventRow): string | undefined {
  const object = (JSON.parse(row.payload) as { content?: { object?: Record<string, unknown> } }).content?.object;
  const id = row.object_type === 'payment' ? object?.['payment_id'] : object?.['id'];
  return typeof id === 'string' ? id : undefined;
}

/** `<id>.<version>` rows of payments and subscriptions: object_id `<id>`, object_version `<version>`. */
async function moveVersionSuffixes(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<EventRow>`select event_id, object_type, object_id, payload from webhook_events
    where object_type in ('payment', 'subscription') and object_id like '%.%'`.execute(db);
  for (const row of rows) {
    const id = snapshotId(row);
    if (id === undefined || !row.object_id.startsWith(`${id}.`)) continue;
    const suffix = row.object_id.slice(id.length + 1);
    if (!/^\d{1,9}$/.test(suffix)) continue;
    await sql`update webhook_events set object_id = ${id}, object_version = ${Number(suffix)} where event_id = ${row.event_id}`.execute(db);
  }
}

/**
 * The reverse: a subscription's events, and a payment's repeats of an event type, under `<id>.<version>` again. The
 * first of a payment's events of one type keeps the bare id: the lowest version (an object's versions only grow, and
 * a row that was bare before 0024 has version 0), not the earliest created_at, which a repeat written in the same
 * millisecond shares, and whose ties the event ids would break at random.
 */
async function restoreVersionSuffixes(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<EventRow & { account_id: string; mode: string; event_type: string; object_version: number }>`
    select event_id, account_id, mode, event_type, object_type, object_id, payload, object_version from webhook_events
    where object_type in ('payment', 'subscription') order by object_version, created_at, event_id`.execute(db);
  const seen = new Set<string>();
  for (const row of rows) {
    const key = [row.account_id, row.mode, row.object_id, row.event_type].join(' ');
    const repeat = row.object_type === 'subscription' || seen.has(key);
    seen.add(key);
    if (!repeat) continue;
    await sql`update webhook_events set object_id = ${`${row.object_id}.${row.object_version}`} where event_id = ${row.event_id}`.execute(db);
  }
}
