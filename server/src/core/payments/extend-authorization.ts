import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { refuseManualCaptureOperation } from './manual-capture';

/** POST /payments/{payment_id}/extend_authorization (secret key): ERR_4003 on rails that capture as they authorize. */
export async function extendAuthorization(deps: CoreDeps, auth: AuthContext, paymentId: string): Promise<PaymentRecord> {
  return refuseManualCaptureOperation(deps, auth, paymentId, 'extend_authorization');
}
