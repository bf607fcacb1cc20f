import { type Selectable, sql } from 'kysely';
import type { JsonObject } from '../../../../protocol/api/payments';
import type { PaymentMethod, PaymentMethodType } from '../../../../protocol/api/enums';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { PendingMethodSaveRecord, PendingSaveInstrument, StoredCardFields, StoredPaymentMethodPatch, StoredPaymentMethodRecord } from './records';
import type { StoredPaymentMethodsTable } from './schema';
import type { PaymentMethodsStores, PendingMethodSaveStore, StoredPaymentMethodStore } from './store';
import { type Db, dateOrNull, inScope, insertResult, iso, isoOrNull, jsonOrNull, parseJson } from '../sql-rows';

function toMethod(row: Selectable<StoredPaymentMethodsTable>): StoredPaymentMethodRecord {
  return {
    accountId: row.account_id,
    mode: row.mode,
    paymentMethodId: row.payment_method_id,
    customerId: row.customer_id,
    paymentMethod: row.payment_method as PaymentMethod,
    paymentMethodType: row.payment_method_type as PaymentMethodType | null,
    paymentMethodIssuer: row.payment_method_issuer,
    card: parseJson<StoredCardFields>(row.card),
    cardCiphertext: row.card_ciphertext,
    upi: parseJson<JsonObject>(row.upi),
    wallet: parseJson<JsonObject>(row.wallet),
    bankTransfer: parseJson<JsonObject>(row.bank_transfer),
    metadata: parseJson<JsonObject>(row.metadata),
    rail: row.rail,
    recurringEnabled: Number(row.recurring_enabled) === 1,
    originPaymentId: row.origin_payment_id,
    lastUsedAt: dateOrNull(row.last_used_at),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** Stored payment methods on SQLite and PostgreSQL. */
export class SqlStoredPaymentMethodStore implements StoredPaymentMethodStore {
  constructor(private readonly db: Db) {}

  async insertStoredPaymentMethod(method: StoredPaymentMethodRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('stored_payment_methods')
      .values({
        account_id: method.accountId,
        mode: method.mode,
        payment_method_id: method.paymentMethodId,
        customer_id: method.customerId,
        payment_method: method.paymentMethod,
        payment_method_type: method.paymentMethodType,
        payment_method_issuer: method.paymentMethodIssuer,
        card: jsonOrNull(method.card),
        card_ciphertext: method.cardCiphertext,
        upi: jsonOrNull(method.upi),
        wallet: jsonOrNull(method.wallet),
        bank_transfer: jsonOrNull(method.bankTransfer),
        metadata: jsonOrNull(method.metadata),
        rail: method.rail,
        recurring_enabled: method.recurringEnabled ? 1 : 0,
        origin_payment_id: method.originPaymentId,
        last_used_at: isoOrNull(method.lastUsedAt),
        created_at: iso(method.createdAt),
        updated_at: iso(method.updatedAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findStoredPaymentMethod(scope: Scope, paymentMethodId: string): Promise<StoredPaymentMethodRecord | undefined> {
    const row = await this.db
      .selectFrom('stored_payment_methods')
      .selectAll()
      .where(inScope(scope))
      .where('payment_method_id', '=', paymentMethodId)
      .executeTakeFirst();
    return row && toMethod(row);
  }

  async listStoredPaymentMethodsOfCustomer(scope: Scope, customerId: string, limit: number): Promise<StoredPaymentMethodRecord[]> {
    const rows = await this.db
      .selectFrom('stored_payment_methods')
      .selectAll()
      .where(inScope(scope))
      .where('customer_id', '=', customerId)
      .orderBy('created_at', 'desc')
      .orderBy('payment_method_id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toMethod);
  }

  async updateStoredPaymentMethod(scope: Scope, paymentMethodId: string, patch: StoredPaymentMethodPatch): Promise<StoredPaymentMethodRecord | undefined> {
    const columns: Partial<StoredPaymentMethodsTable> = { updated_at: iso(patch.updatedAt) };
    if (patch.card !== undefined) columns.card = jsonOrNull(patch.card);
    if (patch.wallet !== undefined) columns.wallet = jsonOrNull(patch.wallet);
    if (patch.lastUsedAt !== undefined) columns.last_used_at = isoOrNull(patch.lastUsedAt);
    const row = await this.db
      .updateTable('stored_payment_methods')
      .set(columns)
      .where(inScope(scope))
      .where('payment_method_id', '=', paymentMethodId)
      .returningAll()
      .executeTakeFirst();
    return row && toMethod(row);
  }

  async deleteStoredPaymentMethod(scope: Scope, paymentMethodId: string): Promise<StoredPaymentMethodRecord | undefined> {
    const row = await this.db
      .deleteFrom('stored_payment_methods')
      .where(inScope(scope))
      .where('payment_method_id', '=', paymentMethodId)
      .returningAll()
      .executeTakeFirst();
    return row && toMethod(row);
  }

  async deleteStoredPaymentMethodsOfCustomer(scope: Scope, customerId: string): Promise<number> {
    const result = await this.db
      .deleteFrom('stored_payment_methods')
      .where(inScope(scope))
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** Pending saves on SQLite and PostgreSQL. */
export class SqlPendingMethodSaveStore implements PendingMethodSaveStore {
  constructor(private readonly db: Db) {}

  async insertPendingSave(save: PendingMethodSaveRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('pending_method_saves')
      .values({ account_id: save.accountId, mode: save.mode, payment_id: save.paymentId, instrument: JSON.stringify(save.instrument), created_at: iso(save.createdAt) })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async hasPendingSave(scope: Scope, paymentId: string): Promise<boolean> {
    const row = await this.db.selectFrom('pending_method_saves').select('payment_id').where(inScope(scope)).where('payment_id', '=', paymentId).executeTakeFirst();
    return row !== undefined;
  }

  async takePendingSave(scope: Scope, paymentId: string): Promise<PendingMethodSaveRecord | undefined> {
    const row = await this.db.deleteFrom('pending_method_saves').where(inScope(scope)).where('payment_id', '=', paymentId).returningAll().executeTakeFirst();
    return (
      row && {
        accountId: row.account_id,
        mode: row.mode,
        paymentId: row.payment_id,
        instrument: JSON.parse(row.instrument) as PendingSaveInstrument,
        createdAt: new Date(row.created_at),
      }
    );
  }

  async deletePendingSavesOfCustomer(scope: Scope, customerId: string): Promise<number> {
    const result = await this.db
      .deleteFrom('pending_method_saves')
      .where(inScope(scope))
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('payments')
            .select(sql.lit(1).as('one'))
            .whereRef('payments.account_id', '=', 'pending_method_saves.account_id')
            .whereRef('payments.mode', '=', 'pending_method_saves.mode')
            .whereRef('payments.payment_id', '=', 'pending_method_saves.payment_id')
            .where('payments.customer_id', '=', customerId),
        ),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

export function paymentMethodsSqlStores(db: Db): PaymentMethodsStores {
  return { storedPaymentMethods: new SqlStoredPaymentMethodStore(db), pendingMethodSaves: new SqlPendingMethodSaveStore(db) };
}
