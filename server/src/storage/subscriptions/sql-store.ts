import { type Selectable, sql } from 'kysely';
import type { Currency } from '../../../../protocol/currency';
import type { JsonObject } from '../../../../protocol/api/payments';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { ScheduledChange, SubscriptionPatch, SubscriptionRecord, SubscriptionStatus } from './records';
import type { SubscriptionsTable } from './schema';
import type { DueSubscriptionCursor, OutstandingRenewalCursor, SubscriptionsStores, SubscriptionStore } from './store';
import { type Db, dateOrNull, inScope, insertResult, iso, isoOrNull, jsonOrNull, parseJson } from '../sql-rows';

function toSubscription(row: Selectable<SubscriptionsTable>): SubscriptionRecord {
  return {
    accountId: row.account_id,
    mode: row.mode,
    subscriptionId: row.subscription_id,
    profileId: row.profile_id,
    customerId: row.customer_id,
    merchantReferenceId: row.merchant_reference_id,
    status: row.status as SubscriptionStatus,
    planId: row.plan_id,
    itemPriceId: row.item_price_id,
    couponCode: row.coupon_code,
    amount: Number(row.amount),
    currency: row.currency as Currency,
    clientSecret: row.client_secret,
    lastPaymentId: row.last_payment_id,
    renewalPaymentId: row.renewal_payment_id,
    renewalPeriodStart: dateOrNull(row.renewal_period_start),
    mandateId: row.mandate_id,
    billing: parseJson<JsonObject>(row.billing),
    shipping: parseJson<JsonObject>(row.shipping),
    description: row.description,
    scheduledChange: parseJson<ScheduledChange>(row.scheduled_change),
    nextBillingAt: dateOrNull(row.next_billing_at),
    pausedAt: dateOrNull(row.paused_at),
    cancelledAt: dateOrNull(row.cancelled_at),
    version: Number(row.version),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export class SqlSubscriptionStore implements SubscriptionStore {
  constructor(private readonly db: Db) {}

  async insertSubscription(s: SubscriptionRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('subscriptions')
      .values({
        account_id: s.accountId,
        mode: s.mode,
        subscription_id: s.subscriptionId,
        profile_id: s.profileId,
        customer_id: s.customerId,
        merchant_reference_id: s.merchantReferenceId,
        status: s.status,
        plan_id: s.planId,
        item_price_id: s.itemPriceId,
        coupon_code: s.couponCode,
        amount: s.amount,
        currency: s.currency,
        client_secret: s.clientSecret,
        last_payment_id: s.lastPaymentId,
        renewal_payment_id: s.renewalPaymentId,
        renewal_period_start: isoOrNull(s.renewalPeriodStart),
        mandate_id: s.mandateId,
        billing: jsonOrNull(s.billing),
        shipping: jsonOrNull(s.shipping),
        description: s.description,
        scheduled_change: jsonOrNull(s.scheduledChange),
        next_billing_at: isoOrNull(s.nextBillingAt),
        paused_at: isoOrNull(s.pausedAt),
        cancelled_at: isoOrNull(s.cancelledAt),
        version: s.version,
        created_at: iso(s.createdAt),
        updated_at: iso(s.updatedAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findSubscription(scope: Scope, profileId: string, subscriptionId: string): Promise<SubscriptionRecord | undefined> {
    const row = await this.db
      .selectFrom('subscriptions')
      .selectAll()
      .where(inScope(scope))
      .where('profile_id', '=', profileId)
      .where('subscription_id', '=', subscriptionId)
      .executeTakeFirst();
    return row && toSubscription(row);
  }

  async listSubscriptions(scope: Scope, profileId: string, limit: number, offset: number): Promise<SubscriptionRecord[]> {
    const rows = await this.db
      .selectFrom('subscriptions')
      .selectAll()
      .where(inScope(scope))
      .where('profile_id', '=', profileId)
      .orderBy('created_at', 'desc')
      .orderBy('subscription_id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map(toSubscription);
  }

  async updateSubscriptionIf(scope: Scope, subscriptionId: string, from: readonly SubscriptionStatus[], patch: SubscriptionPatch, version?: number): Promise<SubscriptionRecord | undefined> {
    if (from.length === 0) return undefined;
    const columns: Partial<SubscriptionsTable> = { updated_at: iso(patch.updatedAt) };
    if (patch.status !== undefined) columns.status = patch.status;
    if (patch.planId !== undefined) columns.plan_id = patch.planId;
    if (patch.itemPriceId !== undefined) columns.item_price_id = patch.itemPriceId;
    if (patch.amount !== undefined) columns.amount = patch.amount;
    if (patch.currency !== undefined) columns.currency = patch.currency;
    if (patch.lastPaymentId !== undefined) columns.last_payment_id = patch.lastPaymentId;
    if (patch.renewalPaymentId !== undefined) columns.renewal_payment_id = patch.renewalPaymentId;
    if (patch.renewalPeriodStart !== undefined) columns.renewal_period_start = isoOrNull(patch.renewalPeriodStart);
    if (patch.mandateId !== undefined) columns.mandate_id = patch.mandateId;
    if (patch.scheduledChange !== undefined) columns.scheduled_change = jsonOrNull(patch.scheduledChange);
    if (patch.nextBillingAt !== undefined) columns.next_billing_at = isoOrNull(patch.nextBillingAt);
    if (patch.pausedAt !== undefined) columns.paused_at = isoOrNull(patch.pausedAt);
    if (patch.cancelledAt !== undefined) columns.cancelled_at = isoOrNull(patch.cancelledAt);
    let update = this.db
      .updateTable('subscriptions')
      .set({ ...columns, version: sql`version + 1` })
      .where(inScope(scope))
      .where('subscription_id', '=', subscriptionId)
      .where('status', 'in', [...from]);
    if (version !== undefined) update = update.where('version', '=', version);
    const row = await update.returningAll().executeTakeFirst();
    return row && toSubscription(row);
  }

  async listDueSubscriptions(scope: Scope, now: Date, limit: number, after?: DueSubscriptionCursor): Promise<SubscriptionRecord[]> {
    let query = this.db
      .selectFrom('subscriptions')
      .selectAll()
      .where(inScope(scope))
      .where('status', '=', 'active')
      .where((eb) => eb.or([eb('next_billing_at', '<=', iso(now)), eb('scheduled_change', 'is not', null)]));
    if (after !== undefined) query = query.where(sql<boolean>`(next_billing_at, subscription_id) > (${isoOrNull(after.nextBillingAt)}, ${after.subscriptionId})`);
    const rows = await query
      .orderBy('next_billing_at')
      .orderBy('subscription_id')
      .limit(limit)
      .execute();
    return rows.map(toSubscription);
  }

  async listOutstandingRenewals(scope: Scope, limit: number, after?: OutstandingRenewalCursor): Promise<SubscriptionRecord[]> {
    let query = this.db.selectFrom('subscriptions').selectAll().where(inScope(scope)).where('renewal_payment_id', 'is not', null);
    if (after !== undefined) query = query.where(sql<boolean>`(updated_at, subscription_id) > (${iso(after.updatedAt)}, ${after.subscriptionId})`);
    const rows = await query
      .orderBy('updated_at')
      .orderBy('subscription_id')
      .limit(limit)
      .execute();
    return rows.map(toSubscription);
  }
}

export function subscriptionsSqlStores(db: Db): SubscriptionsStores {
  return { subscriptions: new SqlSubscriptionStore(db) };
}
