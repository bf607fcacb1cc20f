/**
 * REST shapes of the customer endpoints (the spec's "Customers" table and "Customer" resource) and of the ephemeral
 * keys that scope a browser to one customer (api-conventions §2). Field names follow Hyperswitch v1
 * (CustomerRequest, CustomerResponse, CustomerDeleteResponse, EphemeralKeyCreateResponse).
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { JsonObject, Metadata, PAYMENT_LIMITS, PaymentCustomerDetails } from './payments';

export { PaymentCustomerDetails };

/** Limits of the spec's Limits table for customers. */
export const CUSTOMER_LIMITS = {
  customerIdMax: PAYMENT_LIMITS.customerIdMax,
  textMax: 255,
  /** GET /customers/list page size when limit is omitted, and the largest page served (docs/open-points.md). */
  defaultListLimit: 10,
  maxListLimit: 100,
  int32Max: 2_147_483_647,
} as const;

/** customer_id: 1..64 characters (spec Limits). */
export const CustomerId = lazySchema(() => z.string().min(1).max(CUSTOMER_LIMITS.customerIdMax));

/**
 * Customer fields the caller may set (create and update); every one may be null or omitted. Made once, by the first of
 * those schemas to be built (lazySchema).
 */
function buildCustomerFields() {
  const text = z.string().max(CUSTOMER_LIMITS.textMax);
  return {
    name: text.nullish(),
    email: text.nullish(),
    phone: text.nullish(),
    phone_country_code: text.nullish(),
    description: text.nullish(),
    /** Address details (Hyperswitch AddressDetails: city, country, line1..3, zip, state, first_name, last_name). */
    address: JsonObject.nullish(),
    metadata: Metadata.nullish(),
    tax_registration_id: text.nullish(),
    document_details: JsonObject.nullish(),
  };
}
let customerFieldsBuilt: ReturnType<typeof buildCustomerFields> | undefined;
function customerFields(): ReturnType<typeof buildCustomerFields> {
  customerFieldsBuilt ??= buildCustomerFields();
  return customerFieldsBuilt;
}

/** POST /customers body. */
export const CreateCustomerRequest = lazySchema(() =>
  z
    .strictObject({ customer_id: CustomerId.unwrap().nullish(), ...customerFields() })
    .meta({ id: 'CreateCustomerRequest' }));
export type CreateCustomerRequest = z.infer<typeof CreateCustomerRequest>;

/** POST /customers/{customer_id} body: the customer fields except customer_id (refused as an unknown field). */
export const UpdateCustomerRequest = lazySchema(() =>
  z.strictObject(customerFields()).meta({ id: 'UpdateCustomerRequest' }));
export type UpdateCustomerRequest = z.infer<typeof UpdateCustomerRequest>;

/** The customer object. */
export const CustomerResponse = lazySchema(() =>
  z
    .object({
      customer_id: z.string(),
      name: z.string().nullable(),
      email: z.string().nullable(),
      phone: z.string().nullable(),
      phone_country_code: z.string().nullable(),
      description: z.string().nullable(),
      address: JsonObject.unwrap().nullable(),
      metadata: JsonObject.unwrap().nullable(),
      tax_registration_id: z.string().nullable(),
      document_details: JsonObject.unwrap().nullable(),
      created_at: z.string(),
      default_payment_method_id: z.string().nullable(),
    })
    .meta({ id: 'Customer' }));
export type CustomerResponse = z.infer<typeof CustomerResponse>;

/** DELETE /customers/{customer_id} answer. */
export const CustomerDeleteResponse = lazySchema(() =>
  z
    .object({
      customer_id: z.string(),
      customer_deleted: z.boolean(),
      address_deleted: z.boolean(),
      payment_methods_deleted: z.boolean(),
    })
    .meta({ id: 'CustomerDeleteResponse' }));
export type CustomerDeleteResponse = z.infer<typeof CustomerDeleteResponse>;

/** A non-negative int32 query parameter, as text on the wire. */
const int32Query = lazySchema(() =>
  z
    .string()
    .regex(/^\d{1,10}$/, 'must be a non-negative integer')
    .transform(Number)
    .pipe(z.int().max(CUSTOMER_LIMITS.int32Max)));

/** GET /customers/list query. */
export const ListCustomersQuery = z.strictObject({
  get offset() { return int32Query.unwrap().optional(); },
  get limit() { return int32Query.unwrap().optional(); },
});
export type ListCustomersQuery = z.infer<typeof ListCustomersQuery>;

export const ListCustomersResponse = lazySchema(() => z.array(CustomerResponse.unwrap()));

/** POST /ephemeral_keys body. */
export const CreateEphemeralKeyRequest = lazySchema(() =>
  z.strictObject({ customer_id: CustomerId.unwrap() }).meta({ id: 'CreateEphemeralKeyRequest' }));
export type CreateEphemeralKeyRequest = z.infer<typeof CreateEphemeralKeyRequest>;

/** Ephemeral key id in paths: `eki_` + 20 base62. */
export const EphemeralKeyIdParam = lazySchema(() => z.string().min(1).max(64));

/** POST /ephemeral_keys answer; `secret` is shown only here. */
export const EphemeralKeyResponse = lazySchema(() =>
  z
    .object({
      id: z.string(),
      customer_id: z.string(),
      secret: z.string(),
      created_at: z.string(),
      expires: z.string(),
    })
    .meta({ id: 'EphemeralKey' }));
export type EphemeralKeyResponse = z.infer<typeof EphemeralKeyResponse>;

/** DELETE /ephemeral_keys/{id} answer: the key without its secret. */
export const EphemeralKeyDeleteResponse = lazySchema(() =>
  z
    .object({
      id: z.string(),
      customer_id: z.string(),
      created_at: z.string(),
      expires: z.string(),
      deleted: z.boolean(),
    })
    .meta({ id: 'EphemeralKeyDeleteResponse' }));
export type EphemeralKeyDeleteResponse = z.infer<typeof EphemeralKeyDeleteResponse>;
