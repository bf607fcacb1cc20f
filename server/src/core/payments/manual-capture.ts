/**
 * The manual-capture family (capture, cancel post capture, incremental and extended authorization) on accounts whose
 * rails capture as they authorize (spec rule 5): no open authorization exists, so each call is refused with ERR_4003
 * and a message saying why. The statuses each operation needs are Hyperswitch's (docs/reference.md, Hyperswitch §5).
 */
import type { PaymentStatus } from '../../../../protocol/payments';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { findPaymentOrThrow } from './find-payment';
import { ApiError } from '../shared/errors';

export type ManualCaptureOperation = 'capture' | 'cancel_post_capture' | 'incremental_authorization' | 'extend_authorization';

const OPERATIONS: Record<ManualCaptureOperation, { verb: string; statuses: readonly PaymentStatus[] }> = {
  capture: { verb: 'capture', statuses: ['requires_capture', 'partially_captured_and_capturable'] },
  cancel_post_capture: { verb: 'cancel after capture', statuses: ['succeeded', 'partially_captured', 'partially_captured_and_capturable'] },
  incremental_authorization: { verb: 'increase the authorization of', statuses: ['requires_capture'] },
  extend_authorization: { verb: 'extend the authorization of', statuses: ['requires_capture'] },
};

function railHasManualCapture(auth: AuthContext, payment: PaymentRecord): boolean {
  const rail = auth.account.settings.rails.find((candidate) => candidate.rail === payment.rail);
  return rail?.capabilities[auth.mode].manualCapture === true;
}

/**
 * Loads the payment (ERR_4001) and refuses the operation with ERR_4003: the payment is not in a status the
 * operation needs, or the rail that took it captures automatically.
 */
export async function refuseManualCaptureOperation(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  operation: ManualCaptureOperation,
): Promise<never> {
  const payment = await findPaymentOrThrow(deps, auth, paymentId);
  const { verb, statuses } = OPERATIONS[operation];
  if (!statuses.includes(payment.status)) {
    throw new ApiError(
      'ERR_4003',
      `You cannot ${verb} this payment because it has status ${payment.status}; the expected status is ${statuses.join(' or ')}. ` +
        'The rails enabled for this account capture as they authorize, so no payment awaits capture.',
    );
  }
  if (!railHasManualCapture(auth, payment)) {
    throw new ApiError('ERR_4003', `You cannot ${verb} this payment: the ${payment.rail ?? 'payment'} rail captures as it authorizes (no manual capture).`);
  }
  // Reached only on an account whose rail declares manual capture; that flow is a later issue (docs/open-points.md).
  throw new ApiError('ERR_4003', `${operation} on a manual-capture rail is not available yet.`);
}
