/**
 * The Collect API's provider behind one interface: who shows the payer what to do, how a settlement is quoted, and
 * how each object moves on. Test mode has the deterministic simulator (rails/simulator/collect-simulator.ts); live
 * mode has no provider until credentials are issued, and every Collect call answers ERR_3010.
 */
import type { CollectCurrency, CollectionInstructions, CollectMethod } from '../../../protocol/api/collect';
import type { Mode } from '../../../protocol/ids';

/** What becomes of a collection the provider was asked to open, and when (the core applies it on its clock). */
export type PayerPlan = { kind: 'approve' | 'decline'; afterMs: number } | { kind: 'await' };

export interface OpenedCollection {
  instructions: CollectionInstructions;
  plan: PayerPlan;
  /** The secret the simulator page of this collection carries (null: no page). */
  challenge: string | null;
}

export interface SettlementQuote {
  /** Local minor units per 1 USDT, and the same as the decimal string shown. */
  rateMinorPerUsdt: number;
  rate: string;
  feeMinor: number;
}

export type SettlementPlan = { kind: 'complete' | 'fail'; afterMs: number } | { kind: 'stay' };

export interface CollectProvider {
  openCollection(input: { collectionId: string; accountId: string; method: CollectMethod; currency: CollectCurrency; amountMinor: number; phoneNumber: string | null; customerReference: string }): OpenedCollection;
  /** After a collection is received, when its value is credited to the balance. */
  readonly creditAfterMs: number;
  /** How long a collection waits for the payer. */
  readonly collectionValidityMs: number;
  quoteSettlement(currency: CollectCurrency, grossMinor: number): SettlementQuote;
  planSettlement(grossMinor: number): SettlementPlan;
  onchainReference(settlementId: string): string;
  failureReason(): string;
  /**
   * The account whose collection a page's challenge (`OpenedCollection.challenge`) was written for: the challenge
   * names it without showing it to the payer who holds the page's link. Undefined when it names none.
   */
  accountOfChallenge(challenge: string): string | undefined;
}

export interface CollectProviderRegistry {
  providerFor(mode: Mode): CollectProvider | undefined;
}
