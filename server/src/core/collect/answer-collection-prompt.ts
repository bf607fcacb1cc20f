import { secretsEqual } from '../auth/secrets';
import type { CollectionRecord } from '../../storage/collect/records';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { advanceCollection, applyCollectionStep } from './advance-collect';

/** As the simulator writes it (`<the account, sealed>.<secret>`): visible ASCII, bounded. */
const CHALLENGE_SHAPE = /^[\x21-\x7e]{1,200}$/;

/**
 * The test simulator's payer page for a collection (`/simulator/collect/{collection_id}?challenge=...`): the page's
 * challenge is the only credential (a secret in the collection's instructions, compared in constant time), and only
 * a pending test-mode collection can be answered. Due steps are applied first, as on every read, so an expired
 * collection is marked expired and refused. `pay` marks it received (credited after the provider's delay); `fail`
 * marks it failed; either only if it has not expired at the moment of the write.
 */
export async function findPromptedCollection(deps: CoreDeps, collectionId: string, challenge: string): Promise<PromptedCollection> {
  // The page takes no key: whatever a stranger posts is refused before it reaches a query (a NUL in a PostgreSQL
  // text parameter is an error of the database, not a mismatch).
  if (!CHALLENGE_SHAPE.test(challenge)) throw notPrompted();
  const provider = deps.collect?.providerFor('test');
  const accountId = provider?.accountOfChallenge(challenge);
  if (provider === undefined || accountId === undefined) throw notPrompted();
  const stored = await deps.store.collections.findCollection({ accountId, mode: 'test' }, collectionId);
  if (stored === undefined || stored.challenge === null || !secretsEqual(challenge, stored.challenge)) throw notPrompted();
  const collection = await advanceCollection(deps, provider, stored);
  if (collection.status !== 'pending') throw notPrompted();
  const account = await deps.store.accounts.findAccountById(accountId);
  const merchantName = account?.settings.merchantName.trim() ?? '';
  return { collection, merchantName: merchantName === '' ? null : merchantName };
}

/** A collection that waits for its payer, and what the payer is shown of the merchant: its name, never its ids. */
export interface PromptedCollection {
  collection: CollectionRecord;
  merchantName: string | null;
}

function notPrompted(): ApiError {
  return new ApiError('ERR_4070', 'This simulator page does not apply: unknown collection or challenge, or the collection no longer waits.');
}

export async function answerCollectionPrompt(deps: CoreDeps, collectionId: string, challenge: string, decision: 'pay' | 'fail'): Promise<CollectionRecord> {
  const { collection } = await findPromptedCollection(deps, collectionId, challenge);
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
