/**
 * Narrow store interfaces the core depends on. Each family declares its own in <family>/store.ts; this file
 * composes them. One SQL implementation (storage/sql-store.ts) runs them on SQLite and PostgreSQL. Finders return
 * `T | undefined`; the core decides what "not found" means. Inserts report a duplicate key as a value, not an
 * exception, so callers never parse driver errors.
 */
import type { AccountsStores } from './accounts/store';
import type { CollectStores } from './collect/store';
import type { CustomersStores } from './customers/store';
import type { EventsStores } from './events/store';
import type { IdempotencyStores } from './idempotency/store';
import type { PaymentsStores } from './payments/store';
import type { RefundsStores } from './refunds/store';
import type { VaultStores } from './vault/store';
import type { DisputesStores } from './disputes/store';
import type { FilesStores } from './files/store';
import type { RecoveryStores } from './recovery/store';
import type { PaymentMethodsStores } from './payment-methods/store';
import type { MandatesStores } from './mandates/store';
import type { SubscriptionsStores } from './subscriptions/store';
import type { OperatorsStores } from './operators/store';
import type { WebhookEndpointsStores } from './webhook-endpoints/store';
import type { RateLimitsStores } from './rate-limits/store';
import type { Committed } from './database';

/** The stores usable inside one transaction: one line per family. */
export interface Stores
  extends AccountsStores,
    PaymentsStores,
    EventsStores,
    CustomersStores,
    RefundsStores,
    IdempotencyStores,
    VaultStores,
    DisputesStores,
    FilesStores,
    CollectStores,
    RecoveryStores,
    PaymentMethodsStores,
    MandatesStores,
    SubscriptionsStores,
    OperatorsStores,
    WebhookEndpointsStores,
    RateLimitsStores {}

/** The whole store: the stores plus transactions and lifecycle. */
export interface Store extends Stores {
  readonly engine: 'sqlite' | 'postgres';
  /** Runs `work` in one database transaction: all its writes commit together or not at all. */
  transaction<T>(work: (tx: Stores) => Promise<T>): Promise<T>;
  /**
   * transaction(), resolving once `work` has committed (every later statement sees its writes) rather than once
   * they are durable: `durable` says when (at once on PostgreSQL; after the sync that covers it on SQLite). For a
   * write that a later durable write covers, or whose caller awaits `durable` before it acknowledges anything.
   */
  transactionDurableLater<T>(work: (tx: Stores) => Promise<T>): Promise<Committed<T>>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
