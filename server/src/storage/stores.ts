/**
 * Narrow store interfaces the core depends on. One SQL implementation (storage/sql-store.ts) runs them on SQLite
 * and PostgreSQL. Finders return `T | undefined`; the core decides what "not found" means. Inserts report a
 * duplicate key as a value, not an exception, so callers never parse driver errors.
 */
import type { PaymentStatus } from '../../../protocol/payments';
import type {
  AccountRecord,
  ApiKeyRecord,
  InsertResult,
  OperatorRecord,
  OutboxEventRecord,
  PaymentPatch,
  PaymentRecord,
  ProfileRecord,
  Scope,
  IdempotencyKeyRecord,
  IdempotencyScope,
  StoredResponse,
  VaultTokenRecord,
} from './records';
import type { AccountSettings } from '../kernel/account-settings-types';
import type { CustomerStore, EphemeralKeyStore } from './customers/store';
import type { PaymentAttemptStore, PaymentListStore } from './payments/store';
import type { RefundStatus } from '../../../protocol/api/refunds';
import type { RefundFilter, RefundPage, RefundPatch, RefundRecord } from './refunds/records';
import type { WebhookStore } from './events/store';

export interface AccountStore {
  insertAccount(account: AccountRecord): Promise<InsertResult>;
  findAccountBySlug(slug: string): Promise<AccountRecord | undefined>;
  updateAccountSettings(accountId: string, settings: AccountSettings): Promise<void>;
}

export interface ProfileStore {
  insertProfile(profile: ProfileRecord): Promise<InsertResult>;
  findDefaultProfile(accountId: string): Promise<ProfileRecord | undefined>;
  findProfile(accountId: string, profileId: string): Promise<ProfileRecord | undefined>;
}

export interface ApiKeyStore {
  insertApiKey(key: ApiKeyRecord): Promise<InsertResult>;
  /** The key with this hash and its account, whatever its revocation state (the caller checks). */
  findApiKeyByHash(keyHash: string): Promise<{ key: ApiKeyRecord; account: AccountRecord } | undefined>;
  /** True when the account has an unrevoked, unexpired key of this mode. */
  hasUsableKeys(scope: Scope, now: Date): Promise<boolean>;
}

export interface OperatorStore {
  insertOperator(operator: OperatorRecord): Promise<InsertResult>;
  countOperators(accountId: string): Promise<number>;
}

export interface PaymentStore {
  insertPayment(payment: PaymentRecord): Promise<InsertResult>;
  findPayment(scope: Scope, paymentId: string): Promise<PaymentRecord | undefined>;
  /**
   * Applies `patch` only if the payment's status is one of `expectedStatuses` (a conditional UPDATE), and returns
   * the updated payment, or undefined when the payment was not in an expected status. This is what makes
   * concurrent confirms yield exactly one winner.
   */
  updatePaymentIfStatus(
    scope: Scope,
    paymentId: string,
    expectedStatuses: readonly PaymentStatus[],
    patch: PaymentPatch,
  ): Promise<PaymentRecord | undefined>;
}

export interface OutboxStore {
  /** Writes an event; a second event for the same (object, event type) is a duplicate and is not written. */
  insertEvent(event: OutboxEventRecord): Promise<InsertResult>;
  listEventsForObject(scope: Scope, objectId: string): Promise<OutboxEventRecord[]>;
}

export interface RefundStore {
  insertRefund(refund: RefundRecord): Promise<InsertResult>;
  findRefund(scope: Scope, refundId: string): Promise<RefundRecord | undefined>;
  /** Applies `patch` (only if the refund's status is one of `expectedStatuses`, when given); undefined if not applied. */
  updateRefund(
    scope: Scope,
    refundId: string,
    patch: RefundPatch,
    expectedStatuses?: readonly RefundStatus[],
  ): Promise<RefundRecord | undefined>;
  /** One page of refunds, newest first, and the number of all matches. */
  listRefunds(scope: Scope, filter: RefundFilter): Promise<RefundPage>;
  /** The sum of the payment's non-failed refunds (kept on the payment row), or undefined if no such payment. */
  findRefundedAmount(scope: Scope, paymentId: string): Promise<number | undefined>;
  /**
   * Adds `amount` to the payment's refunded sum only if the payment is in one of `refundableStatuses` and the new
   * sum stays <= amount_received (one conditional UPDATE of the payment row). False when it did not fit: of
   * concurrent reservations that together exceed the captured amount, only those that fit succeed.
   */
  reserveRefundAmount(scope: Scope, paymentId: string, amount: number, refundableStatuses: readonly PaymentStatus[]): Promise<boolean>;
  /** Gives back a reservation (the refund failed). */
  releaseRefundAmount(scope: Scope, paymentId: string, amount: number): Promise<void>;
}

export interface IdempotencyStore {
  /** Claims a key: inserts the in-flight row, or reports that a row for the key already exists. */
  insertClaim(record: IdempotencyKeyRecord): Promise<InsertResult>;
  findKey(scope: IdempotencyScope, key: string): Promise<IdempotencyKeyRecord | undefined>;
  /**
   * Takes over an existing row (a conditional UPDATE): only when it has expired (`expires_at <= now`) or is an
   * in-flight claim whose lease ran out (`locked_at <= leaseCutoff`). True when this caller won the row.
   */
  reclaim(record: IdempotencyKeyRecord, leaseCutoff: Date): Promise<boolean>;
  /** Stores the response of the claim holding `claimToken`; false when the claim was taken over meanwhile. */
  complete(scope: IdempotencyScope, key: string, claimToken: string, response: StoredResponse): Promise<boolean>;
  /** Drops the claim holding `claimToken` (the request ended in a 5xx: a retry runs it again). */
  release(scope: IdempotencyScope, key: string, claimToken: string): Promise<void>;
  /** Deletes rows past their expiry; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}

export interface VaultTokenStore {
  insertToken(token: VaultTokenRecord): Promise<InsertResult>;
  findToken(scope: Scope, tokenId: string): Promise<VaultTokenRecord | undefined>;
  /**
   * Marks the token used and deletes its card and CVC ciphertexts, only if it is unused and unexpired at `now` (a
   * conditional UPDATE): of several concurrent calls exactly one gets true. The caller has read the row before.
   */
  markTokenUsed(scope: Scope, tokenId: string, now: Date): Promise<boolean>;
  /** Deletes the ciphertexts of every token expired at `now` (the rows stay, holding no card data); returns how many. */
  wipeExpiredTokens(now: Date): Promise<number>;
}

/** The stores usable inside one transaction. */
export interface Stores {
  accounts: AccountStore;
  profiles: ProfileStore;
  apiKeys: ApiKeyStore;
  operators: OperatorStore;
  payments: PaymentStore;
  outbox: OutboxStore;
  customers: CustomerStore;
  ephemeralKeys: EphemeralKeyStore;
  /** Payment attempts (one per confirm) and the payments list: payment-ops-stores.ts. */
  attempts: PaymentAttemptStore;
  paymentList: PaymentListStore;
  refunds: RefundStore;
  webhooks: WebhookStore;
  idempotency: IdempotencyStore;
  vaultTokens: VaultTokenStore;
}

/** The whole store: the stores plus transactions and lifecycle. */
export interface Store extends Stores {
  readonly engine: 'sqlite' | 'postgres';
  /** Runs `work` in one database transaction: all its writes commit together or not at all. */
  transaction<T>(work: (tx: Stores) => Promise<T>): Promise<T>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
