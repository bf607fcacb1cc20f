/**
 * Subscriptions need a billing processor connected to the business profile (spec "not live today" 4). None is
 * connected on the default account, so every operation that needs one (creation, estimates, the item catalogue) is
 * refused for the missing billing_processor_id, naming it. A test account with `"billing_processor": "simulator"` in
 * RAIL_ACCOUNT_CONFIG has the simulated processor on every profile, in test mode.
 */
import type { ProfileRecord } from '../../storage/accounts/records';
import type { SubscriptionRecord } from '../../storage/subscriptions/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

/** The business profile the X-Profile-Id header names (ERR_2001 without one, ERR_2003 when it names none of the account's). */
export async function profileOfRequest(deps: CoreDeps, auth: AuthContext, profileId: string | undefined): Promise<ProfileRecord> {
  if (profileId === undefined || profileId === '') {
    throw new ApiError('ERR_2001', 'The X-Profile-Id header is required on every subscription operation.', { fieldName: 'X-Profile-Id' });
  }
  const profile = await deps.store.profiles.findProfile(auth.accountId, profileId);
  if (profile === undefined) throw new ApiError('ERR_2003', 'X-Profile-Id names no business profile of this account.', { fieldName: 'X-Profile-Id' });
  return profile;
}

/** The profile, when a billing processor is connected to it in this mode; ERR_2001 naming billing_processor_id otherwise. */
export async function profileWithBillingProcessor(deps: CoreDeps, auth: AuthContext, profileId: string | undefined): Promise<ProfileRecord> {
  const profile = await profileOfRequest(deps, auth, profileId);
  if (auth.account.settings.billingProcessor === 'simulator' && auth.mode === 'test') return profile;
  throw new ApiError(
    'ERR_2001',
    `billing_processor_id is required: no billing processor is connected to business profile ${profile.profileId}, so subscriptions cannot be created.`,
    { fieldName: 'billing_processor_id' },
  );
}

/** The subscription of this profile, or ERR_4110 (none exists on a profile without a billing processor). */
export async function findSubscriptionOrThrow(deps: CoreDeps, auth: AuthContext, profileId: string | undefined, subscriptionId: string): Promise<SubscriptionRecord> {
  const profile = await profileOfRequest(deps, auth, profileId);
  const subscription = await deps.store.subscriptions.findSubscription(auth, profile.profileId, subscriptionId);
  if (subscription === undefined) throw new ApiError('ERR_4110', 'No such subscription exists for this profile.');
  return subscription;
}
