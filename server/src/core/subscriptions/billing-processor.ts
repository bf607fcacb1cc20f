/**
 * Subscriptions need a billing processor connected to the business profile (spec "not live today" 4). None is
 * connected on any profile today, so every operation that needs one (creation, estimates, the item catalogue) is
 * refused for the missing billing_processor_id, naming it, and no subscription exists to read or change.
 */
import type { ProfileRecord } from '../../storage/accounts/records';
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

/** Refuses an operation that needs the profile's billing processor: none is connected (ERR_2001, billing_processor_id). */
export function refuseWithoutBillingProcessor(profile: ProfileRecord): never {
  throw new ApiError(
    'ERR_2001',
    `billing_processor_id is required: no billing processor is connected to business profile ${profile.profileId}, so subscriptions cannot be created.`,
    { fieldName: 'billing_processor_id' },
  );
}

/** No subscription exists without a billing processor: ERR_4110 for any id. */
export function noSuchSubscription(): ApiError {
  return new ApiError('ERR_4110', 'No such subscription exists for this profile.');
}
