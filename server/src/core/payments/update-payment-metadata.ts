import type { UpdateMetadataRequest, UpdateMetadataResponse } from '../../../../protocol/api/payment-ops';
import type { PaymentStatus } from '../../../../protocol/payments';
import type { JsonObject } from '../../../../protocol/api/payments';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { findPaymentOrThrow } from './find-payment';
import { ApiError } from '../shared/errors';

/** Payments already sent to a rail (Hyperswitch's update_metadata statuses, payment_update_metadata.rs). */
export const METADATA_UPDATE_STATUSES: readonly PaymentStatus[] = [
  'succeeded',
  'failed',
  'partially_captured',
  'partially_captured_and_capturable',
  'requires_capture',
  'requires_customer_action',
];

/** Whether the rail that took the payment can carry a metadata change (capabilities are account data). */
function railAcceptsMetadataUpdates(auth: AuthContext, payment: PaymentRecord): boolean {
  const rail = auth.account.settings.rails.find((candidate) => candidate.rail === payment.rail);
  return rail?.capabilities[auth.mode].metadataUpdates === true;
}

/**
 * POST /payments/{payment_id}/update_metadata (secret key). For a payment already sent to a rail: the metadata is
 * replaced when the rail accepts metadata updates; otherwise ERR_4094 and nothing changes (spec rule 2). A payment
 * not yet sent answers ERR_4003: its metadata is changed with POST /payments/{payment_id}.
 */
export async function updatePaymentMetadata(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  body: UpdateMetadataRequest,
): Promise<UpdateMetadataResponse> {
  const payment = await findPaymentOrThrow(deps, auth, paymentId);
  if (!METADATA_UPDATE_STATUSES.includes(payment.status)) {
    throw new ApiError(
      'ERR_4003',
      `update_metadata applies to payments already sent to a rail; this payment has status ${payment.status}. Change its metadata with POST /payments/${paymentId}.`,
    );
  }
  if (!railAcceptsMetadataUpdates(auth, payment)) {
    throw new ApiError('ERR_4094', `The ${payment.rail ?? 'payment'} rail cannot carry a metadata change to an already-sent payment; the stored metadata is unchanged.`, {
      fieldName: 'metadata',
    });
  }
  const requestFields: JsonObject =
    body.feature_metadata === undefined ? payment.requestFields : { ...payment.requestFields, feature_metadata: body.feature_metadata };
  const updated = await deps.store.payments.updatePaymentIfStatus(auth, paymentId, [payment.status], {
    metadata: body.metadata,
    requestFields,
    updatedAt: deps.clock.now(),
  });
  if (updated === undefined) {
    throw new ApiError('ERR_4003', `The payment changed status while its metadata was being updated; retrieve it and retry.`, { tryLater: true });
  }
  const featureMetadata = updated.requestFields['feature_metadata'];
  return {
    payment_id: updated.paymentId,
    metadata: updated.metadata,
    status: updated.status,
    feature_metadata: typeof featureMetadata === 'object' && featureMetadata !== null ? (featureMetadata as JsonObject) : null,
  };
}
