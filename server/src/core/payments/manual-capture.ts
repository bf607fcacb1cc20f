/**
 * The manual-capture family (capture, cancel post capture, incremental and extended authorization): which payments
 * each operation may touch. On accounts whose rails capture as they authorize (spec rule 5, the default account) no
 * open authorization exists, so each call is refused with ERR_4003 and a message saying why. The statuses each
 * operation needs are the rows of the payment transition table (Hyperswitch's, docs/reference.md, Hyperswitch §5).
 */
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import { ApiError } from '../shared/errors';
import { statusesAllowing, type PaymentTrigger } from './payment-transitions';

export type ManualCaptureOperation = 'capture' | 'cancel_post_capture' | 'incremental_authorization' | 'extend_authorization';

const VERBS: Record<ManualCaptureOperation, string> = {
  capture: 'capture',
  cancel_post_capture: 'cancel after capture',
  incremental_authorization: 'increase the authorization of',
  extend_authorization: 'extend the authorization of',
};

/** Whether the rail that took the payment declares manual capture for the account in the key's mode. */
export function railHasManualCapture(auth: AuthContext, payment: PaymentRecord): boolean {
  const rail = auth.account.settings.rails.find((candidate) => candidate.rail === payment.rail);
  return rail?.capabilities[auth.mode].manualCapture === true;
}

function accountHasManualCapture(auth: AuthContext): boolean {
  return auth.account.settings.rails.some((rail) => rail.capabilities[auth.mode].manualCapture);
}

/**
 * Refuses the operation with ERR_4003 when the payment is not in a status the operation needs (the transition table
 * has no row for it), or when the rail that took it captures as it authorizes.
 */
export function requireManualCaptureOperation(auth: AuthContext, payment: PaymentRecord, operation: ManualCaptureOperation): void {
  const verb = VERBS[operation];
  const statuses = statusesAllowing(operation satisfies PaymentTrigger);
  if (!statuses.includes(payment.status)) {
    throw new ApiError(
      'ERR_4003',
      `You cannot ${verb} this payment because it has status ${payment.status}; the expected status is ${statuses.join(' or ')}.` +
        (accountHasManualCapture(auth) ? '' : ' The rails enabled for this account capture as they authorize, so no payment awaits capture.'),
    );
  }
  if (!railHasManualCapture(auth, payment)) {
    throw new ApiError('ERR_4003', `You cannot ${verb} this payment: the ${payment.rail ?? 'payment'} rail captures as it authorizes (no manual capture).`);
  }
}
