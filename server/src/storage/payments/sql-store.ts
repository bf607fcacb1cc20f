import { type Kysely, type QueryCreator, type Selectable, type SelectQueryBuilder, sql, type SqlBool } from 'kysely';
import type { Database } from '../schema';
import { RAIL_CHANGE_MARKED } from '../migrations/0034-recovery-keyset';
import { committedTransaction } from '../database';
import type { FutureUsage, JsonObject, PaymentMethodData } from '../../../../protocol/api/payments';
import type { PaymentMethod, PaymentMethodType } from '../../../../protocol/api/enums';
import type { Currency } from '../../../../protocol/currency';
import type { NextAction, PaymentStatus } from '../../../../protocol/payments';
import type { InsertResult, Scope } from '../../kernel/store-types';
import { patchedPayment, type CaptureSettlement, type PaymentAttemptPatch, type PaymentAttemptRecord, type PaymentCaptureRecord, type PaymentListQuery, type PaymentPatch, type PaymentRecord, type WaitingPaymentCursor, type CaptureCreatedCursor, type PaymentUpdatedCursor } from './records';
import type { PaymentAttemptsTable, PaymentCapturesTable, PaymentsTable } from './schema';
import type { ClaimedPayment, NewPaymentAttempt, PaymentAttemptStore, PaymentCaptureStore, PaymentListStore, PaymentsStores, PaymentStore } from './store';
import { type Db, inScope, insertResult, inTransaction, isPostgres, iso, jsonOrNull, parseJson } from '../sql-rows';
import { compiledOnce, prefixed, setPrefixed } from '../compiled-query';
import { ASYNCHRONOUS_COMMIT_COLUMN, flushWal } from '../write-without-sync-wait';
import { eventInsertValues, eventsSqlStores, outboxEventRow } from '../events/sql-store';
import type { OutboxEventRecord } from '../events/records';
import type { WebhookEventsTable } from '../events/schema';

// The statements of every payment, compiled once per shape (storage/compiled-query.ts). Values named `set:<column>`
// are the columns an update sets, `status:<i>` the statuses it expects; the shape is the list of names.
type Values = Record<string, unknown>;
const shapeOf = (values: Values) => Object.keys(values).join(',');

/** The placeholders of the `status:<i>` values. */
const expectedStatuses = (values: Values, value: (name: string) => never): PaymentStatus[] => Object.values(prefixed(values, 'status', value)) as PaymentStatus[];

/** The update of one payment's `set:` columns, its version counted up (the caller adds its condition). */
function updatePayment(db: QueryCreator<Database>, value: (name: string) => never, values: Values) {
  return db
    .updateTable('payments')
    .set({ ...(prefixed(values, 'set', value) as Partial<PaymentsTable>), version: sql<number>`version + 1` })
    .where(inScope({ accountId: value('accountId'), mode: value('mode') }))
    .where('payment_id', '=', value('paymentId'));
}

/** The update of a payment's newest attempt with the values named `<prefix>:<column>`. */
function updateLatestAttempt(db: QueryCreator<Database>, value: (name: string) => never, values: Values, prefix: string) {
  const scope = { accountId: value('accountId'), mode: value('mode') };
  return db
    .updateTable('payment_attempts')
    .set(prefixed(values, prefix, value) as Partial<PaymentAttemptsTable>)
    .where(inScope(scope))
    .where('attempt_id', '=', (eb) =>
      eb.selectFrom('payment_attempts').select('attempt_id').where(inScope(scope)).where('payment_id', '=', value('paymentId')).orderBy('attempt_number', 'desc').limit(1),
    );
}

/** The columns of a payment's next attempt: attempt_number counts its attempts so far, plus one. */
function nextAttemptColumns(db: Db, value: (name: string) => never) {
  const scope = { accountId: value('accountId'), mode: value('mode') };
  const nextNumber = db
    .selectFrom('payment_attempts')
    .select(sql<number>`count(*) + 1`.as('next_number'))
    .where(inScope(scope))
    .where('payment_id', '=', value('paymentId'));
  return {
    account_id: value('accountId'),
    mode: value('mode'),
    attempt_id: sql<string>`cast(${value('paymentId')} as text) || '_' || cast((${nextNumber}) as text)`,
    payment_id: value('paymentId'),
    attempt_number: nextNumber,
    status: value('status'),
    amount: value('amount'),
    currency: value('currency'),
    payment_method: value('paymentMethod'),
    payment_method_type: value('paymentMethodType'),
    capture_method: value('captureMethod'),
    connector: value('connector'),
    reference_id: value('referenceId'),
    error_code: value('errorCode'),
    error_message: value('errorMessage'),
    error_reason: value('errorReason'),
    poll_id: value('pollId'),
    cancellation_reason: value('cancellationReason'),
    created_at: value('createdAt'),
    updated_at: value('updatedAt'),
  };
}

const insertNextAttemptQuery = compiledOnce<Values>((db, value) =>
  db.insertInto('payment_attempts').values(nextAttemptColumns(db, value)).returningAll(),
);

/** The insert of a claim's attempt, returning only what the statement decides: the rest is the claim's values. */
const insertOpenedAttemptQuery = compiledOnce<Values>((db, value) =>
  db.insertInto('payment_attempts').values(nextAttemptColumns(db, value)).returning(['attempt_id', 'attempt_number']),
);

/**
 * PostgreSQL: the claim's conditional update and the insert of the attempt it opens, in one statement (one round
 * trip, atomic without BEGIN and COMMIT). The attempt is inserted only for the row the update claimed, and copies
 * the claimed row's amount, currency, payment method and type, capture method and connector.
 */
function claimPaymentAndOpenAttempt(db: Db, value: (name: string) => never, values: Values) {
  const attempt: Record<string, unknown> = nextAttemptColumns(db, value);
  for (const column of COPIED_FROM_PAYMENT) attempt[column] = sql.ref(`claimed.${column}`);
  return db
    .with('claimed', (qb) => updatePayment(qb, value, values).where('status', 'in', expectedStatuses(values, value)).returningAll())
    .with('opened', (qb) =>
      qb
        .insertInto('payment_attempts')
        .columns(Object.keys(attempt) as (keyof PaymentAttemptsTable)[])
        .expression((eb) => eb.selectFrom('claimed').select(Object.entries(attempt).map(([column, expression]) => sql`${expression}`.as(column))))
        .returning(['attempt_id', 'attempt_number']),
    )
    .selectFrom(['claimed', 'opened'])
    .selectAll('claimed')
    .select(['opened.attempt_id as opened_attempt_id', 'opened.attempt_number as opened_attempt_number']);
}
const claimPaymentAndOpenAttemptQuery = compiledOnce<Values>(claimPaymentAndOpenAttempt);
/** The same claim, committed without waiting for its WAL flush: the row it returns turns synchronous_commit off for its own transaction. */
const claimPaymentAndOpenAttemptFlushLaterQuery = compiledOnce<Values>((db, value, values) =>
  claimPaymentAndOpenAttempt(db, value, values).select(ASYNCHRONOUS_COMMIT_COLUMN),
);

/**
 * PostgreSQL: a payment's change (conditional on its version), the patch of its newest attempt and the insert of
 * the event that announces it, in one statement. The attempt and the event are written only if the payment was.
 * Values: `set:` the payment's columns, `attempt:` the attempt's, `event:` the event row's (absent: no event).
 */
const updatePaymentIfVersionWithEventQuery = compiledOnce<Values>((db, value, values) => {
  const eventColumns = prefixed(values, 'event', value);
  let query = db.with('changed', (qb) => updatePayment(qb, value, values).where('version', '=', value('version')).returningAll());
  if (Object.keys(values).some((name) => name.startsWith('attempt:'))) {
    query = query.with('attempt_changed', (qb) =>
      // The helper knows the schema's tables, not this statement's `changed`, hence the cast and the raw exists.
      updateLatestAttempt(qb as unknown as QueryCreator<Database>, value, values, 'attempt')
        .where(sql<SqlBool>`exists (select 1 from changed)`)
        .returning('attempt_id'),
    ) as unknown as typeof query;
  }
  if (Object.keys(eventColumns).length > 0) {
    const event = eventInsertValues(db, eventColumns);
    query = query.with('event_inserted', (qb) =>
      qb
        .insertInto('webhook_events')
        .columns(Object.keys(event) as (keyof WebhookEventsTable)[])
        .expression((eb) => eb.selectFrom('changed').select(Object.entries(event).map(([column, expression]) => sql`${expression}`.as(column))))
        .onConflict((oc) => oc.doNothing())
        .returning('event_id'),
    ) as unknown as typeof query;
  }
  return query.selectFrom('changed').selectAll('changed');
});

/** What an attempt opened by a claim holds besides what it copies from the payment. */
const OPENED_ATTEMPT = {
  status: 'pending',
  referenceId: null,
  errorCode: null,
  errorMessage: null,
  errorReason: null,
  pollId: null,
  cancellationReason: null,
} as const;

/**
 * The attempt a claim opens on the payment it claimed: pending, with the payment's amount and method. OPENED_ATTEMPT
 * is spread last (docs/architecture.md, "Objects on hot paths").
 */
function attemptOpenedFor(payment: PaymentRecord, now: Date): NewPaymentAttempt {
  return {
    accountId: payment.accountId,
    mode: payment.mode,
    paymentId: payment.paymentId,
    amount: payment.amount,
    currency: payment.currency,
    paymentMethod: payment.paymentMethod,
    paymentMethodType: payment.paymentMethodType,
    captureMethod: payment.captureMethod,
    connector: payment.connector,
    createdAt: now,
    updatedAt: now,
    ...OPENED_ATTEMPT,
  };
}

/** The attempt's columns that copy the payment it belongs to. */
const COPIED_FROM_PAYMENT = ['amount', 'currency', 'payment_method', 'payment_method_type', 'capture_method', 'connector'] as const;

const updateLatestAttemptQuery = compiledOnce<Values>((db, value, values) => updateLatestAttempt(db, value, values, 'set').returningAll());

/** updateLatestAttempt for a caller that does not use the updated attempt (the answer's change): no row read back. */
const patchLatestAttemptQuery = compiledOnce<Values>((db, value, values) => updateLatestAttempt(db, value, values, 'set'));

const findPaymentQuery = compiledOnce<{ accountId: string; mode: string; paymentId: string }>((db, value) =>
  db
    .selectFrom('payments')
    .selectAll()
    .where(inScope({ accountId: value('accountId'), mode: value('mode') }))
    .where('payment_id', '=', value('paymentId')),
);

const updatePaymentIfStatusQuery = compiledOnce<Values>((db, value, values) =>
  updatePayment(db, value, values).where('status', 'in', expectedStatuses(values, value)).returningAll(),
);

const updatePaymentIfVersionQuery = compiledOnce<Values>((db, value, values) =>
  updatePayment(db, value, values).where('version', '=', value('version')).returningAll(),
);

// SQLite's claim and answer of a confirm, which know the row they change: no row read back (patchedPayment, since
// every write of a payment counts its version up: updatePayment, and the refund reservations; reading back 43 columns
// into an object took about 12 us, three times per payment).
const claimPaymentQuery = compiledOnce<Values>((db, value, values) =>
  updatePayment(db, value, values).where('status', 'in', expectedStatuses(values, value)).returning('version'),
);
const patchPaymentIfVersionQuery = compiledOnce<Values>((db, value, values) =>
  updatePayment(db, value, values).where('version', '=', value('version')),
);

function attemptPatchColumns(patch: PaymentAttemptPatch): Partial<PaymentAttemptsTable> {
  const columns: Partial<PaymentAttemptsTable> = { updated_at: iso(patch.updatedAt) };
  if (patch.status !== undefined) columns.status = patch.status;
  if (patch.referenceId !== undefined) columns.reference_id = patch.referenceId;
  if (patch.errorCode !== undefined) columns.error_code = patch.errorCode;
  if (patch.errorMessage !== undefined) columns.error_message = patch.errorMessage;
  if (patch.errorReason !== undefined) columns.error_reason = patch.errorReason;
  if (patch.pollId !== undefined) columns.poll_id = patch.pollId;
  if (patch.cancellationReason !== undefined) columns.cancellation_reason = patch.cancellationReason;
  return columns;
}

/** The values of insertNextAttemptQuery for `attempt`. */
function nextAttemptValues(attempt: NewPaymentAttempt): Values {
  return {
    accountId: attempt.accountId,
    mode: attempt.mode,
    paymentId: attempt.paymentId,
    status: attempt.status,
    amount: attempt.amount,
    currency: attempt.currency,
    paymentMethod: attempt.paymentMethod,
    paymentMethodType: attempt.paymentMethodType,
    captureMethod: attempt.captureMethod,
    connector: attempt.connector,
    referenceId: attempt.referenceId,
    errorCode: attempt.errorCode,
    errorMessage: attempt.errorMessage,
    errorReason: attempt.errorReason,
    pollId: attempt.pollId,
    cancellationReason: attempt.cancellationReason,
    createdAt: iso(attempt.createdAt),
    updatedAt: iso(attempt.updatedAt),
  };
}

function toAttempt(row: Selectable<PaymentAttemptsTable>): PaymentAttemptRecord {
  return {
    accountId: row.account_id,
    mode: row.mode,
    attemptId: row.attempt_id,
    paymentId: row.payment_id,
    attemptNumber: row.attempt_number,
    status: row.status,
    amount: row.amount,
    currency: row.currency as Currency,
    paymentMethod: row.payment_method as PaymentMethod | null,
    paymentMethodType: row.payment_method_type as PaymentMethodType | null,
    captureMethod: row.capture_method,
    connector: row.connector,
    referenceId: row.reference_id,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    errorReason: row.error_reason,
    pollId: row.poll_id,
    cancellationReason: row.cancellation_reason,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export class SqlPaymentAttemptStore implements PaymentAttemptStore {
  constructor(private readonly db: Db) {}

  async insertNextAttempt(attempt: NewPaymentAttempt): Promise<PaymentAttemptRecord> {
    // Counted in the insert itself (one round trip on PostgreSQL); the caller's claim on the payment row keeps two
    // confirms of one payment from counting at once.
    const [row] = (await insertNextAttemptQuery<Selectable<PaymentAttemptsTable>>(this.db, nextAttemptValues(attempt))).rows;
    if (row === undefined) throw new Error('the attempt insert returned no row');
    return toAttempt(row);
  }

  /** insertNextAttempt with the attempt as inserted: its values, and the id and number the insert counted. */
  async insertOpenedAttempt(attempt: NewPaymentAttempt): Promise<PaymentAttemptRecord> {
    type Row = Pick<PaymentAttemptsTable, 'attempt_id' | 'attempt_number'>;
    const [row] = (await insertOpenedAttemptQuery<Row>(this.db, nextAttemptValues(attempt))).rows;
    if (row === undefined) throw new Error('the attempt insert returned no row');
    // The keys first, then the spread (docs/architecture.md, "Objects on hot paths").
    return { attemptId: row.attempt_id, attemptNumber: row.attempt_number, ...attempt };
  }

  async updateLatestAttempt(scope: Scope, paymentId: string, patch: PaymentAttemptPatch): Promise<PaymentAttemptRecord | undefined> {
    const columns = attemptPatchColumns(patch);
    // One statement (one round trip on PostgreSQL): the newest attempt is found by the update itself.
    const values = setPrefixed({ accountId: scope.accountId, mode: scope.mode, paymentId }, 'set', columns);
    const [row] = (await updateLatestAttemptQuery<Selectable<PaymentAttemptsTable>>(this.db, values, shapeOf(values))).rows;
    return row && toAttempt(row);
  }

  /** updateLatestAttempt without reading the attempt back. */
  async patchLatestAttempt(scope: Scope, paymentId: string, patch: PaymentAttemptPatch): Promise<void> {
    const values = setPrefixed({ accountId: scope.accountId, mode: scope.mode, paymentId }, 'set', attemptPatchColumns(patch));
    await patchLatestAttemptQuery(this.db, values, shapeOf(values));
  }

  async listAttempts(scope: Scope, paymentId: string): Promise<PaymentAttemptRecord[]> {
    const rows = await this.db
      .selectFrom('payment_attempts')
      .selectAll()
      .where(inScope(scope))
      .where('payment_id', '=', paymentId)
      .orderBy('attempt_number')
      .execute();
    return rows.map(toAttempt);
  }

  async findAttemptByPollId(scope: Scope, pollId: string): Promise<PaymentAttemptRecord | undefined> {
    const row = await this.db
      .selectFrom('payment_attempts')
      .selectAll()
      .where(inScope(scope))
      .where('poll_id', '=', pollId)
      .orderBy('attempt_number', 'desc')
      .executeTakeFirst();
    return row && toAttempt(row);
  }
}

export class SqlPaymentListStore implements PaymentListStore {
  constructor(private readonly db: Db) {}

  async listWaitingPayments(after: WaitingPaymentCursor | null, limit: number): Promise<PaymentRecord[]> {
    return pageByUpdated(this.db.selectFrom('payments').selectAll().where('status', '=', 'requires_customer_action').where('rail', 'is not', null), after, limit);
  }

  async listPaymentsProcessingBefore(before: Date, limit: number, after?: PaymentUpdatedCursor): Promise<PaymentRecord[]> {
    return pageByUpdated(this.db.selectFrom('payments').selectAll().where('status', '=', 'processing').where('updated_at', '<', before.toISOString()), after, limit);
  }

  async listPaymentsHoldChangingBefore(before: Date, limit: number, after?: PaymentUpdatedCursor): Promise<PaymentRecord[]> {
    // The partial index payments_hold_changing_keyset_idx (0034) holds exactly these rows.
    const select = this.db
      .selectFrom('payments')
      .selectAll()
      .where('status', '=', 'requires_capture')
      .where('amount_capturable', '=', 0)
      .where('updated_at', '<', before.toISOString());
    return pageByUpdated(select, after, limit);
  }

  async listPaymentsRailChangingBefore(before: Date, limit: number, after?: PaymentUpdatedCursor): Promise<PaymentRecord[]> {
    // The predicate of the partial index payments_rail_change_updated_idx (0034), which holds these rows: its own text.
    return pageByUpdated(this.db.selectFrom('payments').selectAll().where(sql.raw<SqlBool>(`(${RAIL_CHANGE_MARKED})`)).where('updated_at', '<', before.toISOString()), after, limit);
  }

  async listLapsedAuthorizations(statuses: readonly PaymentStatus[], at: Date, limit: number): Promise<PaymentRecord[]> {
    if (statuses.length === 0) return [];
    const rows = await this.db
      .selectFrom('payments')
      .selectAll()
      .where('status', 'in', [...statuses])
      .where('authorization_expires_at', '<=', at.toISOString())
      .orderBy('authorization_expires_at')
      .limit(limit)
      .execute();
    return rows.map(toPayment);
  }

  async listPayments(scope: Scope, query: PaymentListQuery): Promise<PaymentRecord[]> {
    // Timestamps are fixed-width ISO 8601 UTC text, so text comparison is instant comparison on both engines.
    let select = this.db
      .selectFrom('payments')
      .selectAll()
      .where(inScope(scope));
    if (query.customerId !== undefined) select = select.where('customer_id', '=', query.customerId);
    const { eq, lt, gt, lte, gte } = query.created;
    if (eq !== undefined) select = select.where('created_at', '=', eq.toISOString());
    if (lt !== undefined) select = select.where('created_at', '<', lt.toISOString());
    if (gt !== undefined) select = select.where('created_at', '>', gt.toISOString());
    if (lte !== undefined) select = select.where('created_at', '<=', lte.toISOString());
    if (gte !== undefined) select = select.where('created_at', '>=', gte.toISOString());

    if (query.endingBefore !== undefined) {
      // The page just before the cursor: the `limit` oldest payments newer than it, then newest first.
      const cursor = { created: query.endingBefore.createdAt.toISOString(), id: query.endingBefore.paymentId };
      const rows = await select
        .where((eb) =>
          eb.or([
            eb('created_at', '>', cursor.created),
            eb.and([eb('created_at', '=', cursor.created), eb('payment_id', '>', cursor.id)]),
          ]),
        )
        .orderBy('created_at', 'asc')
        .orderBy('payment_id', 'asc')
        .limit(query.limit)
        .execute();
      return rows.reverse().map(toPayment);
    }
    if (query.startingAfter !== undefined) {
      const cursor = { created: query.startingAfter.createdAt.toISOString(), id: query.startingAfter.paymentId };
      select = select.where((eb) =>
        eb.or([
          eb('created_at', '<', cursor.created),
          eb.and([eb('created_at', '=', cursor.created), eb('payment_id', '<', cursor.id)]),
        ]),
      );
    }
    const rows = await select.orderBy('created_at', 'desc').orderBy('payment_id', 'desc').limit(query.limit).execute();
    return rows.map(toPayment);
  }
}

export function toPayment(row: Selectable<PaymentsTable>): PaymentRecord {
  return {
    accountId: row.account_id,
    mode: row.mode,
    paymentId: row.payment_id,
    profileId: row.profile_id,
    status: row.status,
    amount: row.amount,
    currency: row.currency as Currency,
    amountCapturable: row.amount_capturable,
    amountReceived: row.amount_received,
    amountToCapture: row.amount_to_capture,
    shippingCost: row.shipping_cost,
    orderTaxAmount: row.order_tax_amount,
    captureMethod: row.capture_method,
    customerId: row.customer_id,
    description: row.description,
    returnUrl: row.return_url,
    setupFutureUsage: row.setup_future_usage as FutureUsage | null,
    paymentMethod: row.payment_method as PaymentMethod | null,
    paymentMethodType: row.payment_method_type as PaymentMethodType | null,
    paymentMethodData: parseJson<PaymentMethodData>(row.payment_method_data),
    metadata: parseJson<JsonObject>(row.metadata),
    merchantOrderReferenceId: row.merchant_order_reference_id,
    clientSecret: row.client_secret,
    clientSecretExpiresAt: new Date(row.client_secret_expires_at),
    nextAction: parseJson<NextAction>(row.next_action),
    errorCode: row.error_code,
    errorMessage: row.error_message,
    errorReason: row.error_reason,
    rail: row.rail,
    connector: row.connector,
    railReference: row.rail_reference,
    railState: parseJson<JsonObject>(row.rail_state),
    requestFingerprint: row.request_fingerprint,
    requestFields: JSON.parse(row.request_fields) as JsonObject,
    cancellationReason: row.cancellation_reason ?? null,
    paymentMethodId: row.payment_method_id ?? null,
    mandateId: row.mandate_id ?? null,
    authorizedAt: row.authorized_at == null ? null : new Date(row.authorized_at),
    authorizationExpiresAt: row.authorization_expires_at == null ? null : new Date(row.authorization_expires_at),
    version: row.version,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function fromPayment(payment: PaymentRecord): PaymentsTable {
  return {
    account_id: payment.accountId,
    mode: payment.mode,
    payment_id: payment.paymentId,
    profile_id: payment.profileId,
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    amount_capturable: payment.amountCapturable,
    amount_received: payment.amountReceived,
    amount_to_capture: payment.amountToCapture,
    shipping_cost: payment.shippingCost,
    order_tax_amount: payment.orderTaxAmount,
    capture_method: payment.captureMethod,
    customer_id: payment.customerId,
    description: payment.description,
    return_url: payment.returnUrl,
    setup_future_usage: payment.setupFutureUsage,
    payment_method: payment.paymentMethod,
    payment_method_type: payment.paymentMethodType,
    payment_method_data: jsonOrNull(payment.paymentMethodData),
    metadata: jsonOrNull(payment.metadata),
    merchant_order_reference_id: payment.merchantOrderReferenceId,
    client_secret: payment.clientSecret,
    client_secret_expires_at: iso(payment.clientSecretExpiresAt),
    next_action: jsonOrNull(payment.nextAction),
    error_code: payment.errorCode,
    error_message: payment.errorMessage,
    error_reason: payment.errorReason,
    rail: payment.rail,
    connector: payment.connector,
    rail_reference: payment.railReference,
    rail_state: jsonOrNull(payment.railState),
    request_fingerprint: payment.requestFingerprint,
    request_fields: JSON.stringify(payment.requestFields),
    cancellation_reason: payment.cancellationReason ?? null,
    payment_method_id: payment.paymentMethodId ?? null,
    mandate_id: payment.mandateId ?? null,
    authorized_at: payment.authorizedAt == null ? null : iso(payment.authorizedAt),
    authorization_expires_at: payment.authorizationExpiresAt == null ? null : iso(payment.authorizationExpiresAt),
    version: payment.version,
    created_at: iso(payment.createdAt),
    updated_at: iso(payment.updatedAt),
  };
}

/** A new payment's row, every column a value of its own name (fromPayment always sets each one). */
const insertPaymentQuery = compiledOnce<Values>((db, value, values) =>
  db
    .insertInto('payments')
    .values(Object.fromEntries(Object.keys(values).map((column) => [column, value(column)])) as unknown as PaymentsTable)
    .onConflict((oc) => oc.doNothing()),
);

function patchColumns(patch: PaymentPatch): Partial<PaymentsTable> {
  const columns: Partial<PaymentsTable> = { updated_at: iso(patch.updatedAt) };
  if (patch.status !== undefined) columns.status = patch.status;
  if (patch.amountCapturable !== undefined) columns.amount_capturable = patch.amountCapturable;
  if (patch.amountReceived !== undefined) columns.amount_received = patch.amountReceived;
  if (patch.returnUrl !== undefined) columns.return_url = patch.returnUrl;
  if (patch.setupFutureUsage !== undefined) columns.setup_future_usage = patch.setupFutureUsage;
  if (patch.paymentMethod !== undefined) columns.payment_method = patch.paymentMethod;
  if (patch.paymentMethodType !== undefined) columns.payment_method_type = patch.paymentMethodType;
  if (patch.paymentMethodData !== undefined) columns.payment_method_data = jsonOrNull(patch.paymentMethodData);
  if (patch.nextAction !== undefined) columns.next_action = jsonOrNull(patch.nextAction);
  if (patch.errorCode !== undefined) columns.error_code = patch.errorCode;
  if (patch.errorMessage !== undefined) columns.error_message = patch.errorMessage;
  if (patch.errorReason !== undefined) columns.error_reason = patch.errorReason;
  if (patch.rail !== undefined) columns.rail = patch.rail;
  if (patch.connector !== undefined) columns.connector = patch.connector;
  if (patch.railReference !== undefined) columns.rail_reference = patch.railReference;
  if (patch.railState !== undefined) columns.rail_state = jsonOrNull(patch.railState);
  if (patch.paymentMethodId !== undefined) columns.payment_method_id = patch.paymentMethodId;
  if (patch.mandateId !== undefined) columns.mandate_id = patch.mandateId;
  if (patch.amount !== undefined) columns.amount = patch.amount;
  if (patch.currency !== undefined) columns.currency = patch.currency;
  if (patch.amountToCapture !== undefined) columns.amount_to_capture = patch.amountToCapture;
  if (patch.shippingCost !== undefined) columns.shipping_cost = patch.shippingCost;
  if (patch.orderTaxAmount !== undefined) columns.order_tax_amount = patch.orderTaxAmount;
  if (patch.captureMethod !== undefined) columns.capture_method = patch.captureMethod;
  if (patch.customerId !== undefined) columns.customer_id = patch.customerId;
  if (patch.description !== undefined) columns.description = patch.description;
  if (patch.metadata !== undefined) columns.metadata = jsonOrNull(patch.metadata);
  if (patch.merchantOrderReferenceId !== undefined) columns.merchant_order_reference_id = patch.merchantOrderReferenceId;
  if (patch.clientSecretExpiresAt !== undefined) columns.client_secret_expires_at = iso(patch.clientSecretExpiresAt);
  if (patch.requestFields !== undefined) columns.request_fields = JSON.stringify(patch.requestFields);
  if (patch.cancellationReason !== undefined) columns.cancellation_reason = patch.cancellationReason;
  if (patch.authorizedAt !== undefined) columns.authorized_at = patch.authorizedAt === null ? null : iso(patch.authorizedAt);
  if (patch.authorizationExpiresAt !== undefined) {
    columns.authorization_expires_at = patch.authorizationExpiresAt === null ? null : iso(patch.authorizationExpiresAt);
  }
  return columns;
}

class SqlPaymentStore implements PaymentStore {
  constructor(private readonly db: Db) {}

  async insertPayment(payment: PaymentRecord): Promise<InsertResult> {
    const result = await insertPaymentQuery(this.db, fromPayment(payment) as unknown as Values);
    return insertResult({ numInsertedOrUpdatedRows: result.numAffectedRows });
  }

  async findPayment(scope: Scope, paymentId: string): Promise<PaymentRecord | undefined> {
    const [row] = (await findPaymentQuery<Selectable<PaymentsTable>>(this.db, { accountId: scope.accountId, mode: scope.mode, paymentId })).rows;
    return row && toPayment(row);
  }

  async updatePaymentIfStatus(
    scope: Scope,
    paymentId: string,
    expectedStatuses: readonly PaymentStatus[],
    patch: PaymentPatch,
  ): Promise<PaymentRecord | undefined> {
    if (expectedStatuses.length === 0) return undefined;
    const values = setPrefixed(setPrefixed({ accountId: scope.accountId, mode: scope.mode, paymentId }, 'set', patchColumns(patch)), 'status', expectedStatuses);
    const [row] = (await updatePaymentIfStatusQuery<Selectable<PaymentsTable>>(this.db, values, shapeOf(values))).rows;
    return row && toPayment(row);
  }

  async claimPaymentAndOpenAttempt(
    payment: PaymentRecord,
    expectedStatuses: readonly PaymentStatus[],
    patch: PaymentPatch,
    now: Date,
    options: { flushLater?: boolean } = {},
  ): Promise<ClaimedPayment | undefined> {
    if (expectedStatuses.length === 0) return undefined;
    const key: Values = { accountId: payment.accountId, mode: payment.mode, paymentId: payment.paymentId };
    const values = setPrefixed(setPrefixed(key, 'set', patchColumns(patch)), 'status', expectedStatuses);
    if (isPostgres(this.db)) {
      Object.assign(values, OPENED_ATTEMPT, { createdAt: iso(now), updatedAt: iso(now) });
      type Row = Selectable<PaymentsTable> & { opened_attempt_id: string; opened_attempt_number: number };
      // Inside a caller's transaction the setting would weaken that whole transaction's commit.
      const flushLater = options.flushLater === true && !this.db.isTransaction;
      const query = flushLater ? claimPaymentAndOpenAttemptFlushLaterQuery : claimPaymentAndOpenAttemptQuery;
      const [row] = (await query<Row>(this.db, values, shapeOf(values))).rows;
      if (row === undefined) return undefined;
      const claimed = toPayment(row);
      const db = this.db;
      return {
        payment: claimed,
        attempt: { attemptId: row.opened_attempt_id, attemptNumber: row.opened_attempt_number, ...attemptOpenedFor(claimed, now) },
        // A later version of the payment was committed after the claim, synchronously (every write of a payment but
        // this claim is, and a claimed payment is not claimed again), and is visible only once flushed: PostgreSQL
        // flushes its WAL in order, so that flush kept the claim too.
        durable: flushLater ? (since) => (since !== undefined && since.version > claimed.version ? Promise.resolve() : flushWal(db)) : () => Promise.resolve(),
      };
    }
    // SQLite: the two statements in one transaction (the caller's, when it runs in one).
    const claim = async (db: Db): Promise<Omit<ClaimedPayment, 'durable'> | undefined> => {
      const [row] = (await claimPaymentQuery<{ version: number }>(db, values, shapeOf(values))).rows;
      if (row === undefined) return undefined;
      // Another write between the caller's read and this claim (one that left the status alone): read it back.
      const claimed = row.version === payment.version + 1 ? patchedPayment(payment, patch) : await new SqlPaymentStore(db).findPayment(payment, payment.paymentId);
      if (claimed === undefined) throw new Error('the claimed payment was not found in its own transaction');
      return { payment: claimed, attempt: await new SqlPaymentAttemptStore(db).insertOpenedAttempt(attemptOpenedFor(claimed, now)) };
    };
    if (this.db.isTransaction) {
      const claimed = await claim(this.db);
      return claimed && { payment: claimed.payment, attempt: claimed.attempt, durable: () => Promise.resolve() };
    }
    const { result, durable } = await committedTransaction(this.db as Kysely<Database>, claim);
    return result && { payment: result.payment, attempt: result.attempt, durable: () => durable };
  }

  async updatePaymentIfVersionWithEvent(
    payment: PaymentRecord,
    patch: PaymentPatch,
    attemptPatch: PaymentAttemptPatch | undefined,
    event: OutboxEventRecord | undefined,
  ): Promise<PaymentRecord | undefined> {
    const values: Values = { accountId: payment.accountId, mode: payment.mode, paymentId: payment.paymentId, version: payment.version };
    setPrefixed(values, 'set', patchColumns(patch));
    if (isPostgres(this.db)) {
      if (attemptPatch !== undefined) setPrefixed(values, 'attempt', attemptPatchColumns(attemptPatch));
      if (event !== undefined) setPrefixed(values, 'event', outboxEventRow(event));
      const [row] = (await updatePaymentIfVersionWithEventQuery<Selectable<PaymentsTable>>(this.db, values, shapeOf(values))).rows;
      return row && toPayment(row);
    }
    // SQLite: the three statements in one transaction (the caller's, when it runs in one).
    const change = async (db: Db): Promise<PaymentRecord | undefined> => {
      const result = await patchPaymentIfVersionQuery(db, values, shapeOf(values));
      if (result.numAffectedRows !== 1n) return undefined;
      if (attemptPatch !== undefined) await new SqlPaymentAttemptStore(db).patchLatestAttempt(payment, payment.paymentId, attemptPatch);
      if (event !== undefined) await eventsSqlStores(db).outbox.insertEvent(event);
      return patchedPayment(payment, patch);
    };
    return inTransaction(this.db, change);
  }

  async updatePaymentIfVersion(scope: Scope, paymentId: string, version: number, patch: PaymentPatch): Promise<PaymentRecord | undefined> {
    // PostgreSQL re-checks the WHERE clause on the newest row version after waiting for a concurrent writer's row
    // lock; SQLite runs one writer at a time. Either way only one of two writers that read `version` succeeds.
    const values = setPrefixed({ accountId: scope.accountId, mode: scope.mode, paymentId, version }, 'set', patchColumns(patch));
    const [row] = (await updatePaymentIfVersionQuery<Selectable<PaymentsTable>>(this.db, values, shapeOf(values))).rows;
    return row && toPayment(row);
  }
}

function toCapture(row: Selectable<PaymentCapturesTable>): PaymentCaptureRecord {
  return {
    accountId: row.account_id,
    mode: row.mode,
    captureId: row.capture_id,
    paymentId: row.payment_id,
    attemptId: row.attempt_id,
    captureSequence: Number(row.capture_sequence),
    status: row.status,
    amount: Number(row.amount),
    currency: row.currency as Currency,
    connector: row.connector,
    connectorCaptureId: row.connector_capture_id,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    requestReference: row.request_reference,
    createdAt: new Date(row.created_at),
  };
}

export class SqlPaymentCaptureStore implements PaymentCaptureStore {
  constructor(private readonly db: Db) {}

  async insertCapture(capture: PaymentCaptureRecord): Promise<void> {
    await this.db
      .insertInto('payment_captures')
      .values({
        account_id: capture.accountId,
        mode: capture.mode,
        capture_id: capture.captureId,
        payment_id: capture.paymentId,
        attempt_id: capture.attemptId,
        capture_sequence: capture.captureSequence,
        status: capture.status,
        amount: capture.amount,
        currency: capture.currency,
        connector: capture.connector,
        connector_capture_id: capture.connectorCaptureId,
        error_code: capture.errorCode,
        error_message: capture.errorMessage,
        request_reference: capture.requestReference,
        created_at: iso(capture.createdAt),
      })
      .execute();
  }

  async findCapture(scope: Scope, captureId: string): Promise<PaymentCaptureRecord | undefined> {
    const row = await this.db.selectFrom('payment_captures').selectAll().where(inScope(scope)).where('capture_id', '=', captureId).executeTakeFirst();
    return row && toCapture(row);
  }

  async settlePendingCapture(scope: Scope, captureId: string, settlement: CaptureSettlement): Promise<boolean> {
    const result = await this.db
      .updateTable('payment_captures')
      .set({
        status: settlement.status,
        connector_capture_id: settlement.connectorCaptureId,
        error_code: settlement.errorCode,
        error_message: settlement.errorMessage,
        ...(settlement.amount === undefined ? {} : { amount: settlement.amount }),
      })
      .where(inScope(scope))
      .where('capture_id', '=', captureId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async listCapturesPendingBefore(before: Date, limit: number, after?: CaptureCreatedCursor): Promise<PaymentCaptureRecord[]> {
    let select = this.db.selectFrom('payment_captures').selectAll().where('status', '=', 'pending').where('created_at', '<', iso(before));
    if (after !== undefined) {
      // One row value: PostgreSQL bounds the index scan with it (an OR of the first column's cases is only a filter).
      select = select.where((eb) => eb(eb.refTuple('created_at', 'account_id', 'mode', 'capture_id'), '>', eb.tuple(iso(after.createdAt), after.accountId, after.mode, after.captureId)));
    }
    const rows = await select.orderBy('created_at').orderBy('account_id').orderBy('mode').orderBy('capture_id').limit(limit).execute();
    return rows.map(toCapture);
  }

  async listCaptures(scope: Scope, paymentId: string): Promise<PaymentCaptureRecord[]> {
    const rows = await this.db
      .selectFrom('payment_captures')
      .selectAll()
      .where(inScope(scope))
      .where('payment_id', '=', paymentId)
      .orderBy('capture_sequence')
      .execute();
    return rows.map(toCapture);
  }
}

/** The payments stores on one connection or transaction. */
export function paymentsSqlStores(db: Db): PaymentsStores {
  return {
    payments: new SqlPaymentStore(db),
    attempts: new SqlPaymentAttemptStore(db),
    paymentList: new SqlPaymentListStore(db),
    captures: new SqlPaymentCaptureStore(db),
  };
}

/**
 * One page of a keyset listing of payments in (updated_at, account_id, mode, payment_id) order: those `select` finds
 * after `after` (from the first when none). The bound is one row value, so that PostgreSQL bounds the index scan
 * with it (an OR of updated_at's cases is planned as a filter over every row from the oldest); SQLite takes row
 * values too.
 */
async function pageByUpdated(
  select: SelectQueryBuilder<Database, 'payments', Selectable<PaymentsTable>>,
  after: PaymentUpdatedCursor | null | undefined,
  limit: number,
): Promise<PaymentRecord[]> {
  const bounded =
    after == null
      ? select
      : select.where((eb) => eb(eb.refTuple('updated_at', 'account_id', 'mode', 'payment_id'), '>', eb.tuple(iso(after.updatedAt), after.accountId, after.mode, after.paymentId)));
  const rows = await bounded.orderBy('updated_at').orderBy('account_id').orderBy('mode').orderBy('payment_id').limit(limit).execute();
  return rows.map(toPayment);
}
