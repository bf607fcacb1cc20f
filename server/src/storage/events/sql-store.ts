/**
 * Kysely implementation of WebhookStore (SQLite and PostgreSQL). Claims are conditional UPDATEs on the lease
 * columns: under PostgreSQL's READ COMMITTED a concurrent UPDATE of the same row re-checks the WHERE clause on the
 * committed row, so a second claimer finds the lease taken and updates nothing.
 */
import { type ExpressionBuilder, type Insertable, type Kysely, type RawBuilder, type Selectable, sql } from 'kysely';
import type { JsonObject } from '../../../../protocol/api/payments';
import type { AccountSettings } from '../../kernel/account-settings-types';
import type { InsertResult, Scope } from '../../kernel/store-types';
import { toWebhookEndpoint } from '../webhook-endpoints/sql-store';
import type { AttemptOutcome, AttemptTrigger, DueEvent, ListEventsFilter, OutboxEventRecord, WebhookAttemptRecord, WebhookEventRecord } from './records';
import type { Mode } from '../../../../protocol/ids';
import type { WebhookAttemptsTable, WebhookEventsTable } from './schema';
import type { DeliveryEndpoint, EventsStores, OutboxStore, WebhookStore } from './store';
import type { Database } from '../schema';
import { dateOrNull, type Db, inScope, insertResult, isPostgres, iso } from '../sql-rows';
import { compiledOnce, prefixed, setPrefixed } from '../compiled-query';

/**
 * An event as its delivery reads it. The dispatcher posts `body`, the stored bytes; `payload`, the same envelope
 * parsed, is parsed only when something reads it (an event's detail view), not for every event a claim returns.
 */
function toDeliveryEvent(row: Selectable<WebhookEventsTable>): WebhookEventRecord {
  let payload: JsonObject | undefined;
  // eventColumns spread last (docs/architecture.md, "Objects on hot paths").
  return {
    get payload(): JsonObject {
      payload ??= JSON.parse(row.payload) as JsonObject;
      return payload;
    },
    body: row.payload,
    deliveryStatus: row.delivery_status,
    attemptCount: row.attempt_count,
    scheduledAttemptCount: row.scheduled_attempt_count ?? 0,
    nextAttemptAt: dateOrNull(row.next_attempt_at),
    lastAttemptAt: dateOrNull(row.last_attempt_at),
    failureReason: row.failure_reason,
    leaseId: row.lease_id,
    lockedUntil: dateOrNull(row.locked_until),
    updatedAt: new Date(row.updated_at),
    ...eventColumns(row),
  };
}

function toAttempt(row: Selectable<WebhookAttemptsTable>): WebhookAttemptRecord {
  return {
    accountId: row.account_id,
    mode: row.mode,
    eventId: row.event_id,
    attemptNumber: row.attempt_number,
    trigger: row.trigger as AttemptTrigger,
    url: row.url,
    attemptedAt: new Date(row.attempted_at),
    statusCode: row.status_code,
    error: row.error,
    durationMs: row.duration_ms,
    responseBody: row.response_body,
    succeeded: row.succeeded === 1,
  };
}

/** No live lease: never claimed, released, or expired at `now` (an ISO time, or a compiled query's value). */
const leaseFree = (now: string) => (eb: ExpressionBuilder<Database, 'webhook_events'>) =>
  eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]);

// The dispatcher's statements of every poll, compiled once (storage/compiled-query.ts); an `in` list's length is the
// shape, its ids the values `event:<i>`.
const eventIdsIn = (values: Record<string, unknown>, value: (name: string) => never) => Object.values(prefixed(values, 'event', value)) as string[];

// The excluded endpoints are the values `account:<i>` and `mode:<i>`; their number is the shape.
const dueEventsQuery = compiledOnce<Record<string, unknown>>((db, value, values) => {
  const accounts = Object.values(prefixed(values, 'account', value));
  const modes = Object.values(prefixed(values, 'mode', value));
  let query = db
    .selectFrom('webhook_events')
    .select(['event_id', 'account_id', 'mode'])
    .where('delivery_status', '=', 'pending')
    .where('next_attempt_at', '<=', value('now'))
    .where(leaseFree(value('now')));
  if (accounts.length > 0) {
    query = query.where((eb) =>
      eb.not(eb.or(accounts.map((account, i) => eb.and([eb('account_id', '=', account as string), eb('mode', '=', modes[i] as Mode)])))),
    );
  }
  return query.orderBy('next_attempt_at').orderBy('event_id').limit(value('limit'));
});

const dueEventsOfQuery = compiledOnce<{ now: string; limit: number; accountId: string; mode: Mode }>((db, value) =>
  db
    .selectFrom('webhook_events')
    .select(['event_id', 'account_id', 'mode'])
    .where('delivery_status', '=', 'pending')
    .where('next_attempt_at', '<=', value('now'))
    .where(leaseFree(value('now')))
    .where('account_id', '=', value('accountId'))
    .where('mode', '=', value('mode'))
    .orderBy('next_attempt_at')
    .orderBy('event_id')
    .limit(value('limit')),
);

const claimEventsQuery = compiledOnce<Record<string, unknown>>((db, value, values) =>
  db
    .updateTable('webhook_events')
    .set({ lease_id: value('leaseId'), locked_until: value('lockedUntil') })
    .where('event_id', 'in', eventIdsIn(values, value))
    .where('delivery_status', '=', 'pending')
    .where('next_attempt_at', '<=', value('now'))
    .where(leaseFree(value('now')))
    .returningAll(),
);

const markDueNoEndpointQuery = compiledOnce<Record<string, unknown>>((db, value, values) =>
  db
    .updateTable('webhook_events')
    .set({ delivery_status: 'no_endpoint', next_attempt_at: null, failure_reason: value('failureReason'), lease_id: null, locked_until: null, updated_at: value('now') })
    .where('event_id', 'in', eventIdsIn(values, value))
    .where('delivery_status', '=', 'pending')
    .where('next_attempt_at', '<=', value('now'))
    .where(leaseFree(value('now'))),
);

export class SqlWebhookStore implements WebhookStore {
  constructor(private readonly db: Db) {}

  async findWebhookEndpoint(scope: Scope): Promise<DeliveryEndpoint | undefined> {
    const registered = await this.db.selectFrom('webhook_endpoints').selectAll().where(inScope(scope)).executeTakeFirst();
    if (registered !== undefined) {
      const endpoint = toWebhookEndpoint(registered);
      return {
        url: endpoint.enabled ? endpoint.url : null,
        secret: endpoint.secret,
        previousSecret: endpoint.previousSecret,
        previousSecretUntil: endpoint.previousSecretUntil,
      };
    }
    const row = await this.db.selectFrom('accounts').select('settings').where('account_id', '=', scope.accountId).executeTakeFirst();
    if (row === undefined) return undefined;
    const configured = (JSON.parse(row.settings) as AccountSettings).webhook;
    return configured === undefined ? undefined : { url: configured.url, secret: configured.secret, previousSecret: null, previousSecretUntil: null };
  }

  async findEvent(scope: Scope, eventId: string): Promise<WebhookEventRecord | undefined> {
    const row = await this.db
      .selectFrom('webhook_events')
      .selectAll()
      .where(inScope(scope))
      .where('event_id', '=', eventId)
      .executeTakeFirst();
    return row && toDeliveryEvent(row);
  }

  async listEvents(scope: Scope, filter: ListEventsFilter): Promise<WebhookEventRecord[]> {
    let query = this.db
      .selectFrom('webhook_events')
      .selectAll()
      .where(inScope(scope));
    if (filter.objectId !== undefined) query = query.where('object_id', '=', filter.objectId);
    if (filter.eventType !== undefined) query = query.where('event_type', '=', filter.eventType);
    if (filter.deliveryStatus !== undefined) query = query.where('delivery_status', '=', filter.deliveryStatus);
    const after = filter.after;
    if (after !== undefined) {
      const created = iso(after.createdAt);
      query = query.where((eb) =>
        eb.or([eb('created_at', '<', created), eb.and([eb('created_at', '=', created), eb('event_id', '<', after.eventId)])]),
      );
    }
    const rows = await query.orderBy('created_at', 'desc').orderBy('event_id', 'desc').limit(filter.limit).execute();
    return rows.map(toDeliveryEvent);
  }

  async listAttempts(scope: Scope, eventId: string): Promise<WebhookAttemptRecord[]> {
    const rows = await this.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where(inScope(scope))
      .where('event_id', '=', eventId)
      .orderBy('attempt_number')
      .execute();
    return rows.map(toAttempt);
  }

  async listDueEvents(now: Date, limit: number, excluding: readonly Scope[] = []): Promise<DueEvent[]> {
    const values: Record<string, unknown> = { now: iso(now), limit };
    setPrefixed(values, 'account', excluding.map((scope) => scope.accountId));
    setPrefixed(values, 'mode', excluding.map((scope) => scope.mode));
    const rows = (await dueEventsQuery<{ event_id: string; account_id: string; mode: Mode }>(this.db, values, String(excluding.length))).rows;
    return rows.map((row) => ({ eventId: row.event_id, accountId: row.account_id, mode: row.mode }));
  }

  async listDueEventsOf(scope: Scope, now: Date, limit: number): Promise<DueEvent[]> {
    const rows = (await dueEventsOfQuery<{ event_id: string; account_id: string; mode: Mode }>(this.db, { now: iso(now), limit, accountId: scope.accountId, mode: scope.mode })).rows;
    return rows.map((row) => ({ eventId: row.event_id, accountId: row.account_id, mode: row.mode }));
  }

  async claimEvents(eventIds: readonly string[], now: Date, lockedUntil: Date, leaseId: string): Promise<WebhookEventRecord[]> {
    if (eventIds.length === 0) return [];
    // One conditional update for the whole batch (one statement, one commit): a row another instance claimed since
    // it was listed no longer matches, so each event goes to exactly one lease.
    const values = setPrefixed({ now: iso(now), leaseId, lockedUntil: iso(lockedUntil) }, 'event', eventIds);
    const rows = (await claimEventsQuery<Selectable<WebhookEventsTable>>(this.db, values, String(eventIds.length))).rows;
    const order = new Map(eventIds.map((eventId, index) => [eventId, index]));
    return rows.map(toDeliveryEvent).sort((a, b) => order.get(a.eventId)! - order.get(b.eventId)!);
  }

  async claimEvent(scope: Scope, eventId: string, now: Date, lockedUntil: Date, leaseId: string): Promise<WebhookEventRecord | undefined> {
    const row = await this.db
      .updateTable('webhook_events')
      .set({ lease_id: leaseId, locked_until: iso(lockedUntil) })
      .where(inScope(scope))
      .where('event_id', '=', eventId)
      .where(leaseFree(iso(now)))
      .returningAll()
      .executeTakeFirst();
    return row && toDeliveryEvent(row);
  }

  async insertAttempt(attempt: WebhookAttemptRecord): Promise<void> {
    await this.db
      .insertInto('webhook_attempts')
      .values({
        account_id: attempt.accountId,
        mode: attempt.mode,
        event_id: attempt.eventId,
        attempt_number: attempt.attemptNumber,
        trigger: attempt.trigger,
        url: attempt.url,
        attempted_at: iso(attempt.attemptedAt),
        status_code: attempt.statusCode,
        error: attempt.error,
        duration_ms: attempt.durationMs,
        response_body: attempt.responseBody,
        succeeded: attempt.succeeded ? 1 : 0,
      })
      .execute();
  }

  async completeAttempt(eventId: string, leaseId: string, outcome: AttemptOutcome): Promise<boolean> {
    const result = await this.db
      .updateTable('webhook_events')
      .set((eb) => ({
        delivery_status: outcome.deliveryStatus,
        attempt_count: eb('attempt_count', '+', 1),
        scheduled_attempt_count: outcome.scheduledAttemptCount,
        next_attempt_at: outcome.nextAttemptAt === null ? null : iso(outcome.nextAttemptAt),
        last_attempt_at: iso(outcome.lastAttemptAt),
        failure_reason: outcome.failureReason,
        lease_id: null,
        locked_until: null,
        updated_at: iso(outcome.updatedAt),
      }))
      .where('event_id', '=', eventId)
      .where('lease_id', '=', leaseId)
      .executeTakeFirst();
    return (result.numUpdatedRows ?? 0n) > 0n;
  }

  async markDueNoEndpoint(eventIds: readonly string[], now: Date, failureReason: string): Promise<number> {
    if (eventIds.length === 0) return 0;
    const values = setPrefixed({ now: iso(now), failureReason }, 'event', eventIds);
    const result = await markDueNoEndpointQuery(this.db, values, String(eventIds.length));
    return Number(result.numAffectedRows ?? 0n);
  }

  async releaseEvent(eventId: string, leaseId: string): Promise<void> {
    await this.db
      .updateTable('webhook_events')
      .set({ lease_id: null, locked_until: null })
      .where('event_id', '=', eventId)
      .where('lease_id', '=', leaseId)
      .execute();
  }
}

/** An event's own columns, without its payload. */
function eventColumns(row: Selectable<WebhookEventsTable>): Omit<OutboxEventRecord, 'payload'> {
  return {
    eventId: row.event_id,
    accountId: row.account_id,
    mode: row.mode,
    eventType: row.event_type,
    objectType: row.object_type as OutboxEventRecord['objectType'],
    objectId: row.object_id,
    objectVersion: Number(row.object_version),
    createdAt: new Date(row.created_at),
  };
}

export function toEvent(row: Selectable<WebhookEventsTable>): OutboxEventRecord {
  return { payload: JSON.parse(row.payload) as JsonObject, ...eventColumns(row) };
}

/**
 * The row of a new outbox event but its delivery status, which its insert decides (eventInsertValues):
 * `next_attempt_at` is the first attempt's time when it has an endpoint.
 */
export function outboxEventRow(event: OutboxEventRecord) {
  const created = iso(event.createdAt);
  return {
    event_id: event.eventId,
    account_id: event.accountId,
    mode: event.mode,
    event_type: event.eventType,
    object_type: event.objectType,
    object_id: event.objectId,
    object_version: event.objectVersion,
    payload: JSON.stringify(event.payload),
    attempt_count: 0,
    next_attempt_at: created,
    created_at: created,
    updated_at: created,
  };
}

/**
 * Whether a new event of `accountId` and `mode` has anywhere to go, decided by its insert: `pending` when the account
 * and mode have a usable endpoint as the dispatcher reads it (findWebhookEndpoint, then usableEndpoint: a registered
 * endpoint that is enabled and has a URL, or, with none registered, the account settings' URL), `no_endpoint`
 * otherwise. The dispatcher made the same decision at its next poll, and under load spent about 13 us of the
 * main thread per payment listing and marking such events in batches of 20 (docs/benchmarks-reading.md,
 * twelfth session); an event without an endpoint is never replayed when one appears (docs/webhooks.md) either way.
 */
function initialDeliveryStatus(db: Db, accountId: unknown, mode: unknown): RawBuilder<string> {
  const settingsUrl = isPostgres(db) ? sql`settings::jsonb #>> '{webhook,url}'` : sql`json_extract(settings, '$.webhook.url')`;
  return sql<string>`coalesce(
    (select case when enabled <> 0 and url <> '' then 'pending' else 'no_endpoint' end from webhook_endpoints
      where account_id = ${accountId} and mode = ${mode}),
    (select case when ${settingsUrl} <> '' then 'pending' else 'no_endpoint' end from accounts where account_id = ${accountId}),
    'no_endpoint')`;
}

/**
 * The values of a new event's insert: outboxEventRow's columns as `columns` holds them (placeholders of a compiled
 * query), with the delivery status and the first attempt's time decided by the insert (initialDeliveryStatus).
 */
export function eventInsertValues(db: Db, columns: Record<string, unknown>): Record<string, unknown> {
  const status = initialDeliveryStatus(db, columns['account_id'], columns['mode']);
  return { ...columns, delivery_status: status, next_attempt_at: sql`case when ${status} = 'pending' then ${columns['next_attempt_at']} end` };
}

/** The insert of an outbox event, compiled once (storage/compiled-query.ts): each column a value of its own name. */
const insertEventQuery = compiledOnce<ReturnType<typeof outboxEventRow>>((db, value, values) =>
  db
    .insertInto('webhook_events')
    .values(eventInsertValues(db, Object.fromEntries(Object.keys(values).map((column) => [column, value(column as keyof typeof values)]))) as unknown as Insertable<WebhookEventsTable>)
    .onConflict((oc) => oc.doNothing()),
);

class SqlOutboxStore implements OutboxStore {
  constructor(private readonly db: Db) {}

  async insertEvent(event: OutboxEventRecord): Promise<InsertResult> {
    const result = await insertEventQuery(this.db, outboxEventRow(event));
    return insertResult({ numInsertedOrUpdatedRows: result.numAffectedRows });
  }

  async listEventsForObject(scope: Scope, objectId: string): Promise<OutboxEventRecord[]> {
    const rows = await this.db
      .selectFrom('webhook_events')
      .selectAll()
      .where(inScope(scope))
      .where('object_id', '=', objectId)
      .orderBy('created_at')
      .orderBy('event_id')
      .execute();
    return rows.map(toEvent);
  }
}

/** The events stores on one connection or transaction. */
export function eventsSqlStores(db: Db): EventsStores {
  return { outbox: new SqlOutboxStore(db), webhooks: new SqlWebhookStore(db) };
}
