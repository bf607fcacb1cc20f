/**
 * The customer side of payments: a customer_id that names no customer creates that customer in the transaction
 * of the payment insert (api-conventions §6, as Hyperswitch does), and retrieve shows the payment's `customer`.
 */
import { CUSTOMER_LIMITS, type PaymentCustomerDetails } from '../../../../protocol/api/customers';
import type { JsonObject } from '../../../../protocol/api/payments';
import type { CustomerRecord } from '../../storage/customers/records';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { PaymentPatch, PaymentRecord } from '../../storage/payments/records';
import type { Stores } from '../../storage/stores';
import { toPaymentCustomerDetails } from '../customers/customer-view';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { deletedCustomerIdError } from '../customers/find-live-customer';

/** Fields of the payment's `customer` object used when the customer is created (Hyperswitch CustomerDetails). */
interface NewCustomerDetails {
  name: string | null;
  email: string | null;
  phone: string | null;
  phoneCountryCode: string | null;
}

const DETAIL_FIELDS = { name: 'name', email: 'email', phone: 'phone', phone_country_code: 'phoneCountryCode' } as const;

/**
 * Reads the create body's `customer` object: `id` must equal customer_id when both are sent; name, email, phone
 * and phone_country_code are strings of at most 255 characters. Other members are ignored. ERR_2003 names the
 * member at fault.
 */
function readCustomerDetails(customerId: string, customer: JsonObject | undefined): NewCustomerDetails {
  const details: NewCustomerDetails = { name: null, email: null, phone: null, phoneCountryCode: null };
  if (customer === undefined) return details;
  const id = customer['id'];
  if (id !== undefined && id !== null && id !== customerId) {
    throw new ApiError('ERR_2003', 'customer.id must equal customer_id.', { fieldName: 'customer.id' });
  }
  for (const [wire, field] of Object.entries(DETAIL_FIELDS) as [keyof typeof DETAIL_FIELDS, keyof NewCustomerDetails][]) {
    const value = customer[wire];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || value.length > CUSTOMER_LIMITS.textMax) {
      throw new ApiError('ERR_2003', `customer.${wire} must be a string of at most ${CUSTOMER_LIMITS.textMax} characters.`, {
        fieldName: `customer.${wire}`,
      });
    }
    details[field] = value;
  }
  return details;
}

/** Creates the customer when none has this id; refuses the id of a deleted customer (ERR_4020). */
async function ensureCustomer(tx: Stores, scope: Scope, customerId: string, details: NewCustomerDetails, now: Date): Promise<void> {
  const existing = await tx.customers.findCustomer(scope, customerId);
  if (existing === undefined) {
    const customer: CustomerRecord = {
      accountId: scope.accountId,
      mode: scope.mode,
      customerId,
      ...details,
      description: null,
      address: null,
      metadata: null,
      taxRegistrationId: null,
      documentDetails: null,
      defaultPaymentMethodId: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    if ((await tx.customers.insertCustomer(customer)) === 'inserted') return;
    const raced = await tx.customers.findCustomer(scope, customerId);
    if (raced?.deletedAt != null) throw deletedCustomerIdError(customerId);
    return;
  }
  if (existing.deletedAt !== null) throw deletedCustomerIdError(customerId);
}

/**
 * Inserts a new payment and, in the same transaction, the customer its customer_id names when there is none yet.
 * Returns the payment insert's result; a duplicate payment creates no customer.
 */
export async function insertPaymentWithCustomer(
  deps: CoreDeps,
  payment: PaymentRecord,
  customer: JsonObject | undefined,
): Promise<InsertResult> {
  const customerId = payment.customerId;
  if (customerId === null) return deps.store.payments.insertPayment(payment);
  const details = readCustomerDetails(customerId, customer);
  return deps.store.transaction(async (tx) => {
    const inserted = await tx.payments.insertPayment(payment);
    if (inserted === 'inserted') await ensureCustomer(tx, payment, customerId, details, payment.createdAt);
    return inserted;
  });
}

/**
 * Applies an update's patch to a payment still in one of `expectedStatuses` and, when the patch names a customer, in
 * the same transaction creates that customer if there is none yet (a deleted customer's id: ERR_4020, nothing
 * changes), as the create does. Returns the updated payment, or undefined when its status moved meanwhile.
 */
export async function updatePaymentWithCustomer(
  deps: CoreDeps,
  scope: Scope,
  paymentId: string,
  expectedStatuses: readonly PaymentRecord['status'][],
  patch: PaymentPatch,
  customer: JsonObject | undefined,
): Promise<PaymentRecord | undefined> {
  const customerId = patch.customerId;
  if (customerId == null) return deps.store.payments.updatePaymentIfStatus(scope, paymentId, expectedStatuses, patch);
  const details = readCustomerDetails(customerId, customer);
  return deps.store.transaction(async (tx) => {
    await ensureCustomer(tx, scope, customerId, details, patch.updatedAt);
    return tx.payments.updatePaymentIfStatus(scope, paymentId, expectedStatuses, patch);
  });
}

/**
 * In the caller's transaction, the customer an update's customer_id names, created when there is none yet (a deleted
 * customer's id: ERR_4020), as updatePaymentWithCustomer does; for an update written by a confirm's claim.
 */
export async function ensurePaymentCustomer(tx: Stores, scope: Scope, customerId: string, customer: JsonObject | undefined, now: Date): Promise<void> {
  await ensureCustomer(tx, scope, customerId, readCustomerDetails(customerId, customer), now);
}

/** The payment's `customer` object: null without a customer_id or when the customer was deleted. */
export async function paymentCustomerDetails(deps: CoreDeps, payment: PaymentRecord): Promise<PaymentCustomerDetails | null> {
  if (payment.customerId === null) return null;
  const customer = await deps.store.customers.findCustomer(payment, payment.customerId);
  return customer === undefined || customer.deletedAt !== null ? null : toPaymentCustomerDetails(customer);
}
