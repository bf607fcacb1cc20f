import type { CollectCountry, CollectCurrency, CollectionInstructions, CollectionStatus, CollectMethod, SettlementStatus, UsdtNetwork } from '../../../../protocol/api/collect';
import type { Scope } from '../../kernel/store-types';

/** What the simulator (or a provider) will do with a collection when `dueAt` comes. */
export type CollectionPlan = 'approve' | 'decline' | 'await';

export interface CollectionRecord extends Scope {
  collectionId: string;
  status: CollectionStatus;
  /** Minor units of `currency`. */
  amount: number;
  currency: CollectCurrency;
  country: CollectCountry;
  method: CollectMethod;
  customerReference: string;
  phoneNumber: string | null;
  instructions: CollectionInstructions;
  plan: CollectionPlan;
  /** The secret the simulator page carries (null when there is no page). */
  challenge: string | null;
  failureReason: string | null;
  /** When the next time-driven step is due (the payer's answer, the credit, the expiry); null: none. */
  dueAt: Date | null;
  expiresAt: Date;
  receivedAt: Date | null;
  creditedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type CollectionPatch = Partial<Pick<CollectionRecord, 'status' | 'failureReason' | 'dueAt' | 'receivedAt' | 'creditedAt' | 'updatedAt'>>;

export type SettlementPlanKind = 'complete' | 'fail' | 'stay';

export interface SettlementRecord extends Scope {
  settlementId: string;
  status: SettlementStatus;
  currency: CollectCurrency;
  /** Minor units of `currency`. */
  grossAmount: number;
  fee: number;
  rate: string;
  rateMinorPerUsdt: number;
  rateTime: Date;
  /** Millionths of a USDT. */
  netUsdtMicro: bigint;
  walletNetwork: UsdtNetwork;
  walletAddress: string;
  plan: SettlementPlanKind;
  onchainReference: string | null;
  failureReason: string | null;
  dueAt: Date | null;
  completedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type SettlementPatch = Partial<Pick<SettlementRecord, 'status' | 'onchainReference' | 'failureReason' | 'dueAt' | 'completedAt' | 'updatedAt'>>;

/** Minor units of one currency per bucket of its balance (a balance as stored, or a move of it). */
export interface BalanceBuckets {
  /** Credited and neither held nor settled. BigInt: balances can pass 2^53. */
  available: bigint;
  /** Received from payers, not credited yet. */
  pending: bigint;
  /** Reserved by settlements in progress. */
  held: bigint;
}

/** The stored balance of one currency of an account and mode. */
export interface CollectBalance extends BalanceBuckets {
  currency: CollectCurrency;
}
