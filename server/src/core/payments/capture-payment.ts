import type { CapturePaymentRequest } from '../../../../protocol/api/payment-ops';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { refuseManualCaptureOperation } from './manual-capture';

/** POST /payments/{payment_id}/capture (secret key): ERR_4003 on rails that capture as they authorize. */
export async function capturePayment(deps: CoreDeps, auth: AuthContext, paymentId: string, _body: CapturePaymentRequest): Promise<PaymentRecord> {
  return refuseManualCaptureOperation(deps, auth, paymentId, 'capture');
}
