import { secretsEqual } from '../auth/secrets';
import type { CollectionRecord } from '../../storage/collect/records';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { advanceCollection, applyCollectionStep } from './advance-collect';

/** `<account_id>.<secret>` as the simulator writes it: visible ASCII, bounded. */
const CHALLENGE_SHAPE = /^[\x21-\x7e]{1,200}$/;

/**
 * The test simulator's payer page for a collection (`/simulator/collect/{collection_id}?challenge=...`): the page's
 * challenge is the only credential (a secret in the collection's instructions, compared in constant time), and only
 * a pending test-mode collection can be answered. Due steps are applied first, as on every read, so an expired
 * collection is marked expired and refused. `pay` marks it received (credited after the provider's delay); `fail`
 * marks it failed; either only if it has not expired at the moment of the write.
 */
export async function findPromptedCollection(deps: CoreDeps, collectionId: string, challenge: string): Promise<CollectionRecord> {
  // The page takes no key: whatever a stranger posts is refused before it reaches a query (a NUL in a PostgreSQL
  // text parameter is an error of the database, not a mismatch).
  if (!CHALLENGE_SHAPE.test(challenge)) throw notPrompted();
  const stored = await deps.store.collections.findCollection({ accountId: accountOfChallenge(challenge), mode: 'test' }, collectionId);
  if (stored === undefined || stored.challenge === null || !secretsEqual(challenge, stored.challenge)) throw notPrompted();
  const provider = deps.collect?.providerFor('test');
  const collection = provider === undefined ? stored : await advanceCollection(deps, provider, stored);
  if (collection.status !== 'pending') throw notPrompted();
  return collection;
}

function notPrompted(): ApiError {
  return new ApiError('ERR_4070', 'This simulator page does not apply: unknown collection or challenge, or the collection no longer waits.');
}

/** The challenge names its account: `<account_id>.<secret>`, so the page needs no other parameter. */
function accountOfChallenge(challenge: string): string {
  return challenge.split('.')[0] ?? '';
}

export async function answerCollectionPrompt(deps: CoreDeps, collectionId: string, challenge: string, decision: 'pay' | 'fail'): Promise<CollectionRecord> {
  const collection = await findPromptedCollection(deps, collectionId, challenge);
  const now = deps.clock.now();
  const creditAfterMs = deps.collect?.providerFor('test')?.creditAfterMs ?? 0;
  const answered =
    decision === 'pay'
      ? await applyCollectionStep(deps, collection, 'payer_approved', { receivedAt: now, dueAt: new Date(now.getTime() + creditAfterMs) }, now)
      : await applyCollectionStep(deps, collection, 'payer_declined', { failureReason: 'the payer declined the payment', dueAt: null }, now);
  // Still pending: it expired between the read and the write; the next read or the sweep marks it expired.
  if (answered.status === 'pending') throw notPrompted();
  return answered;
}
