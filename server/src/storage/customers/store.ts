/** Narrow store interfaces for customers and ephemeral keys (conventions as in stores.ts). */
import type { CustomerPatch, CustomerRecord, EphemeralKeyIssuer, EphemeralKeyRecord } from './records';
import type { AccountRecord } from '../accounts/records';
import type { InsertResult, Scope } from '../../kernel/store-types';

export interface CustomerStore {
  insertCustomer(customer: CustomerRecord): Promise<InsertResult>;
  /** The customer with this id, deleted (tombstone) or not: the caller decides. */
  findCustomer(scope: Scope, customerId: string): Promise<CustomerRecord | undefined>;
  /** Customers that are not deleted, newest first (ties by customer_id). */
  listCustomers(scope: Scope, page: { offset: number; limit: number }): Promise<CustomerRecord[]>;
  /** Applies `patch` to a customer that is not deleted; undefined when there is none. */
  updateCustomer(scope: Scope, customerId: string, patch: CustomerPatch): Promise<CustomerRecord | undefined>;
  /**
   * Holds a live customer's row until the end of the transaction (a write that changes nothing) and returns it as it
   * is then; undefined when there is no live customer. A transaction that holds it waits for one that holds it first.
   */
  holdLiveCustomer(scope: Scope, customerId: string): Promise<CustomerRecord | undefined>;
  /**
   * Turns a live customer into a tombstone: every personal field (address included) cleared, deletedAt set.
   * Returns the customer as it was before, or undefined when there was no live customer (a concurrent delete lost).
   */
  markCustomerDeleted(scope: Scope, customerId: string, now: Date): Promise<CustomerRecord | undefined>;
}

export interface EphemeralKeyWithAccount {
  key: EphemeralKeyRecord;
  account: AccountRecord;
  /** The issuing API key (key.issuerKeyId); absent when there is none recorded or no row has its id. */
  issuer?: EphemeralKeyIssuer;
}

export interface EphemeralKeyStore {
  insertEphemeralKey(key: EphemeralKeyRecord): Promise<InsertResult>;
  /** The key with this secret hash, its account and its issuer's validity, in one query; expired or not (the caller checks). */
  findEphemeralKeyBySecretHash(secretHash: string): Promise<EphemeralKeyWithAccount | undefined>;
  /** Deletes one key; returns it, or undefined when there was none. */
  deleteEphemeralKey(scope: Scope, keyId: string): Promise<EphemeralKeyRecord | undefined>;
  /** Deletes every key of a customer; returns how many. */
  deleteEphemeralKeysOfCustomer(scope: Scope, customerId: string): Promise<number>;
}

/** The customers stores, as storage/stores.ts composes them into Stores. */
export interface CustomersStores {
  customers: CustomerStore;
  ephemeralKeys: EphemeralKeyStore;
}
