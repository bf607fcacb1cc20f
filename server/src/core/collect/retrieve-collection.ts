import type { CollectionRecord } from '../../storage/collect/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { advanceCollection } from './advance-collect';
import { collectProviderFor } from './collect-provider';

/** GET /collect/collections/{collection_id} (secret key), with every step that is due applied first. */
export async function retrieveCollection(deps: CoreDeps, auth: AuthContext, collectionId: string): Promise<CollectionRecord> {
  const provider = collectProviderFor(deps, auth);
  const collection = await deps.store.collections.findCollection(auth, collectionId);
  if (collection === undefined) throw new ApiError('ERR_4071', 'No such collection exists for this account and mode.');
  return advanceCollection(deps, provider, collection);
}
