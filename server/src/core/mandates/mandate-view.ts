import { CustomerAcceptance } from '../../../../protocol/api/customer-acceptance';
import type { MandateResponse } from '../../../../protocol/api/mandates';
import type { MandateRecord } from '../../storage/mandates/records';

/**
 * The acceptance a mandate recorded, as shown: null for one recorded before acceptances were validated that is not
 * one (a string, {}, online without its online block). The row keeps what it recorded.
 */
function shownAcceptance(recorded: unknown): CustomerAcceptance | null {
  const parsed = CustomerAcceptance.safeParse(recorded);
  return parsed.success ? parsed.data : null;
}

export function toMandateResponse(mandate: MandateRecord): MandateResponse {
  return {
    mandate_id: mandate.mandateId,
    status: mandate.status,
    payment_method_id: mandate.paymentMethodId,
    payment_method: mandate.paymentMethod,
    payment_method_type: mandate.paymentMethodType,
    card:
      mandate.card === null
        ? null
        : {
            last4_digits: mandate.card.last4,
            card_exp_month: mandate.card.expMonth,
            card_exp_year: mandate.card.expYear,
            card_holder_name: mandate.card.holderName,
            card_network: mandate.card.cardNetwork,
            scheme: mandate.card.cardNetwork,
          },
    customer_acceptance: shownAcceptance(mandate.customerAcceptance),
    customer_id: mandate.customerId,
    created_at: mandate.createdAt.toISOString(),
    revoked_at: mandate.revokedAt?.toISOString() ?? null,
  };
}
