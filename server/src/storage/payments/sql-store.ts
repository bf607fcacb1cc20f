import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Mode } from '../../../../protocol/ids';
import type { Currency } from '../../../../protocol/currency';
import type { CaptureMethod } from '../../../../protocol/api/payments';
import type { PaymentMethod, PaymentMethodType } from '../../../../protocol/api/enums';
import type {
  AttemptStatus,
  PaymentAttemptPatch,
  PaymentAttemptRecord,
  PaymentAttemptStore,
  PaymentListQuery,
  PaymentListStore,
  WaitingPaymentCursor,
} from './store';
import type { PaymentRecord, Scope } from '../records';
import type { Database, PaymentAttemptsTable } from '../schema';
import { toPayment } from '../sql-store';

type Db = Kysely<Database> | Transaction<Database>;

function toAttempt(row: Selectable<PaymentAttemptsTable>): PaymentAttemptRecord {
  return {
    accountId: row.account_id,
    mode: row.mode as Mode,
    attemptId: row.attempt_id,
    paymentId: row.payment_id,
    attemptNumber: row.attempt_number,
    status: row.status as AttemptStatus,
    amount: row.amount,
    currency: row.currency as Currency,
    paymentMethod: row.payment_method as PaymentMethod | null,
    paymentMethodType: row.payment_method_type as PaymentMethodType | null,
    captureMethod: row.capture_method as CaptureMethod,
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

  async insertAttempt(attempt: PaymentAttemptRecord): Promise<void> {
    await this.db
      .insertInto('payment_attempts')
      .values({
        account_id: attempt.accountId,
        mode: attempt.mode,
        attempt_id: attempt.attemptId,
        payment_id: attempt.paymentId,
        attempt_number: attempt.attemptNumber,
        status: attempt.status,
        amount: attempt.amount,
        currency: attempt.currency,
        payment_method: attempt.paymentMethod,
        payment_method_type: attempt.paymentMethodType,
        capture_method: attempt.captureMethod,
        connector: attempt.connector,
        reference_id: attempt.referenceId,
        error_code: attempt.errorCode,
        error_message: attempt.errorMessage,
        error_reason: attempt.errorReason,
        poll_id: attempt.pollId,
        cancellation_reason: attempt.cancellationReason,
        created_at: attempt.createdAt.toISOString(),
        updated_at: attempt.updatedAt.toISOString(),
      })
      .execute();
  }

  async countAttempts(scope: Scope, paymentId: string): Promise<number> {
    const row = await this.db
      .selectFrom('payment_attempts')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('account_id', '=', scope.accountId)
      .where('mode', '=', scope.mode)
      .where('payment_id', '=', paymentId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async updateLatestAttempt(scope: Scope, paymentId: string, patch: PaymentAttemptPatch): Promise<PaymentAttemptRecord | undefined> {
    const latest = await this.db
      .selectFrom('payment_attempts')
      .select('attempt_id')
      .where('account_id', '=', scope.accountId)
      .where('mode', '=', scope.mode)
      .where('payment_id', '=', paymentId)
      .orderBy('attempt_number', 'desc')
      .executeTakeFirst();
    if (latest === undefined) return undefined;
    const columns: Partial<PaymentAttemptsTable> = { updated_at: patch.updatedAt.toISOString() };
    if (patch.status !== undefined) columns.status = patch.status;
    if (patch.referenceId !== undefined) columns.reference_id = patch.referenceId;
    if (patch.errorCode !== undefined) columns.error_code = patch.errorCode;
    if (patch.errorMessage !== undefined) columns.error_message = patch.errorMessage;
    if (patch.errorReason !== undefined) columns.error_reason = patch.errorReason;
    if (patch.pollId !== undefined) columns.poll_id = patch.pollId;
    if (patch.cancellationReason !== undefined) columns.cancellation_reason = patch.cancellationReason;
    const row = await this.db
      .updateTable('payment_attempts')
      .set(columns)
      .where('account_id', '=', scope.accountId)
      .where('mode', '=', scope.mode)
      .where('attempt_id', '=', latest.attempt_id)
      .returningAll()
      .executeTakeFirst();
    return row && toAttempt(row);
  }

  async listAttempts(scope: Scope, paymentId: string): Promise<PaymentAttemptRecord[]> {
    const rows = await this.db
      .selectFrom('payment_attempts')
      .selectAll()
      .where('account_id', '=', scope.accountId)
      .where('mode', '=', scope.mode)
      .where('payment_id', '=', paymentId)
      .orderBy('attempt_number')
      .execute();
    return rows.map(toAttempt);
  }

  async findAttemptByPollId(scope: Scope, pollId: string): Promise<PaymentAttemptRecord | undefined> {
    const row = await this.db
      .selectFrom('payment_attempts')
      .selectAll()
      .where('account_id', '=', scope.accountId)
      .where('mode', '=', scope.mode)
      .where('poll_id', '=', pollId)
      .orderBy('attempt_number', 'desc')
      .executeTakeFirst();
    return row && toAttempt(row);
  }
}

export class SqlPaymentListStore implements PaymentListStore {
  constructor(private readonly db: Db) {}

  async listWaitingPayments(after: WaitingPaymentCursor | null, limit: number): Promise<PaymentRecord[]> {
    let select = this.db.selectFrom('payments').selectAll().where('status', '=', 'requires_customer_action').where('rail', 'is not', null);
    if (after !== null) {
      const updated = after.updatedAt.toISOString();
      select = select.where((eb) =>
        eb.or([
          eb('updated_at', '>', updated),
          eb.and([
            eb('updated_at', '=', updated),
            eb(eb.refTuple('account_id', 'mode', 'payment_id'), '>', eb.tuple(after.accountId, after.mode, after.paymentId)),
          ]),
        ]),
      );
    }
    const rows = await select.orderBy('updated_at').orderBy('account_id').orderBy('mode').orderBy('payment_id').limit(limit).execute();
    return rows.map(toPayment);
  }

  async listPayments(scope: Scope, query: PaymentListQuery): Promise<PaymentRecord[]> {
    // Timestamps are fixed-width ISO 8601 UTC text, so text comparison is instant comparison on both engines.
    let select = this.db
      .selectFrom('payments')
      .selectAll()
      .where('account_id', '=', scope.accountId)
      .where('mode', '=', scope.mode);
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
