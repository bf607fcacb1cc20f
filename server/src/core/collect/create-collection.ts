import type { CreateCollectionRequest } from '../../../../protocol/api/collect';
import { currencyExponent, decimalToMinor } from '../../../../protocol/currency';
import { normalizeMsisdn } from '../../../../protocol/msisdn';
import type { CollectionRecord } from '../../storage/collect/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { advanceCollection } from './advance-collect';
import { collectProviderFor } from './collect-provider';
import { decideCollection } from './collect-transitions';

/**
 * POST /collect/collections (secret key): opens a collection with the provider, which answers the instructions the
 * payer follows (the prompt sent to a mobile money number, or the account and reference of a bank transfer). The
 * collection waits `pending` for the payer. Retries: the Idempotency-Key header (docs/idempotency.md).
 */
export async function createCollection(deps: CoreDeps, auth: AuthContext, body: CreateCollectionRequest): Promise<CollectionRecord> {
  const provider = collectProviderFor(deps, auth);
  const decision = decideCollection(null, 'create');
  if (!decision.allowed) throw new Error('the collection table has no create row');
  const now = deps.clock.now();
  const collectionId = deps.ids.id('collection');
  // The amount and its precision were checked at the edge (protocol/api/collect.ts).
  const amount = decimalToMinor(body.amount, currencyExponent(body.currency))!;
  const phoneNumber = body.phone_number === undefined ? null : normalizeMsisdn(body.phone_number);
  const opened = provider.openCollection({
    collectionId,
    accountId: auth.accountId,
    method: body.method,
    currency: body.currency,
    amountMinor: amount,
    phoneNumber,
    customerReference: body.customer_reference,
  });
  const expiresAt = new Date(now.getTime() + provider.collectionValidityMs);
  const collection: CollectionRecord = {
    accountId: auth.accountId,
    mode: auth.mode,
    collectionId,
    status: decision.to,
    amount,
    currency: body.currency,
    country: body.country,
    method: body.method,
    customerReference: body.customer_reference,
    phoneNumber,
    instructions: opened.instructions,
    plan: opened.plan.kind,
    challenge: opened.challenge,
    failureReason: null,
    dueAt: opened.plan.kind === 'await' ? expiresAt : new Date(now.getTime() + opened.plan.afterMs),
    expiresAt,
    receivedAt: null,
    creditedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  // A pending collection moves no money (collect-money.ts): the balance moves from its first step on.
  if ((await deps.store.collections.insertCollection(collection)) === 'duplicate') {
    // The same Idempotency-Key request after a crash: its derived id names the collection the first run created,
    // answered as a read answers it (its due steps applied: the retry may come after its expiry).
    const created = await deps.store.collections.findCollection(auth, collectionId);
    return created === undefined ? collection : advanceCollection(deps, provider, created);
  }
  return collection;
}
