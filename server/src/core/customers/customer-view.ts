import type { CustomerResponse, PaymentCustomerDetails } from '../../../../protocol/api/customers';
import type { CustomerRecord } from '../../storage/customers/records';

/** The customer object as the API returns it (Hyperswitch CustomerResponse names). */
export function toCustomerResponse(customer: CustomerRecord): CustomerResponse {
  return {
    customer_id: customer.customerId,
    name: customer.name,
    email: customer.email,
    phone: customer.phone,
    phone_country_code: customer.phoneCountryCode,
    description: customer.description,
    address: customer.address,
    metadata: customer.metadata,
    tax_registration_id: customer.taxRegistrationId,
    document_details: customer.documentDetails,
    created_at: customer.createdAt.toISOString(),
    default_payment_method_id: customer.defaultPaymentMethodId,
  };
}

/** The payment's `customer` object (Hyperswitch CustomerDetailsResponse). */
export function toPaymentCustomerDetails(customer: CustomerRecord): PaymentCustomerDetails {
  return {
    id: customer.customerId,
    name: customer.name,
    email: customer.email,
    phone: customer.phone,
    phone_country_code: customer.phoneCountryCode,
  };
}
