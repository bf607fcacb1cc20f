import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { refuseWhileRailHoldChanging } from './rail-hold-changes';
import { authorizationValidityOf } from './authorization-validity';
import { requireManualCaptureOperation } from './manual-capture';
import { LOST, withCurrentPayment } from './open-authorization';
import { recordPaymentEvent } from './payment-outcome';
import { decideTransition } from './payment-transitions';

/**
 * POST /payments/{payment_id}/extend_authorization (secret key), on a requires_capture payment of a rail with manual
 * capture: the authorization stays capturable until the rail's extended validity, counted from the authorization
 * (the status is unchanged; event payment_authorized). Extending an authorization already extended changes nothing.
 */
export async function extendAuthorization(deps: CoreDeps, auth: AuthContext, paymentId: string): Promise<PaymentRecord> {
  return withCurrentPayment(deps, auth, paymentId, async (payment) => {
    requireManualCaptureOperation(auth, payment, 'extend_authorization');
    const decision = decideTransition(payment.status, 'extend_authorization', { hasPaymentMethodData: true, captureMethod: payment.captureMethod });
    const validity = authorizationValidityOf(deps, payment);
    if (!decision.allowed || validity === undefined || payment.authorizedAt == null) {
      throw new ApiError('ERR_4003', `You cannot extend the authorization of this payment: the ${payment.rail ?? 'payment'} rail sets no validity to extend.`);
    }
    // A void at the rail may be releasing the authorization this would extend.
    refuseWhileRailHoldChanging(payment, 'extend the authorization of');
    const extendedUntil = new Date(payment.authorizedAt.getTime() + validity.extendedMs);
    if (payment.authorizationExpiresAt != null && payment.authorizationExpiresAt.getTime() >= extendedUntil.getTime()) return payment;
    const now = deps.clock.now();
    return deps.store.transaction(async (tx) => {
      const next = await tx.payments.updatePaymentIfVersion(auth, paymentId, payment.version, {
        status: decision.to,
        authorizationExpiresAt: extendedUntil,
        updatedAt: now,
      });
      if (next === undefined) return LOST;
      await recordPaymentEvent(deps, tx, next, now);
      return next;
    });
  });
}
