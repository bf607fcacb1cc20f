/**
 * Deterministic card acquirer simulator (test mode, accounts with a `card` rail). The card arrives decrypted from
 * the vault for this one call. Outcomes by number (docs/simulator.md):
 * - 4242424242424242: authorized (succeeded).
 * - 4000000000000002: declined, error_code / error_message "card_declined".
 * - 4000003800000446: 3DS challenge: requires_customer_action with a redirect_to_url to the simulator's 3DS page
 *   on the API listener; "Complete authentication" authorizes, "Fail authentication" declines
 *   ("authentication_failed").
 * - any other number: declined, "card_not_supported".
 */
import type { Currency } from '../../../../protocol/currency';
import type { IdGenerator } from '../../kernel/ids';
import { SIMULATED_CARD_NETWORKS } from '../../vault/card-details';
import type { AuthorizeRequest, IncrementAuthorizationRequest, RailAdapter, RailOutcome, SyncRequest } from '../rail-adapter';
import { AUTHORIZATION_VALIDITY, simulateIncrement } from './authorization-terms';

export const SIMULATOR_CARDS = {
  success: '4242424242424242',
  declined: '4000000000000002',
  threeDs: '4000003800000446',
} as const;

/** How long a 3DS challenge stays open before the payment fails on the next read. */
export const THREE_DS_VALIDITY_MS = 10 * 60_000;

export interface SimulatorOptions {
  ids: IdGenerator;
  /** The API's public base_url: simulator pages live on it. */
  publicBaseUrl: string;
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
export class CardSimulator implements RailAdapter {
  readonly rail = 'card' as const;
  readonly connector = 'card_simulator';
  readonly cardNetworks = SIMULATED_CARD_NETWORKS;
  readonly authorizationValidity = AUTHORIZATION_VALIDITY;

  constructor(private readonly options: SimulatorOptions) {}

  paymentMethodTypes(_currency: Currency) {
    return [
      { paymentMethod: 'card', paymentMethodType: 'credit' },
      { paymentMethod: 'card', paymentMethodType: 'debit' },
    ] as const;
  }

  async authorize(request: AuthorizeRequest): Promise<RailOutcome> {
    const reference = `sim_${this.options.ids.secret(20)}`;
    const number = request.card?.revealNumber();
    switch (number) {
      case SIMULATOR_CARDS.success:
        return { kind: 'authorized', reference, amountReceived: request.amount };
      case SIMULATOR_CARDS.declined:
        return declined(reference, 'card_declined', 'card_declined');
      case SIMULATOR_CARDS.threeDs: {
        const challenge = this.options.ids.secret(24);
        return {
          kind: 'customer_action',
          reference,
          nextAction: { type: 'redirect_to_url', redirect_to_url: simulatorPageUrl(this.options.publicBaseUrl, '3ds', request, challenge) },
          state: { challenge, expires_at: new Date(request.now.getTime() + THREE_DS_VALIDITY_MS).toISOString() },
        };
      }
      default:
        return declined(reference, 'card_not_supported', 'card_not_supported');
    }
  }

  async incrementAuthorization(request: IncrementAuthorizationRequest) {
    return simulateIncrement(this.options.ids, request);
  }

  async sync(request: SyncRequest): Promise<RailOutcome> {
    const expiresAt = request.railState?.['expires_at'];
    if (typeof expiresAt === 'string' && request.now.getTime() >= Date.parse(expiresAt)) {
      return declined(request.railReference, 'authentication_expired', 'authentication_expired');
    }
    if (request.customerDecision === 'complete') return { kind: 'authorized', reference: request.railReference, amountReceived: request.amount };
    if (request.customerDecision === 'fail') return declined(request.railReference, 'authentication_failed', 'authentication_failed');
    return { kind: 'pending', reference: request.railReference };
  }
}

export function declined(reference: string, errorCode: string, errorMessage: string): RailOutcome {
  return { kind: 'declined', reference, errorCode, errorMessage, errorReason: errorMessage };
}
