import type { CancelPostCaptureRequest } from '../../../../protocol/api/payment-ops';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { refuseManualCaptureOperation } from './manual-capture';

/** POST /payments/{payment_id}/cancel_post_capture (secret key): ERR_4003 on rails that capture as they authorize. */
export async function cancelPostCapture(deps: CoreDeps, auth: AuthContext, paymentId: string, _body: CancelPostCaptureRequest): Promise<PaymentRecord> {
  return refuseManualCaptureOperation(deps, auth, paymentId, 'cancel_post_capture');
}
