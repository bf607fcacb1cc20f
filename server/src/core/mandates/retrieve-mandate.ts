import type { MandateRecord } from '../../storage/mandates/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { findMandateOrThrow } from './find-mandate';

/** GET /mandates/{mandate_id} (secret key). */
export async function retrieveMandate(deps: CoreDeps, auth: AuthContext, mandateId: string): Promise<MandateRecord> {
  return findMandateOrThrow(deps.store, auth, mandateId);
}
