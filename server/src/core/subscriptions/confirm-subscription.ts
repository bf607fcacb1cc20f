import { DEFAULT_SESSION_EXPIRY_SECONDS } from '../../../../protocol/api/payments';
import type { ConfirmSubscriptionRequest, SubscriptionResponse } from '../../../../protocol/api/subscriptions';
import type { SubscriptionRecord } from '../../storage/subscriptions/records';
import type { AuthContext } from '../auth/auth-context';
import { clientSecretMismatch, clientSecretMismatchOfUnknown, missingClientSecret } from '../auth/auth';
import { secretsEqual } from '../auth/secrets';
import { requireSecretKeyToChargeMandate } from '../mandates/stored-charge';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { findSubscriptionOrThrow } from './billing-processor';
import { respond } from './subscription-change';
import { payFirstInvoice } from './first-invoice';

/**
 * When a subscription's client_secret stops reaching it: as a payment's with the default session_expiry (15 minutes),
 * counted from the subscription's creation. Only the browser's credential expires; the secret key confirms at any time.
 */
function clientSecretExpiresAt(subscription: SubscriptionRecord): Date {
  return new Date(subscription.createdAt.getTime() + DEFAULT_SESSION_EXPIRY_SECONDS * 1000);
}

/** POST /subscriptions/{id}/confirm (secret key, or publishable key with the subscription's client_secret). */
export async function confirmSubscription(
  deps: CoreDeps,
  auth: AuthContext,
  profileId: string | undefined,
  subscriptionId: string,
  body: ConfirmSubscriptionRequest,
): Promise<SubscriptionResponse> {
  if (auth.keyKind === 'publishable' && body.client_secret === undefined) throw missingClientSecret();
  if (auth.keyKind === 'secret' && body.client_secret !== undefined) {
    throw new ApiError('ERR_1007', 'client_secret must not be sent with a secret key; server-side calls do not carry it.', { fieldName: 'client_secret' });
  }
  const subscription = await findSubscriptionOrThrow(deps, auth, profileId, subscriptionId).catch((error: unknown) => {
    // A publishable key is public: an unknown subscription answers as another subscription's client_secret does,
    // after the same comparison.
    throw auth.keyKind === 'publishable' && body.client_secret !== undefined && error instanceof ApiError && error.code === 'ERR_4110'
      ? clientSecretMismatchOfUnknown(subscriptionId, body.client_secret, 'subscription')
      : error;
  });
  if (body.client_secret !== undefined) {
    if (!secretsEqual(body.client_secret, subscription.clientSecret)) throw clientSecretMismatch('subscription');
    // Told only to the holder of the right secret, as for a payment (auth.ts verifyClientSecret).
    if (clientSecretExpiresAt(subscription) <= deps.clock.now()) {
      throw new ApiError('ERR_1006', 'client_secret has expired; confirm the subscription from your server with the secret key, or create a new one.', { fieldName: 'client_secret' });
    }
  }
  // Refused before the claim, as POST /payments refuses it.
  if (body.payment_details['mandate_id'] !== undefined) requireSecretKeyToChargeMandate(auth, 'payment_details.mandate_id');
  return respond(deps, await payFirstInvoice(deps, auth, subscription, body.payment_details), true);
}
