import type { Scope } from '../../kernel/store-types';
import type { MandateRecord } from '../../storage/mandates/records';
import type { Stores } from '../../storage/stores';
import { ApiError } from '../shared/errors';

/** The mandate with this id, or ERR_4101. */
export async function findMandateOrThrow(stores: Stores, scope: Scope, mandateId: string): Promise<MandateRecord> {
  const mandate = await stores.mandates.findMandate(scope, mandateId);
  if (mandate === undefined) throw new ApiError('ERR_4101', 'No such mandate exists for this account and mode.');
  return mandate;
}
