import type { SubscriptionResponse, SubscriptionStatusResponse } from '../../../../protocol/api/subscriptions';
import type { PaymentRecord } from '../../storage/payments/records';
import type { SubscriptionRecord } from '../../storage/subscriptions/records';

/** The subscription; client_secret only for a caller that may see it (secret key, or the one who presented it). */
export function toSubscriptionResponse(subscription: SubscriptionRecord, lastPayment: PaymentRecord | undefined, showClientSecret: boolean): SubscriptionResponse {
  return {
    id: subscription.subscriptionId,
    merchant_reference_id: subscription.merchantReferenceId,
    status: subscription.status,
    plan_id: subscription.planId,
    item_price_id: subscription.itemPriceId,
    profile_id: subscription.profileId,
    client_secret: showClientSecret ? subscription.clientSecret : null,
    merchant_id: subscription.accountId,
    coupon_code: subscription.couponCode,
    customer_id: subscription.customerId,
    payment:
      lastPayment === undefined
        ? null
        : {
            payment_id: lastPayment.paymentId,
            status: lastPayment.status,
            amount: lastPayment.amount,
            currency: lastPayment.currency,
            mandate_id: lastPayment.mandateId ?? null,
            payment_method_id: lastPayment.paymentMethodId ?? null,
            error_code: lastPayment.errorCode,
            error_message: lastPayment.errorMessage,
          },
    amount: subscription.amount,
    currency: subscription.currency,
    invoice:
      subscription.nextBillingAt === null && subscription.lastPaymentId === null
        ? null
        : {
            last_payment_id: subscription.lastPaymentId,
            next_billing_at: subscription.nextBillingAt?.toISOString() ?? null,
            mandate_id: subscription.mandateId,
            scheduled_change: subscription.scheduledChange === null ? null : { ...subscription.scheduledChange },
          },
  };
}

export function toSubscriptionStatusResponse(subscription: SubscriptionRecord): SubscriptionStatusResponse {
  return {
    id: subscription.subscriptionId,
    status: subscription.status,
    merchant_reference_id: subscription.merchantReferenceId,
    profile_id: subscription.profileId,
    merchant_id: subscription.accountId,
    customer_id: subscription.customerId,
    cancelled_at: subscription.cancelledAt?.toISOString() ?? null,
    paused_at: subscription.pausedAt?.toISOString() ?? null,
    next_billing_at: subscription.nextBillingAt?.toISOString() ?? null,
  };
}
