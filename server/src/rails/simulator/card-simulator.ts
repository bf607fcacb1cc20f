/**
 * Deterministic card acquirer simulator (test mode, accounts with a `card` rail). The card arrives decrypted from
 * the vault for this one call. Outcomes by number (docs/simulator.md):
 * - 4242424242424242: authorized (succeeded).
 * - 4000000000000002: declined, error_code / error_message "card_declined".
 * - 4000000000003055: 3DS frictionless (the issuer authenticates without a challenge): authorized; with
 *   force_3ds_challenge it is challenged like 4000003800000446.
 * - 4000003800000446: 3DS challenge: requires_customer_action with a redirect_to_url to the simulator's 3DS page
 *   on the API listener; "Complete authentication" authorizes, "Fail authentication" declines
 *   ("authentication_failed").
 * - 4000008400001629: 3DS authentication rejected by the issuer: declined ("authentication_failed").
 * - any other number: declined, "card_not_supported".
 * Refunds answer at once like the UPI simulator's (simulated-refund.ts), where the account's card rail has refunds.
 * With request_external_three_ds_authentication the authorization waits (next_action three_ds_invoke) for the
 * client's POST /payments/{id}/3ds/authentication, whose transStatus follows the same numbers (Y, C, N; 4242 and
 * 4000000000000002 authenticate frictionless), then for POST /payments/{id}/complete_authorize.
 * It also answers wallet session tokens (google_pay, apple_pay, paypal) with documented fake shapes, opens PayPal
 * orders whose id is derived from the payment (post_session_tokens), and authorizes wallet payments by the wallet's
 * token (WALLET_OUTCOMES): sim_wallet_approved authorizes like 4242424242424242, sim_wallet_declined declines
 * ("card_declined"), PayPal authorizes with the order opened for this payment, anything else fails
 * ("wallet_token_invalid"). Wallet payments skip 3DS: the wallet authenticated the customer.
 */
import { currencyExponent, minorToDecimal, type Currency } from '../../../../protocol/currency';
import type { Mode } from '../../../../protocol/ids';
import { secretsEqual } from '../../kernel/constant-time';
import { hmacBase62, type IdGenerator } from '../../kernel/ids';
import { SIMULATED_CARD_NETWORKS } from '../../vault/card-details';
import type { JsonObject, PaymentMethodData } from '../../../../protocol/api/payments';
import type { PaymentMethodType } from '../../../../protocol/api/enums';
import type {
  AuthorizeRequest,
  CaptureOutcome,
  CaptureRequest,
  CompleteAuthorizationRequest,
  IncrementAuthorizationRequest,
  RailAdapter,
  RailOutcome,
  RefundOutcome,
  RefundRequest,
  SyncRequest,
  ThreeDsAuthenticationOutcome,
  ThreeDsAuthenticationRequest,
  VoidOutcome,
  VoidRequest,
  CancelCapturesOutcome,
  CancelCapturesRequest,
  WalletOrderRequest,
  WalletSessionRequest,
  WalletSessionToken,
} from '../rail-adapter';
import { AUTHORIZATION_VALIDITY, simulateIncrement } from './authorization-terms';
import { simulateCancelCaptures, simulateCapture, simulateVoid, type HoldingSimulator, type SimulatedHold } from './simulated-capture';
import { simulateRefund } from './simulated-refund';

export const SIMULATOR_CARDS = {
  success: '4242424242424242',
  declined: '4000000000000002',
  threeDs: '4000003800000446',
  threeDsFrictionless: '4000000000003055',
  threeDsRejected: '4000008400001629',
} as const;

/** What the simulated issuer's 3DS does with a card, and what the acquirer answers once it is authenticated. */
interface ThreeDsProfile {
  authentication: 'frictionless' | 'challenge' | 'rejected';
  authorization: 'approve' | 'decline';
}

/** The simulator's cards as a table: what 3DS does with each, and what the acquirer then answers. */
const CARD_PROFILES: Readonly<Record<string, ThreeDsProfile>> = {
  [SIMULATOR_CARDS.success]: { authentication: 'frictionless', authorization: 'approve' },
  [SIMULATOR_CARDS.declined]: { authentication: 'frictionless', authorization: 'decline' },
  [SIMULATOR_CARDS.threeDsFrictionless]: { authentication: 'frictionless', authorization: 'approve' },
  [SIMULATOR_CARDS.threeDs]: { authentication: 'challenge', authorization: 'approve' },
  [SIMULATOR_CARDS.threeDsRejected]: { authentication: 'rejected', authorization: 'approve' },
};

/** force_3ds_challenge challenges the card that would authenticate frictionless with 3DS (not the others). */
function threeDsProfile(number: string | undefined, forceChallenge: boolean): ThreeDsProfile | undefined {
  const profile = number === undefined ? undefined : CARD_PROFILES[number];
  if (profile !== undefined && forceChallenge && number === SIMULATOR_CARDS.threeDsFrictionless) return { ...profile, authentication: 'challenge' };
  return profile;
}

/** The wallet whose order post_session_tokens opens (session tokens: google_pay, apple_pay and paypal). */
export const SIMULATOR_ORDER_WALLET = 'paypal';

/** The wallets the simulated acquirer takes (payment_method wallet): session tokens, the method list, confirm. */
export const SIMULATOR_WALLETS = ['google_pay', 'apple_pay', 'paypal'] as const;
type SimulatorWallet = (typeof SIMULATOR_WALLETS)[number];

/** The tokens a test wallet hands over at confirm (Google Pay tokenization_data.token, Apple Pay payment_data, PayPal token). */
export const SIMULATOR_WALLET_TOKENS = {
  approved: 'sim_wallet_approved',
  declined: 'sim_wallet_declined',
} as const;

/** What a wallet's token is to the simulator: one of its test tokens, the PayPal order opened for this payment, or else. */
type WalletTokenKind = 'approved' | 'declined' | 'own_order' | 'other';
type WalletAnswer = 'authorize' | 'decline' | 'invalid';

/**
 * The simulated wallets' answers as a table: token kind x wallet. PayPal authorizes only the order post_session_tokens
 * opened for this payment (its token is an order id); the card wallets authorize the approved token. `decline` fails
 * with card_declined, `invalid` with wallet_token_invalid.
 */
const WALLET_OUTCOMES: Readonly<Record<WalletTokenKind, Readonly<Record<SimulatorWallet, WalletAnswer>>>> = {
  approved: { google_pay: 'authorize', apple_pay: 'authorize', paypal: 'invalid' },
  declined: { google_pay: 'decline', apple_pay: 'decline', paypal: 'decline' },
  own_order: { google_pay: 'invalid', apple_pay: 'invalid', paypal: 'authorize' },
  other: { google_pay: 'invalid', apple_pay: 'invalid', paypal: 'invalid' },
};

/** The token each wallet variant of payment_method_data carries (Hyperswitch's WalletData shapes). */
function walletToken(data: PaymentMethodData): string | undefined {
  const wallet = data.wallet;
  return wallet?.google_pay?.tokenization_data.token ?? wallet?.apple_pay?.payment_data ?? wallet?.paypal_sdk?.token;
}

function isSimulatorWallet(type: PaymentMethodType): type is SimulatorWallet {
  return (SIMULATOR_WALLETS as readonly string[]).includes(type);
}

/** The EMV 3DS protocol version the simulated directory server speaks. */
const MESSAGE_VERSION = '2.2.0';

/** How long a 3DS challenge stays open before the payment fails on the next read. */
export const THREE_DS_VALIDITY_MS = 10 * 60_000;

export interface SimulatorOptions {
  ids: IdGenerator;
  /** The API's public base_url: simulator pages live on it. */
  publicBaseUrl: string;
}

export interface CardSimulatorOptions extends SimulatorOptions {
  /**
   * Key of the PayPal order ids: an order id is an HMAC of (account, mode, payment), so confirm tells the order that
   * post_session_tokens opened for this payment from any other id without storing anything, and no client can make
   * one up. compose.ts derives it from the vault key (shared by every instance).
   */
  walletOrderKey: Buffer;
}

/** `{base_url}/simulator/{kind}/{payment_id}?account=...&challenge=...` */
export function simulatorPageUrl(baseUrl: string, kind: '3ds' | 'crypto' | 'upi' | 'bank_transfer', request: { accountId: string; paymentId: string }, challenge: string): string {
  const url = new URL(`${baseUrl}/simulator/${kind}/${encodeURIComponent(request.paymentId)}`);
  url.searchParams.set('account', request.accountId);
  url.searchParams.set('challenge', challenge);
  return url.toString();
}

/*
 * Rail state keeps times as ISO 8601 text, not epoch milliseconds: a 13-digit number can pass the Luhn check, and
 * the data scan of the vault tests allows no Luhn-valid 13-19 digit run outside the vault's ciphertext.
 */
export class CardSimulator implements RailAdapter, HoldingSimulator {
  readonly rail = 'card' as const;
  readonly connector = 'card_simulator';
  readonly cardNetworks = SIMULATED_CARD_NETWORKS;
  readonly authorizationValidity = AUTHORIZATION_VALIDITY;

  constructor(private readonly options: CardSimulatorOptions) {}

  paymentMethodTypes(_currency: Currency) {
    return [
      { paymentMethod: 'card', paymentMethodType: 'credit' },
      { paymentMethod: 'card', paymentMethodType: 'debit' },
      ...SIMULATOR_WALLETS.map((wallet) => ({ paymentMethod: 'wallet', paymentMethodType: wallet }) as const),
    ] as const;
  }

  async authorize(request: AuthorizeRequest): Promise<RailOutcome> {
    const reference = `sim_${this.options.ids.secret(20)}`;
    if (request.paymentMethod === 'wallet') return this.authorizeWallet(request, reference);
    const profile = threeDsProfile(request.card?.revealNumber(), request.threeDs?.forceChallenge === true);
    if (profile === undefined) return declined(reference, 'card_not_supported', 'card_not_supported');
    if (request.threeDs?.external === true) return this.awaitExternalAuthentication(request, reference, profile);
    switch (profile.authentication) {
      case 'challenge':
        return this.challenge(request, reference);
      case 'rejected':
        return declined(reference, 'authentication_failed', 'authentication_failed');
      case 'frictionless':
        if (profile.authorization === 'decline') return declined(reference, 'card_declined', 'card_declined');
        return { kind: 'authorized', reference, amountReceived: request.amount };
    }
  }

  /** A wallet payment, answered by its token (WALLET_OUTCOMES); no 3DS, the wallet authenticated the customer. */
  private authorizeWallet(request: AuthorizeRequest, reference: string): RailOutcome {
    const token = walletToken(request.paymentMethodData);
    const answer = isSimulatorWallet(request.paymentMethodType) && token !== undefined ? WALLET_OUTCOMES[this.walletTokenKind(request, token)][request.paymentMethodType] : 'invalid';
    switch (answer) {
      case 'authorize':
        return { kind: 'authorized', reference, amountReceived: request.amount };
      case 'decline':
        return declined(reference, 'card_declined', 'card_declined');
      case 'invalid':
        return declined(reference, 'wallet_token_invalid', 'wallet_token_invalid');
    }
  }

  private walletTokenKind(request: AuthorizeRequest, token: string): WalletTokenKind {
    if (token === SIMULATOR_WALLET_TOKENS.approved) return 'approved';
    if (token === SIMULATOR_WALLET_TOKENS.declined) return 'declined';
    return secretsEqual(token, this.walletOrderId(request)) ? 'own_order' : 'other';
  }

  /** The id of the PayPal order of a payment: `sim_order_` + 20 base62 characters of an HMAC of (account, mode, payment). */
  walletOrderId(payment: { accountId: string; mode: Mode; paymentId: string }): string {
    return `sim_order_${hmacBase62(this.options.walletOrderKey, `paypal order\n${payment.accountId}\n${payment.mode}\n${payment.paymentId}`, 20)}`;
  }

  private challenge(request: AuthorizeRequest, reference: string): RailOutcome {
    const challenge = this.options.ids.secret(24);
    return {
      kind: 'customer_action',
      reference,
      nextAction: { type: 'redirect_to_url', redirect_to_url: simulatorPageUrl(this.options.publicBaseUrl, '3ds', request, challenge) },
      state: { challenge, expires_at: this.expiry(request.now) },
    };
  }

  /** External 3DS: the authorization waits for the client's authentication (next_action three_ds_invoke). */
  private awaitExternalAuthentication(request: AuthorizeRequest, reference: string, profile: ThreeDsProfile): RailOutcome {
    const paymentUrl = `${this.options.publicBaseUrl}/payments/${encodeURIComponent(request.paymentId)}`;
    return {
      kind: 'customer_action',
      reference,
      nextAction: {
        type: 'three_ds_invoke',
        three_ds_data: {
          three_ds_authentication_url: `${paymentUrl}/3ds/authentication`,
          three_ds_authorize_url: `${paymentUrl}/complete_authorize`,
          // The simulated ACS runs no 3DS method (device fingerprinting) step.
          three_ds_method_details: { three_ds_method_data_submission: false },
          message_version: MESSAGE_VERSION,
          directory_server_id: 'rail_simulator_ds',
        },
      },
      state: { flow: 'external_3ds', stage: 'awaiting_authentication', ...profile, expires_at: this.expiry(request.now) },
    };
  }

  async authenticateThreeDs(request: ThreeDsAuthenticationRequest): Promise<ThreeDsAuthenticationOutcome> {
    const state = request.railState;
    if (state?.['flow'] !== 'external_3ds' || state['stage'] !== 'awaiting_authentication' || expired(state, request.now)) return { kind: 'not_waiting' };
    const ids = {
      acsTransId: `acs_${this.options.ids.secret(20)}`,
      serverTransId: `3dss_${this.options.ids.secret(20)}`,
      acsReferenceNumber: 'RAIL-SIMULATOR-ACS',
    };
    switch (state['authentication']) {
      case 'frictionless':
        return { kind: 'answered', transStatus: 'Y', ...ids, acsUrl: null, challengeRequest: null, state: { ...state, stage: 'authenticated' } };
      case 'rejected':
        return { kind: 'answered', transStatus: 'N', ...ids, acsUrl: null, challengeRequest: null, state: { ...state, stage: 'rejected' } };
      default: {
        const challenge = this.options.ids.secret(24);
        const creq = { threeDSServerTransID: ids.serverTransId, acsTransID: ids.acsTransId, messageType: 'CReq', messageVersion: MESSAGE_VERSION, challengeWindowSize: '05' };
        return {
          kind: 'answered',
          transStatus: 'C',
          ...ids,
          acsUrl: simulatorPageUrl(this.options.publicBaseUrl, '3ds', request, challenge),
          challengeRequest: Buffer.from(JSON.stringify(creq)).toString('base64url'),
          state: { ...state, stage: 'challenge', challenge },
        };
      }
    }
  }

  async completeAuthorization(request: CompleteAuthorizationRequest): Promise<RailOutcome> {
    const state = request.railState;
    if (state?.['flow'] !== 'external_3ds') return { kind: 'pending', reference: request.railReference };
    if (expired(state, request.now)) return declined(request.railReference, 'authentication_expired', 'authentication_expired');
    if (state['stage'] === 'rejected') return declined(request.railReference, 'authentication_failed', 'authentication_failed');
    if (state['stage'] !== 'authenticated') return { kind: 'pending', reference: request.railReference };
    return this.authorizeAuthenticated(request, state);
  }

  walletSessionTokens(request: WalletSessionRequest): WalletSessionToken[] {
    const amount = minorToDecimal(request.amount, currencyExponent(request.currency));
    const tokens: WalletSessionToken[] = [];
    for (const wallet of new Set(request.wallets)) {
      if (wallet === 'google_pay') {
        tokens.push({
          wallet_name: 'google_pay',
          connector: this.connector,
          delayed_session_token: false,
          merchant_info: { merchant_name: 'Rail test merchant' },
          allowed_payment_methods: [
            {
              type: 'CARD',
              parameters: { allowed_auth_methods: ['PAN_ONLY', 'CRYPTOGRAM_3DS'], allowed_card_networks: ['VISA', 'MASTERCARD'] },
              tokenization_specification: { type: 'PAYMENT_GATEWAY', parameters: { gateway: 'railsimulator', gateway_merchant_id: request.accountId } },
            },
          ],
          transaction_info: { currency_code: request.currency, total_price_status: 'FINAL', total_price: amount },
          sdk_next_action: { next_action: 'confirm' },
        });
      } else if (wallet === 'apple_pay') {
        tokens.push({
          wallet_name: 'apple_pay',
          connector: this.connector,
          delayed_session_token: false,
          session_token_data: {
            epoch_timestamp: Math.floor(request.now.getTime() / 1000),
            expires_at: Math.floor(request.now.getTime() / 1000) + 300,
            merchant_session_identifier: `sim_session_${this.options.ids.secret(20)}`,
            nonce: this.options.ids.secret(16),
            merchant_identifier: 'merchant.rail.simulator',
            display_name: 'Rail test merchant',
            signature: 'simulated',
            psp_id: 'rail_simulator',
          },
          payment_request_data: {
            currency_code: request.currency,
            total: { label: 'Rail test merchant', type: 'final', amount },
            merchant_capabilities: ['supports3DS'],
            supported_networks: ['visa', 'masterCard'],
          },
          sdk_next_action: { next_action: 'confirm' },
        });
      } else if (wallet === 'paypal') {
        tokens.push({
          wallet_name: 'paypal',
          connector: this.connector,
          session_token: `sim_paypal_${this.options.ids.secret(20)}`,
          sdk_next_action: { next_action: 'post_session_tokens' },
        });
      }
    }
    return tokens;
  }

  openWalletOrder(request: WalletOrderRequest): { orderId: string } | undefined {
    if (request.wallet !== SIMULATOR_ORDER_WALLET) return undefined;
    // The same id for every call on this payment: confirm recognises it without a stored order.
    return { orderId: this.walletOrderId(request) };
  }

  private authorizeAuthenticated(request: SyncRequest, state: JsonObject): RailOutcome {
    if (state['authorization'] === 'decline') return declined(request.railReference, 'card_declined', 'card_declined');
    return { kind: 'authorized', reference: request.railReference, amountReceived: request.amount };
  }

  private expiry(now: Date): string {
    return new Date(now.getTime() + THREE_DS_VALIDITY_MS).toISOString();
  }

  /** Refunds of captured card payments, as the UPI simulator answers them (whether an account may: its capabilities). */
  async refund(request: RefundRequest): Promise<RefundOutcome> {
    return simulateRefund(this.options.ids, request);
  }

  async incrementAuthorization(request: IncrementAuthorizationRequest) {
    return simulateIncrement(this.options.ids, request);
  }

  async captureHeld(request: CaptureRequest, hold: SimulatedHold): Promise<CaptureOutcome> {
    return simulateCapture(this.options.ids, request, hold);
  }

  async voidHeld(request: VoidRequest, hold: SimulatedHold): Promise<VoidOutcome> {
    return simulateVoid(this.options.ids, request, hold);
  }

  async cancelCapturesHeld(request: CancelCapturesRequest, hold: SimulatedHold): Promise<CancelCapturesOutcome> {
    return simulateCancelCaptures(this.options.ids, request, hold);
  }

  async sync(request: SyncRequest): Promise<RailOutcome> {
    const state = request.railState;
    if (state !== null && expired(state, request.now)) {
      return declined(request.railReference, 'authentication_expired', 'authentication_expired');
    }
    // External 3DS: only its challenge answers the customer here; the other stages wait for the client's calls.
    if (state?.['flow'] === 'external_3ds' && state['stage'] !== 'challenge') return { kind: 'pending', reference: request.railReference };
    if (request.customerDecision === 'fail') return declined(request.railReference, 'authentication_failed', 'authentication_failed');
    if (request.customerDecision === 'complete') {
      if (state?.['flow'] === 'external_3ds') return this.authorizeAuthenticated(request, state);
      return { kind: 'authorized', reference: request.railReference, amountReceived: request.amount };
    }
    return { kind: 'pending', reference: request.railReference };
  }
}

function expired(state: JsonObject, now: Date): boolean {
  const expiresAt = state['expires_at'];
  return typeof expiresAt === 'string' && now.getTime() >= Date.parse(expiresAt);
}

export function declined(reference: string, errorCode: string, errorMessage: string): RailOutcome {
  return { kind: 'declined', reference, errorCode, errorMessage, errorReason: errorMessage };
}
