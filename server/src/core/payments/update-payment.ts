import type { UpdatePaymentRequest } from '../../../../protocol/api/payment-ops';
import { amountToCaptureProblem, orderDetailsTotal, statementDescriptorProblem, type JsonObject } from '../../../../protocol/api/payments';
import type { PaymentStatus } from '../../../../protocol/payments';
import { patchedPayment, type PaymentPatch, type PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import { HOW_THE_CUSTOMER_PAYS, refuseChargeChanges } from './charge-fields';
import { executeConfirm } from './confirm-payment';
import type { CoreDeps } from '../shared/deps';
import { findPaymentOfCaller } from './find-payment';
import { ApiError } from '../shared/errors';
import { resolvePaymentMethod } from './payment-method';
import { updatePaymentWithCustomer } from './payment-customer';
import { walletTokenField } from './wallet-data';

/** Statuses in which a payment may be updated (api-conventions §6; Hyperswitch payment_update.rs). */
export const UPDATABLE_STATUSES: readonly PaymentStatus[] = ['requires_payment_method', 'requires_confirmation'];

/** Body fields that are not stored among the request fields (secrets, one-shot switches, the method data). */
const NOT_STORED = new Set<string>(['client_secret', 'confirm', 'retry_action', 'payment_method_data']);

const MANUAL_CAPTURE = new Set(['manual', 'manual_multiple']);

function invalid(field: string, message: string): ApiError {
  return new ApiError('ERR_2003', message, { fieldName: field });
}

/**
 * POST /payments/{payment_id} with a secret key, or a publishable key and the payment's client_secret. Allowed in
 * requires_payment_method and requires_confirmation only (ERR_4003 otherwise). The request-table rules are checked
 * on the values the payment has after the update (order_details against the amount, statement descriptors,
 * extended authorization against the capture method). confirm: true confirms right after the update.
 */
export async function updatePayment(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  body: UpdatePaymentRequest,
): Promise<PaymentRecord> {
  const payment = await findPaymentOfCaller(deps, auth, paymentId, body.client_secret);
  const now = deps.clock.now();
  if (body.payment_id != null && body.payment_id !== paymentId) {
    throw invalid('payment_id', 'payment_id in the body differs from the payment in the path.');
  }
  if (!UPDATABLE_STATUSES.includes(payment.status)) {
    throw new ApiError('ERR_4003', `You cannot update this payment because it has status ${payment.status}.`);
  }
  if (auth.keyKind === 'publishable') {
    refuseChargeChanges(body, payment, HOW_THE_CUSTOMER_PAYS, (field) => `${field} can be changed with a secret key only.`);
  }
  // A psp_token stands for a card in the vault, and a wallet's token for a card too: each goes to the one confirm that
  // uses it and is never kept on the payment, which an update that does not confirm would do until someone confirms.
  if (body.confirm !== true) {
    const credential = body.payment_method_data?.psp_token !== undefined ? 'payment_method_data.psp_token' : walletTokenField(body.payment_method_data);
    if (credential !== undefined) {
      throw invalid(credential, `${credential} is taken only by the confirm that uses it: send it with confirm: true or to POST /payments/{payment_id}/confirm.`);
    }
  }

  const stored = payment.requestFields;
  const pick = <K extends keyof UpdatePaymentRequest>(field: K): unknown => (body[field] !== undefined ? body[field] : stored[field]);
  const amount = body.amount ?? payment.amount;
  const amountToCapture = body.amount_to_capture !== undefined ? body.amount_to_capture : payment.amountToCapture;
  const toCapture = amountToCaptureProblem(amountToCapture, amount, body.capture_method ?? payment.captureMethod);
  if (toCapture !== undefined) throw invalid('amount_to_capture', `${toCapture}.`);
  const orderDetails = pick('order_details') as { amount: number; quantity: number }[] | undefined;
  if (orderDetails != null && orderDetailsTotal(orderDetails) !== amount) {
    throw invalid('order_details', 'the sum of order_details amount x quantity must equal amount.');
  }
  const descriptor = statementDescriptorProblem(
    pick('statement_descriptor_name') as string | undefined,
    pick('statement_descriptor_suffix') as string | undefined,
  );
  if (descriptor !== undefined) throw invalid(descriptor.field, `${descriptor.message}.`);
  const captureMethod = body.capture_method ?? payment.captureMethod;
  if (pick('request_extended_authorization') === true && !MANUAL_CAPTURE.has(captureMethod)) {
    throw invalid('request_extended_authorization', 'request_extended_authorization needs capture_method manual or manual_multiple.');
  }
  // payment_method / payment_method_type must agree with the method data the payment will hold.
  const data = body.payment_method_data ?? payment.paymentMethodData;
  const methodTouched = body.payment_method_data !== undefined || body.payment_method !== undefined || body.payment_method_type !== undefined;
  const method =
    data !== null && methodTouched
      ? resolvePaymentMethod(data, body.payment_method ?? payment.paymentMethod, body.payment_method_type ?? payment.paymentMethodType)
      : undefined;

  const requestFields: JsonObject = { ...stored };
  for (const [field, value] of Object.entries(body)) {
    if (value !== undefined && !NOT_STORED.has(field)) requestFields[field] = value;
  }
  const patch: PaymentPatch = {
    updatedAt: now,
    requestFields,
    ...(body.amount !== undefined ? { amount: body.amount, amountCapturable: body.amount } : {}),
    ...(body.currency !== undefined ? { currency: body.currency } : {}),
    ...(body.amount_to_capture !== undefined ? { amountToCapture: body.amount_to_capture } : {}),
    ...(body.shipping_cost !== undefined ? { shippingCost: body.shipping_cost } : {}),
    ...(body.order_tax_amount !== undefined ? { orderTaxAmount: body.order_tax_amount } : {}),
    ...(body.capture_method !== undefined ? { captureMethod: body.capture_method } : {}),
    ...(body.customer_id !== undefined ? { customerId: body.customer_id } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.return_url !== undefined ? { returnUrl: body.return_url } : {}),
    ...(body.setup_future_usage !== undefined ? { setupFutureUsage: body.setup_future_usage } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    ...(body.merchant_order_reference_id !== undefined ? { merchantOrderReferenceId: body.merchant_order_reference_id } : {}),
    ...(body.session_expiry !== undefined ? { clientSecretExpiresAt: new Date(now.getTime() + body.session_expiry * 1000) } : {}),
    ...(body.payment_method_data !== undefined
      ? {
          paymentMethodData: body.payment_method_data,
          // Payment method details make the payment ready to confirm (as at create).
          status: 'requires_confirmation' as const,
        }
      : {}),
    ...(method !== undefined
      ? { paymentMethod: method.paymentMethod, paymentMethodType: method.paymentMethodType }
      : Object.assign(
          {},
          body.payment_method !== undefined ? { paymentMethod: body.payment_method } : {},
          body.payment_method_type !== undefined ? { paymentMethodType: body.payment_method_type } : {},
        )),
  };
  // All or nothing: the confirm is checked on the payment as the update leaves it, and its claim writes the update.
  if (body.confirm === true) {
    return executeConfirm(deps, auth, patchedPayment(payment, patch), {}, { stored: payment, patch, customer: body.customer });
  }
  // A customer_id naming no customer creates it in the same transaction, a deleted one's is ERR_4020, as at create.
  const updated = await updatePaymentWithCustomer(deps, auth, paymentId, [payment.status], patch, body.customer);
  if (updated === undefined) {
    const current = await deps.store.payments.findPayment(auth, paymentId);
    throw new ApiError('ERR_4003', `You cannot update this payment because it has status ${current?.status ?? payment.status}.`);
  }
  return updated;
}
