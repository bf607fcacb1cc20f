import type { InsertResult, Scope } from '../../kernel/store-types';
import type { PendingMethodSaveRecord, StoredPaymentMethodPatch, StoredPaymentMethodRecord } from './records';

export interface StoredPaymentMethodStore {
  insertStoredPaymentMethod(method: StoredPaymentMethodRecord): Promise<InsertResult>;
  findStoredPaymentMethod(scope: Scope, paymentMethodId: string): Promise<StoredPaymentMethodRecord | undefined>;
  /** The customer's methods, newest first, at most `limit`. */
  listStoredPaymentMethodsOfCustomer(scope: Scope, customerId: string, limit: number): Promise<StoredPaymentMethodRecord[]>;
  updateStoredPaymentMethod(scope: Scope, paymentMethodId: string, patch: StoredPaymentMethodPatch): Promise<StoredPaymentMethodRecord | undefined>;
  /** Deletes the row; undefined when there was none. */
  deleteStoredPaymentMethod(scope: Scope, paymentMethodId: string): Promise<StoredPaymentMethodRecord | undefined>;
  /** Deletes every method of the customer (customer deletion); returns how many. */
  deleteStoredPaymentMethodsOfCustomer(scope: Scope, customerId: string): Promise<number>;
}

export interface PendingMethodSaveStore {
  insertPendingSave(save: PendingMethodSaveRecord): Promise<InsertResult>;
  /** Whether the payment has a pending save (a read: nothing is held). */
  hasPendingSave(scope: Scope, paymentId: string): Promise<boolean>;
  /** Deletes and returns the payment's pending save (of concurrent takers one gets it). */
  takePendingSave(scope: Scope, paymentId: string): Promise<PendingMethodSaveRecord | undefined>;
  /** Deletes the pending saves of every payment of the customer; returns how many. */
  deletePendingSavesOfCustomer(scope: Scope, customerId: string): Promise<number>;
}

export interface PaymentMethodsStores {
  storedPaymentMethods: StoredPaymentMethodStore;
  pendingMethodSaves: PendingMethodSaveStore;
}
