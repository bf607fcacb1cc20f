/**
 * What an account may do: its rails, their currencies, modes and capabilities, as data (api-conventions §8), never
 * as scattered branches. The default matches the spec's Rails table and "Behaviour of groups that are not live
 * today"; RAIL_ACCOUNT_CONFIG can switch capabilities on for test accounts.
 */
import type { Mode } from '../../../../protocol/ids';
import type { CaptureMethod, JsonObject } from '../../../../protocol/api/payments';
import { CARD_NETWORKS, type CardNetwork, type Country, type PaymentExperience, type PaymentMethod, type PaymentMethodType } from '../../../../protocol/api/enums';
import type { RailAdapter, RailRegistry } from '../../rails/rail-adapter';
import type { AccountSettings, RailCapabilities, RailName, RailSettings } from '../../kernel/account-settings-types';

const NONE: RailCapabilities = { refunds: false, metadataUpdates: false, recurring: false, manualCapture: false, disputes: false };

/** The spec's Rails table as data. */
export const DEFAULT_ACCOUNT_SETTINGS: AccountSettings = {
  merchantName: 'Rail Demo Merchant',
  merchantOrigins: [],
  allowLocalhostFrameAncestors: true,
  rails: [
    // UPI: live; automatic capture; refunds work in test mode through the simulator only.
    { rail: 'upi', currencies: ['INR'], modes: ['test', 'live'], capabilities: { test: { ...NONE, refunds: true }, live: NONE } },
    // Bank transfer / mobile money: ready to switch on (provider sandboxes); live needs credentials. Not
    // provisioned on the default account (ERR_3010); RAIL_ACCOUNT_CONFIG switches the test simulator on.
    {
      rail: 'bank_transfer',
      currencies: ['KES', 'GHS', 'TZS', 'UGX'],
      modes: ['test', 'live'],
      capabilities: { test: NONE, live: NONE },
      provisionedModes: [],
    },
    // Crypto: the test simulator answers on every account (spec: "A test simulator answers UPI and crypto payments
    // deterministically"); live needs the provider's credentials (ERR_3010).
    { rail: 'crypto', currencies: ['EUR', 'USD', 'GBP'], modes: ['test', 'live'], capabilities: { test: NONE, live: NONE }, provisionedModes: ['test'] },
    // Cards: not enabled (needs a card acquirer).
  ],
};

/** The adapter serving a rail of the account in a mode, or undefined when the rail is not provisioned there. */
export function provisionedAdapter(rail: RailSettings, registry: RailRegistry, mode: Mode): RailAdapter | undefined {
  if (rail.provisionedModes !== undefined && !rail.provisionedModes.includes(mode)) return undefined;
  return registry.adapterFor(mode, rail.rail);
}

/** Capture methods the enabled rails support: they capture as they authorize (spec rule 5). */
export function supportedCaptureMethods(capabilities: RailCapabilities): readonly CaptureMethod[] {
  return capabilities.manualCapture
    ? ['automatic', 'sequential_automatic', 'manual', 'manual_multiple']
    : ['automatic', 'sequential_automatic'];
}

/** One payment method type a rail can carry, as the payment-method list shows it (Hyperswitch shapes). */
export interface RailMethodOffer {
  paymentMethod: PaymentMethod;
  paymentMethodType: PaymentMethodType;
  paymentExperience: readonly PaymentExperience[];
  /** Card networks, for card types only. */
  cardNetworks: readonly CardNetwork[] | null;
  /** Hyperswitch `required_fields`: what the checkout must collect, keyed by the payment_method_data path. */
  requiredFields: JsonObject | null;
}

/** What a rail can carry, whatever the account: its countries (null: not tied to a country) and method types. */
export interface RailCatalogEntry {
  countries: readonly Country[] | null;
  /** Whether the rail offers installment payments (none does today). */
  installments: boolean;
  methods: readonly RailMethodOffer[];
}

/**
 * The rails of the spec's Rails table as data. The payment-method list shows an offer only when the account has the
 * rail in the key's mode AND the rail's adapter takes that type for the currency (a listed method must be
 * confirmable; see docs/open-points.md).
 */
export const RAIL_CATALOG: Record<RailName, RailCatalogEntry> = {
  upi: {
    countries: ['IN'],
    installments: false,
    methods: [
      {
        paymentMethod: 'upi',
        paymentMethodType: 'upi_collect',
        paymentExperience: ['display_wait_screen'],
        cardNetworks: null,
        requiredFields: {
          'payment_method_data.upi.upi_collect.vpa_id': {
            required_field: 'payment_method_data.upi.upi_collect.vpa_id',
            display_name: 'vpa_id',
            field_type: 'user_vpa_id',
            value: null,
          },
        },
      },
      { paymentMethod: 'upi', paymentMethodType: 'upi_intent', paymentExperience: ['invoke_payment_app'], cardNetworks: null, requiredFields: null },
      { paymentMethod: 'upi', paymentMethodType: 'upi_qr', paymentExperience: ['display_qr_code'], cardNetworks: null, requiredFields: null },
    ],
  },
  bank_transfer: {
    countries: ['KE', 'GH', 'TZ', 'UG'],
    installments: false,
    methods: [
      { paymentMethod: 'bank_transfer', paymentMethodType: 'local_bank_transfer', paymentExperience: [], cardNetworks: null, requiredFields: null },
      // Mobile money rides the bank transfer rail (docs/open-points.md: `momo` is the nearest Hyperswitch type).
      {
        paymentMethod: 'mobile_payment',
        paymentMethodType: 'momo',
        paymentExperience: [],
        cardNetworks: null,
        requiredFields: {
          'payment_method_data.mobile_payment.momo.msisdn': {
            required_field: 'payment_method_data.mobile_payment.momo.msisdn',
            display_name: 'msisdn',
            field_type: 'user_msisdn',
            value: null,
          },
        },
      },
    ],
  },
  crypto: {
    countries: null,
    installments: false,
    methods: [{ paymentMethod: 'crypto', paymentMethodType: 'crypto_currency', paymentExperience: ['redirect_to_url'], cardNetworks: null, requiredFields: null }],
  },
  card: {
    countries: null,
    installments: false,
    methods: [
      { paymentMethod: 'card', paymentMethodType: 'credit', paymentExperience: [], cardNetworks: CARD_NETWORKS, requiredFields: null },
      { paymentMethod: 'card', paymentMethodType: 'debit', paymentExperience: [], cardNetworks: CARD_NETWORKS, requiredFields: null },
      // Wallets the card acquirer takes (listed where its adapter offers them: the simulator does, in test mode). The
      // client shows their buttons from POST /payments/session_tokens and confirms with the wallet's token.
      { paymentMethod: 'wallet', paymentMethodType: 'google_pay', paymentExperience: ['invoke_sdk_client'], cardNetworks: null, requiredFields: null },
      { paymentMethod: 'wallet', paymentMethodType: 'apple_pay', paymentExperience: ['invoke_sdk_client'], cardNetworks: null, requiredFields: null },
      { paymentMethod: 'wallet', paymentMethodType: 'paypal', paymentExperience: ['invoke_sdk_client'], cardNetworks: null, requiredFields: null },
    ],
  },
};
