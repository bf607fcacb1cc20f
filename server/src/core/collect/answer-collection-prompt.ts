import { secretsEqual } from '../auth/secrets';
import type { CollectionRecord } from '../../storage/collect/records';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { applyCollectionStep } from './advance-collect';

/**
 * The test simulator's payer page for a collection (`/simulator/collect/{collection_id}?challenge=...`): the page's
 * challenge is the only credential (a secret in the collection's instructions, compared in constant time), and only
 * a pending test-mode collection can be answered. `pay` marks it received (credited after the provider's delay);
 * `fail` marks it failed.
 */
export async function findPromptedCollection(deps: CoreDeps, collectionId: string, challenge: string): Promise<CollectionRecord> {
  const collection = await deps.store.collections.findCollection({ accountId: accountOfChallenge(challenge), mode: 'test' }, collectionId);
  if (collection === undefined || collection.challenge === null || !secretsEqual(challenge, collection.challenge) || collection.status !== 'pending') {
    throw new ApiError('ERR_4070', 'This simulator page does not apply: unknown collection or challenge, or the collection no longer waits.');
  }
  return collection;
}

/** The challenge names its account: `<account_id>.<secret>`, so the page needs no other parameter. */
function accountOfChallenge(challenge: string): string {
  return challenge.split('.')[0] ?? '';
}

export async function answerCollectionPrompt(deps: CoreDeps, collectionId: string, challenge: string, decision: 'pay' | 'fail'): Promise<CollectionRecord> {
  const collection = await findPromptedCollection(deps, collectionId, challenge);
  const now = deps.clock.now();
  const creditAfterMs = deps.collect?.providerFor('test')?.creditAfterMs ?? 0;
  return decision === 'pay'
    ? applyCollectionStep(deps, collection, 'payer_approved', { receivedAt: now, dueAt: new Date(now.getTime() + creditAfterMs) })
    : applyCollectionStep(deps, collection, 'payer_declined', { failureReason: 'the payer declined the payment', dueAt: null });
}
