/**
 * Recurring today (spec "Behaviour of groups that are not live today", rule 3): no enabled rail stores an instrument
 * for later charges, so no mandate is ever created (mandate_id stays null) and an off-session charge is refused.
 * Where an account switches recurring on, core/mandates/stored-charge.ts resolves the instrument instead.
 */
import { ApiError } from '../shared/errors';

/** The request fields that make a confirm an off-session (merchant-initiated) charge. */
export interface OffSessionFields {
  off_session?: unknown;
  mandate_id?: unknown;
  recurring_details?: unknown;
}

/**
 * Refuses an off-session charge with ERR_4088: off_session true, a mandate_id, or recurring_details. A first
 * payment that only asks to set up future usage (setup_future_usage, mandate_data, a zero-amount setup) is not one.
 */
export function refuseOffSessionCharge(fields: OffSessionFields): void {
  const field =
    fields.mandate_id != null
      ? 'mandate_id'
      : fields.recurring_details != null
        ? 'recurring_details'
        : fields.off_session === true
          ? 'off_session'
          : undefined;
  if (field === undefined) return;
  throw new ApiError('ERR_4088', 'Off-session charge without a usable mandate: no enabled rail supports recurring, so no mandate exists to charge.', {
    fieldName: field,
  });
}

/** Whether a create body charges a saved instrument (so create with confirm: true confirms without payment_method_data). */
export function asksForSavedInstrument(fields: OffSessionFields & { payment_token?: unknown; payment_method_data?: unknown }): boolean {
  return fields.mandate_id != null || fields.recurring_details != null || (fields.payment_token != null && fields.payment_method_data == null);
}
