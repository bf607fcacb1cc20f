import type { ListPaymentMethodsQuery, ListPaymentMethodsResponse } from '../../../protocol/api/account';
import type { PaymentMethod, PaymentMethodType } from '../../../protocol/api/enums';
import { authorizePaymentAccess, requireKeyKind, type AuthContext } from './auth';
import type { CoreDeps } from './deps';
import { ApiError } from './errors';
import { provisionedAdapter } from './account-settings';
import { paymentIdFromClientSecret } from '../../../protocol/ids';

/**
 * GET /account/payment_methods. With a publishable key and a client_secret it lists the methods the account's
 * rails (with an adapter in this mode) offer for that payment's currency, narrowed by the payment's
 * allowed_payment_method_types. With a secret key it lists every method the account offers in this mode.
 */
export async function listPaymentMethods(
  deps: CoreDeps,
  auth: AuthContext,
  query: ListPaymentMethodsQuery,
): Promise<ListPaymentMethodsResponse> {
  requireKeyKind(auth, ['secret', 'publishable']);
  let currency: ListPaymentMethodsResponse['currency'] = null;
  let redirectUrl: string | null = null;
  let allowed: readonly PaymentMethodType[] | undefined;
  if (query.client_secret !== undefined || auth.keyKind === 'publishable') {
    if (query.client_secret === undefined) {
      throw new ApiError('ERR_2001', 'client_secret is required with a publishable key.', { fieldName: 'client_secret' });
    }
    const paymentId = paymentIdFromClientSecret(query.client_secret);
    const payment = paymentId === undefined ? undefined : await deps.store.payments.findPayment(auth, paymentId);
    if (payment === undefined) {
      throw new ApiError('ERR_1005', 'client_secret does not belong to a payment of this account and mode.', { fieldName: 'client_secret' });
    }
    authorizePaymentAccess(auth, payment, query.client_secret, deps.clock.now(), true);
    currency = payment.currency;
    redirectUrl = payment.returnUrl;
    allowed = payment.requestFields['allowed_payment_method_types'] as PaymentMethodType[] | undefined;
  }

  // payment method -> type -> card networks (card rails) or null.
  const byMethod = new Map<PaymentMethod, Map<PaymentMethodType, { network: string; connector: string }[] | null>>();
  for (const rail of auth.account.settings.rails) {
    if (!rail.modes.includes(auth.mode)) continue;
    const adapter = provisionedAdapter(rail, deps.rails, auth.mode);
    if (adapter === undefined) continue;
    for (const railCurrency of rail.currencies) {
      if (currency !== null && railCurrency !== currency) continue;
      for (const entry of adapter.paymentMethodTypes(railCurrency)) {
        if (allowed !== undefined && !allowed.includes(entry.paymentMethodType)) continue;
        const types = byMethod.get(entry.paymentMethod) ?? new Map();
        const networks = adapter.cardNetworks?.map((network) => ({ network, connector: adapter.connector })) ?? null;
        types.set(entry.paymentMethodType, networks);
        byMethod.set(entry.paymentMethod, types);
      }
    }
  }

  return {
    redirect_url: redirectUrl,
    currency,
    payment_methods: [...byMethod].map(([paymentMethod, types]) => ({
      payment_method: paymentMethod,
      payment_method_types: [...types].map(([paymentMethodType, networks]) => ({
        payment_method_type: paymentMethodType,
        payment_experience: null,
        // Hyperswitch's CardNetworkTypes shape.
        card_networks:
          networks === null
            ? null
            : networks.map(({ network, connector }) => ({ card_network: network, surcharge_details: null, eligible_connectors: [connector] })),
        bank_names: null,
        required_fields: null,
      })),
    })),
    mandate_payment: null,
    merchant_name: auth.account.settings.merchantName,
    show_surcharge_breakup_screen: false,
    payment_type: currency === null ? null : 'normal',
    request_external_three_ds_authentication: false,
    collect_shipping_details_from_wallets: false,
    collect_billing_details_from_wallets: false,
    is_tax_calculation_enabled: false,
    is_guest_customer: null,
    sdk_next_action: null,
    payment_method_order: null,
  };
}
