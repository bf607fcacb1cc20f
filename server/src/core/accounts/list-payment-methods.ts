import type { ListPaymentMethodsQuery, ListPaymentMethodsResponse } from '../../../../protocol/api/account';
import type { CardNetwork, Country, PaymentMethod, PaymentMethodType } from '../../../../protocol/api/enums';
import type { Currency } from '../../../../protocol/currency';
import { paymentIdFromClientSecret } from '../../../../protocol/ids';
import type { RailAdapter } from '../../rails/rail-adapter';
import type { PaymentRecord } from '../../storage/payments/records';
import { provisionedAdapter, RAIL_CATALOG, type RailMethodOffer } from './account-settings';
import type { RailSettings } from '../../kernel/account-settings-types';
import { authorizePaymentAccess, clientSecretMismatchOfUnknown, missingClientSecret } from '../auth/auth';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

type TypeEntry = ListPaymentMethodsResponse['payment_methods'][number]['payment_method_types'][number];

/** Filters that decide which rails and method types are listed. */
interface ListFilters {
  currencies: readonly Currency[] | undefined;
  countries: readonly Country[] | undefined;
  amounts: readonly number[];
  recurringEnabled: boolean | undefined;
  installmentPaymentEnabled: boolean | undefined;
  cardNetworks: readonly CardNetwork[] | undefined;
  allowedTypes: readonly PaymentMethodType[] | undefined;
}

/**
 * GET /account/payment_methods (secret key, or publishable key with a client_secret). Lists what the account's
 * rails offer in the key's mode, as data (RAIL_CATALOG and the account's rail settings), keeping only what the
 * rail's adapter in this mode takes (a listed method is confirmable): a rail not provisioned in the mode
 * (provisionedModes) is not listed, and a card type lists only the networks the acquirer takes. Query filters
 * narrow it: accepted_currencies, accepted_countries, amount (the rail's amount bounds), recurring_enabled and
 * installment_payment_enabled (the rail's capability must equal the value given), card_networks (card types only). With a client_secret the
 * payment's currency, amount and allowed_payment_method_types apply too. `limit` (last-used stored methods) does
 * not narrow a merchant list.
 */
export async function listPaymentMethods(
  deps: CoreDeps,
  auth: AuthContext,
  query: ListPaymentMethodsQuery,
): Promise<ListPaymentMethodsResponse> {
  const payment = await paymentOfClientSecret(deps, auth, query.client_secret);

  const requestedCurrencies = merged(query.accepted_currencies, query['accepted_currencies[]']);
  const filters: ListFilters = {
    currencies: payment === undefined ? requestedCurrencies : (requestedCurrencies ?? [payment.currency]).filter((c) => c === payment.currency),
    countries: merged(query.accepted_countries, query['accepted_countries[]']),
    amounts: [payment?.amount, query.amount].filter((amount): amount is number => amount !== undefined),
    recurringEnabled: query.recurring_enabled,
    installmentPaymentEnabled: query.installment_payment_enabled,
    cardNetworks: merged(query.card_networks, query['card_networks[]']),
    allowedTypes: payment?.requestFields['allowed_payment_method_types'] as PaymentMethodType[] | undefined,
  };

  const byMethod = new Map<PaymentMethod, Map<PaymentMethodType, TypeEntry>>();
  for (const rail of auth.account.settings.rails) {
    if (!railQualifies(auth, rail, filters)) continue;
    // A rail not provisioned in this mode ("ready to switch on") is not listed: confirm would answer ERR_3010.
    const adapter = provisionedAdapter(rail, deps.rails, auth.mode);
    if (adapter === undefined) continue;
    for (const currency of rail.currencies) {
      if (filters.currencies !== undefined && !filters.currencies.includes(currency)) continue;
      const taken = adapter.paymentMethodTypes(currency);
      for (const offer of RAIL_CATALOG[rail.rail].methods) {
        if (!taken.some((entry) => entry.paymentMethod === offer.paymentMethod && entry.paymentMethodType === offer.paymentMethodType)) continue;
        if (filters.allowedTypes !== undefined && !filters.allowedTypes.includes(offer.paymentMethodType)) continue;
        const entry = typeEntry(offer, adapter, filters.cardNetworks);
        if (entry === undefined) continue;
        const types = byMethod.get(offer.paymentMethod) ?? new Map<PaymentMethodType, TypeEntry>();
        if (!types.has(offer.paymentMethodType)) types.set(offer.paymentMethodType, entry);
        byMethod.set(offer.paymentMethod, types);
      }
    }
  }

  return {
    redirect_url: payment?.returnUrl ?? null,
    currency: payment?.currency ?? null,
    payment_methods: [...byMethod].map(([paymentMethod, types]) => ({ payment_method: paymentMethod, payment_method_types: [...types.values()] })),
    mandate_payment: null,
    merchant_name: auth.account.settings.merchantName,
    checkout_branding: null,
    payment_method_order: null,
    show_surcharge_breakup_screen: false,
    payment_type: payment === undefined ? null : paymentType(payment),
    request_external_three_ds_authentication: payment?.requestFields['request_external_three_ds_authentication'] === true,
    collect_shipping_details_from_wallets: false,
    collect_billing_details_from_wallets: false,
    is_tax_calculation_enabled: false,
    sdk_next_action: payment === undefined ? null : { next_action: 'confirm' },
    is_guest_customer: payment === undefined ? null : payment.customerId === null,
    intent_data: null,
    card_checkout_config: null,
  };
}

/** The payment a client_secret names. A publishable key needs one (ERR_2001); a secret key must not send one (ERR_1007). */
async function paymentOfClientSecret(deps: CoreDeps, auth: AuthContext, clientSecret: string | undefined): Promise<PaymentRecord | undefined> {
  if (clientSecret === undefined && auth.keyKind !== 'publishable') return undefined;
  if (clientSecret === undefined) throw missingClientSecret();
  const paymentId = paymentIdFromClientSecret(clientSecret);
  const payment = paymentId === undefined ? undefined : await deps.store.payments.findPayment(auth, paymentId);
  if (payment === undefined) {
    if (auth.keyKind === 'secret') {
      throw new ApiError('ERR_1007', 'client_secret must not be sent with a secret key; server-side calls do not carry it.', {
        fieldName: 'client_secret',
      });
    }
    throw clientSecretMismatchOfUnknown(paymentId ?? '', clientSecret);
  }
  authorizePaymentAccess(auth, payment, clientSecret, deps.clock.now());
  return payment;
}

function railQualifies(auth: AuthContext, rail: RailSettings, filters: ListFilters): boolean {
  if (!rail.modes.includes(auth.mode)) return false;
  const catalog = RAIL_CATALOG[rail.rail];
  if (filters.countries !== undefined && catalog.countries !== null && !catalog.countries.some((c) => filters.countries?.includes(c))) {
    return false;
  }
  if (filters.recurringEnabled !== undefined && rail.capabilities[auth.mode].recurring !== filters.recurringEnabled) return false;
  if (filters.installmentPaymentEnabled !== undefined && catalog.installments !== filters.installmentPaymentEnabled) return false;
  return filters.amounts.every(
    (amount) => (rail.minimumAmount === undefined || amount >= rail.minimumAmount) && (rail.maximumAmount === undefined || amount <= rail.maximumAmount),
  );
}

/**
 * The list entry of one offer. A card type lists the catalog's networks that the acquirer takes (the adapter's
 * cardNetworks, when it declares them), narrowed by a card_networks filter; undefined when none is left.
 */
function typeEntry(offer: RailMethodOffer, adapter: RailAdapter, networksWanted: readonly CardNetwork[] | undefined): TypeEntry | undefined {
  const connector = adapter.connector;
  let networks = offer.cardNetworks;
  if (networks !== null) {
    const taken = adapter.cardNetworks;
    networks = networks.filter((network) => (taken === undefined || taken.includes(network)) && (networksWanted === undefined || networksWanted.includes(network)));
    if (networks.length === 0) return undefined;
  }
  return {
    payment_method_type: offer.paymentMethodType,
    payment_experience:
      offer.paymentExperience.length === 0
        ? null
        : offer.paymentExperience.map((experience) => ({ payment_experience_type: experience, eligible_connectors: [connector] })),
    card_networks:
      networks === null ? null : networks.map((network) => ({ card_network: network, surcharge_details: null, eligible_connectors: [connector] })),
    bank_names: null,
    required_fields: offer.requiredFields,
  };
}

/** payment_type as sent at create, else derived as Hyperswitch does: zero amount off-session is a setup mandate. */
function paymentType(payment: PaymentRecord): NonNullable<ListPaymentMethodsResponse['payment_type']> {
  const sent = payment.requestFields['payment_type'];
  if (typeof sent === 'string') return sent as NonNullable<ListPaymentMethodsResponse['payment_type']>;
  if (payment.setupFutureUsage === 'off_session') return payment.amount === 0 ? 'setup_mandate' : 'new_mandate';
  return 'normal';
}

function merged<T>(plain: readonly T[] | undefined, bracketed: readonly T[] | undefined): readonly T[] | undefined {
  return plain === undefined && bracketed === undefined ? undefined : [...(plain ?? []), ...(bracketed ?? [])];
}
