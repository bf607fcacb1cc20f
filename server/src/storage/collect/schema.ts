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

/** One row per (account, mode, currency), updated only by settlement requests to serialize them. */
export interface CollectBalanceLocksTable {
  account_id: string;
  mode: Mode;
  currency: string;
  version: number;
}

/** The collect tables, as storage/schema.ts composes them into the database. */
export interface CollectSchema {
  collections: CollectionsTable;
  settlements: SettlementsTable;
  collect_balance_locks: CollectBalanceLocksTable;
}
