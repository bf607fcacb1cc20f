/**
 * The Collect state machines as tables (spec "Collection and settlement"): a collection goes pending -> received ->
 * credited, or ends failed or expired; a settlement is processing from its request and ends completed or failed.
 */
import type { CollectionStatus, SettlementStatus } from '../../../../protocol/api/collect';
import { decide, type Decision, type Transition } from '../shared/transition-table';

export type CollectionTrigger = 'create' | 'payer_approved' | 'payer_declined' | 'expire' | 'credit';
export type SettlementTrigger = 'request' | 'network_confirmed' | 'network_failed';
export type CollectCondition = 'always' | 'funds_available';

export interface CollectFacts {
  /** Minor units available in the settlement's currency, and what the settlement asks for. */
  available?: bigint;
  requested?: bigint;
}

const CONDITIONS: Record<CollectCondition, (facts: CollectFacts) => boolean> = {
  always: () => true,
  funds_available: (facts) => facts.available !== undefined && facts.requested !== undefined && facts.requested <= facts.available,
};

export const COLLECTION_TRANSITIONS: readonly Transition<CollectionStatus, CollectionTrigger, CollectCondition>[] = [
  { from: null, trigger: 'create', condition: 'always', to: 'pending' },
  { from: 'pending', trigger: 'payer_approved', condition: 'always', to: 'received' },
  { from: 'pending', trigger: 'payer_declined', condition: 'always', to: 'failed' },
  { from: 'pending', trigger: 'expire', condition: 'always', to: 'expired' },
  { from: 'received', trigger: 'credit', condition: 'always', to: 'credited' },
];

export const SETTLEMENT_TRANSITIONS: readonly Transition<SettlementStatus, SettlementTrigger, CollectCondition>[] = [
  { from: null, trigger: 'request', condition: 'funds_available', to: 'processing' },
  { from: 'processing', trigger: 'network_confirmed', condition: 'always', to: 'completed' },
  { from: 'processing', trigger: 'network_failed', condition: 'always', to: 'failed' },
];

export function decideCollection(from: CollectionStatus | null, trigger: CollectionTrigger): Decision<CollectionStatus> {
  return decide({ rows: COLLECTION_TRANSITIONS, conditions: CONDITIONS }, from, trigger, {});
}

export function decideSettlement(from: SettlementStatus | null, trigger: SettlementTrigger, facts: CollectFacts = {}): Decision<SettlementStatus> {
  return decide({ rows: SETTLEMENT_TRANSITIONS, conditions: CONDITIONS }, from, trigger, facts);
}

/** The events the spec names, by the status an object reaches (spec "Events", Collect API events). */
export const COLLECTION_EVENT_FOR_STATUS: Partial<Record<CollectionStatus, string>> = {
  received: 'collection.received',
  credited: 'collection.credited',
};
export const SETTLEMENT_EVENT_FOR_STATUS: Partial<Record<SettlementStatus, string>> = {
  processing: 'settlement.processing',
  completed: 'settlement.completed',
  failed: 'settlement.failed',
};
