import { jsonEqual } from '../shared/canonical-json';
import { ApiError } from '../shared/errors';
import type { PaymentRecord } from '../../storage/payments/records';

/**
 * Fields that say how the customer pays, never what the payment charges. A browser (publishable key) may change
 * these on update and confirm; confirm also takes the recurring switches, which it refuses on its own terms.
 */
export const HOW_THE_CUSTOMER_PAYS: ReadonlySet<string> = new Set([
  'client_secret',
  'retry_action',
  'confirm',
  'payment_id',
  'payment_method_data',
  'payment_method',
  'payment_method_type',
  'payment_experience',
  'payment_token',
  'return_url',
  'setup_future_usage',
  'customer_acceptance',
  'browser_info',
  'billing',
  'shipping',
  'threeds_method_comp_ind',
  'all_keys_required',
]);

/**
 * Refuses (ERR_2003, naming the field) any body field outside `changeable` whose value differs from the stored
 * one: a caller may repeat what the payment charges, never change it.
 */
export function refuseChargeChanges(
  body: Record<string, unknown>,
  payment: PaymentRecord,
  changeable: ReadonlySet<string>,
  message: (field: string) => string,
): void {
  for (const [field, value] of Object.entries(body)) {
    if (value === undefined || changeable.has(field)) continue;
    if (!jsonEqual(value, payment.requestFields[field])) {
      throw new ApiError('ERR_2003', message(field), { fieldName: field });
    }
  }
}
