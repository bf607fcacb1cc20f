import type { Kysely, Migration } from 'kysely';

/**
 * Webhook delivery (issue 3): the dispatcher's lease and outcome columns on webhook_events, and one row per
 * delivery attempt in webhook_attempts. SQLite takes one ADD COLUMN per ALTER TABLE, hence one statement each.
 */
export const migration0005WebhookDelivery: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const columns: [string, 'text' | 'integer'][] = [
      // A claim: the dispatcher (or a manual retry) that holds the event until locked_until.
      ['lease_id', 'text'],
      ['locked_until', 'text'],
      // Attempts made by the schedule (drives the next delay); attempt_count counts manual ones too.
      ['scheduled_attempt_count', 'integer'],
      ['last_attempt_at', 'text'],
      ['failure_reason', 'text'],
    ];
    for (const [name, type] of columns) {
      await db.schema.alterTable('webhook_events').addColumn(name, type).execute();
    }
    await db.schema
      .createIndex('webhook_events_list_idx')
      .on('webhook_events')
      .columns(['account_id', 'mode', 'created_at', 'event_id'])
      .execute();

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('account_id', 'text', (col) => col.notNull())
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('event_id', 'text', (col) => col.notNull().references('webhook_events.event_id'))
      .addColumn('attempt_number', 'integer', (col) => col.notNull())
      .addColumn('trigger', 'text', (col) => col.notNull())
      .addColumn('url', 'text', (col) => col.notNull())
      .addColumn('attempted_at', 'text', (col) => col.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('error', 'text')
      .addColumn('duration_ms', 'integer', (col) => col.notNull())
      .addColumn('response_body', 'text')
      .addColumn('succeeded', 'integer', (col) => col.notNull())
      // Two writers can never record the same attempt number of one event.
      .addPrimaryKeyConstraint('webhook_attempts_pk', ['event_id', 'attempt_number'])
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('webhook_attempts').ifExists().execute();
    await db.schema.dropIndex('webhook_events_list_idx').ifExists().execute();
    for (const name of ['failure_reason', 'last_attempt_at', 'scheduled_attempt_count', 'locked_until', 'lease_id']) {
      await db.schema.alterTable('webhook_events').dropColumn(name).execute();
    }
  },
};
