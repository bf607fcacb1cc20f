import type { Selectable } from 'kysely';
import type { JsonObject } from '../../../../protocol/api/payments';
import type { PaymentMethod, PaymentMethodType } from '../../../../protocol/api/enums';
import type { MandateStatus } from '../../../../protocol/api/mandates';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { StoredCardFields } from '../payment-methods/records';
import type { MandateFilter, MandateRecord } from './records';
import type { MandatesTable } from './schema';
import type { MandatesStores, MandateStore } from './store';
import { type Db, dateOrNull, inScope, insertResult, iso, isoOrNull, jsonOrNull, parseJson } from '../sql-rows';

function toMandate(row: Selectable<MandatesTable>): MandateRecord {
  return {
    accountId: row.account_id,
    mode: row.mode,
    mandateId: row.mandate_id,
    customerId: row.customer_id,
    paymentMethodId: row.payment_method_id,
    paymentMethod: row.payment_method as PaymentMethod,
    paymentMethodType: row.payment_method_type as PaymentMethodType | null,
    card: parseJson<StoredCardFields>(row.card),
    customerAcceptance: parseJson<JsonObject>(row.customer_acceptance),
    status: row.status,
    originPaymentId: row.origin_payment_id,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    revokedAt: dateOrNull(row.revoked_at),
  };
}

export class SqlMandateStore implements MandateStore {
  constructor(private readonly db: Db) {}

  async insertMandate(mandate: MandateRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('mandates')
      .values({
        account_id: mandate.accountId,
        mode: mandate.mode,
        mandate_id: mandate.mandateId,
        customer_id: mandate.customerId,
        payment_method_id: mandate.paymentMethodId,
        payment_method: mandate.paymentMethod,
        payment_method_type: mandate.paymentMethodType,
        card: jsonOrNull(mandate.card),
        customer_acceptance: jsonOrNull(mandate.customerAcceptance),
        status: mandate.status,
        origin_payment_id: mandate.originPaymentId,
        created_at: iso(mandate.createdAt),
        updated_at: iso(mandate.updatedAt),
        revoked_at: isoOrNull(mandate.revokedAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findMandate(scope: Scope, mandateId: string): Promise<MandateRecord | undefined> {
    const row = await this.db.selectFrom('mandates').selectAll().where(inScope(scope)).where('mandate_id', '=', mandateId).executeTakeFirst();
    return row && toMandate(row);
  }

  async listMandates(scope: Scope, filter: MandateFilter): Promise<MandateRecord[]> {
    let query = this.db.selectFrom('mandates').selectAll().where(inScope(scope));
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.customerId !== undefined) query = query.where('customer_id', '=', filter.customerId);
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('mandate_id', 'desc')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute();
    return rows.map(toMandate);
  }

  async updateMandateStatusIf(scope: Scope, mandateId: string, from: readonly MandateStatus[], to: MandateStatus, now: Date): Promise<MandateRecord | undefined> {
    if (from.length === 0) return undefined;
    const row = await this.db
      .updateTable('mandates')
      .set({ status: to, updated_at: iso(now), ...(to === 'revoked' ? { revoked_at: iso(now) } : {}) })
      .where(inScope(scope))
      .where('mandate_id', '=', mandateId)
      .where('status', 'in', [...from])
      .returningAll()
      .executeTakeFirst();
    return row && toMandate(row);
  }
}

export function mandatesSqlStores(db: Db): MandatesStores {
  return { mandates: new SqlMandateStore(db) };
}
