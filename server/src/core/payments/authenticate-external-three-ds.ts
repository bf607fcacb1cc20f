import type { ExternalThreeDsAuthenticationRequest, ExternalThreeDsAuthenticationResponse } from '../../../../protocol/api/card-ops';
import type { RailAdapter } from '../../rails/rail-adapter';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { findPaymentOfCaller } from './find-payment';
import { applyRailOutcome } from './payment-outcome';

const NOT_WAITING = 'This payment does not wait for external 3DS authentication: it was not confirmed with request_external_three_ds_authentication, or its authentication already ran.';

/** The card adapter that holds the external 3DS authentication of a waiting payment, or ERR_4003 / ERR_4016. */
export function externalThreeDsAdapter(deps: CoreDeps, payment: PaymentRecord, operation: string): { adapter: RailAdapter; railReference: string } {
  if (payment.status !== 'requires_customer_action') {
    throw new ApiError('ERR_4003', `You cannot ${operation} this payment because it has status ${payment.status}.`);
  }
  const adapter = payment.rail === 'card' ? deps.rails.adapterFor(payment.mode, 'card') : undefined;
  if (adapter === undefined || payment.railReference === null) throw new ApiError('ERR_4016', NOT_WAITING);
  return { adapter, railReference: payment.railReference };
}

/**
 * POST /payments/{payment_id}/3ds/authentication (publishable key with the payment's client_secret): runs the
 * authentication of a card payment confirmed with request_external_three_ds_authentication, once. The rail's
 * transStatus is kept in its state: Y (frictionless) lets complete_authorize authorize; C opens a challenge at
 * acs_url (the payment's next_action becomes that redirect); N then fails the payment (authentication_failed), the
 * failure and its event committing in one transaction.
 */
export async function authenticateExternalThreeDs(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  body: ExternalThreeDsAuthenticationRequest,
): Promise<ExternalThreeDsAuthenticationResponse> {
  const payment = await findPaymentOfCaller(deps, auth, paymentId, body.client_secret);
  const { adapter, railReference } = externalThreeDsAdapter(deps, payment, 'authenticate');
  const now = deps.clock.now();
  const outcome = await adapter.authenticateThreeDs?.({
    accountId: auth.accountId,
    mode: auth.mode,
    paymentId: payment.paymentId,
    railReference,
    railState: payment.railState,
    deviceChannel: body.device_channel,
    threedsMethodCompInd: body.threeds_method_comp_ind,
    now,
  });
  if (outcome === undefined || outcome.kind === 'not_waiting') throw new ApiError('ERR_4016', NOT_WAITING);
  // Conditional on the version read: of two concurrent authentications one is kept, the other is refused.
  const authenticated = await deps.store.payments.updatePaymentIfVersion(auth, payment.paymentId, payment.version, {
    railState: outcome.state,
    ...(outcome.acsUrl !== null ? { nextAction: { type: 'redirect_to_url', redirect_to_url: outcome.acsUrl } } : {}),
    updatedAt: now,
  });
  if (authenticated === undefined) throw new ApiError('ERR_4016', NOT_WAITING);
  if (outcome.transStatus === 'N') {
    const decline = await adapter.completeAuthorization?.({
      accountId: auth.accountId,
      mode: auth.mode,
      paymentId: payment.paymentId,
      amount: payment.amount,
      railReference,
      railState: authenticated.railState,
      now,
    });
    if (decline !== undefined) await applyRailOutcome(deps, authenticated, decline, 'rail_sync');
  }
  return {
    trans_status: outcome.transStatus,
    acs_url: outcome.acsUrl,
    challenge_request: outcome.challengeRequest,
    challenge_request_key: null,
    acs_reference_number: outcome.acsReferenceNumber,
    acs_trans_id: outcome.acsTransId,
    three_dsserver_trans_id: outcome.serverTransId,
    acs_signed_content: null,
    three_ds_requestor_url: payment.returnUrl,
    three_ds_requestor_app_url: null,
    error_message: outcome.transStatus === 'N' ? 'authentication_failed' : null,
  };
}
