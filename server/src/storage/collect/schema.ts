import type { CollectCountry, CollectCurrency, CollectionStatus, CollectMethod, SettlementStatus } from '../../../../protocol/api/collect';
import type { Mode } from '../../../../protocol/ids';

export interface CollectionsTable {
  account_id: string;
  mode: Mode;
  collection_id: string;
  status: CollectionStatus;
  amount: number;
  currency: CollectCurrency;
  country: CollectCountry;
  method: CollectMethod;
  customer_reference: string;
  phone_number: string | null;
  instructions: string;
  plan: string;
  challenge: string | null;
  failure_reason: string | null;
  due_at: string | null;
  expires_at: string;
  received_at: string | null;
  credited_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface SettlementsTable {
  account_id: string;
  mode: Mode;
  settlement_id: string;
  status: SettlementStatus;
  currency: CollectCurrency;
  gross_amount: number;
  fee: number;
  rate: string;
  rate_minor_per_usdt: number;
  rate_time: string;
  /** Millionths of a USDT, as text: exact beyond 2^53. */
  net_usdt_micro: string;
  wallet_network: string;
  wallet_address: string;
  plan: string;
  onchain_reference: string | null;
  failure_reason: string | null;
  due_at: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * The folded balance of one (account, mode, currency), in minor units per bucket (core/collect/collect-money.ts): the
 * sum of the deltas folded into it so far. Written only by a fold (a settlement request, the background sweep), which
 * locks it; status changes never update it, they insert a delta. BIGINT columns, written and read through text (exact
 * past 2^53 on both engines).
 */
export interface CollectBalancesTable {
  account_id: string;
  mode: Mode;
  currency: CollectCurrency;
  available: string;
  pending: string;
  held: string;
}

/**
 * What one status change of a collection or settlement moved, not folded into collect_balances yet: inserted in the
 * transaction of the change, deleted by the fold that adds it to the balance. `delta_id` names the change (the
 * object's id and the status it reached), unique per account and mode.
 */
export interface CollectBalanceDeltasTable {
  account_id: string;
  mode: Mode;
  currency: CollectCurrency;
  delta_id: string;
  available: string;
  pending: string;
  held: string;
}

/** The collect tables, as storage/schema.ts composes them into the database. */
export interface CollectSchema {
  collections: CollectionsTable;
  settlements: SettlementsTable;
  collect_balances: CollectBalancesTable;
  collect_balance_deltas: CollectBalanceDeltasTable;
}
