/**
 * The card simulator's own answers, without the core: 3DS profiles by card, the external 3DS stages in its rail state
 * (never the card number), expiry, and the wallet token amounts in the currency's exponent.
 */
import { describe, expect, test } from 'vitest';
import type { JsonObject } from '../../../../protocol/api/payments';
import { cryptoIds } from '../../kernel/ids';
import { CardDetails } from '../../vault/card-details';
import type { AuthorizeRequest } from '../rail-adapter';
import { CardSimulator, SIMULATOR_CARDS, THREE_DS_VALIDITY_MS } from './card-simulator';

const NOW = new Date('2026-01-01T00:00:00Z');
const simulator = new CardSimulator({ ids: cryptoIds, publicBaseUrl: 'http://api.test' });

function authorizeRequest(number: string, threeDs: AuthorizeRequest['threeDs']): AuthorizeRequest {
  return {
    accountId: 'acc_1',
    mode: 'test',
    paymentId: 'pay_1',
    attemptId: 'pay_1_1',
    amount: 1_000,
    currency: 'EUR',
    paymentMethod: 'card',
    paymentMethodType: 'credit',
    paymentMethodData: { psp_token: 'tok_1' },
    returnUrl: null,
    card: new CardDetails({ number, cvc: '123', expMonth: '12', expYear: '2034', holderName: null }),
    ...(threeDs === undefined ? {} : { threeDs }),
    now: NOW,
  };
}

const authenticateRequest = (state: JsonObject | null, now = NOW) => ({
  accountId: 'acc_1',
  mode: 'test' as const,
  paymentId: 'pay_1',
  railReference: 'sim_1',
  railState: state,
  deviceChannel: 'BRW' as const,
  threedsMethodCompInd: 'N' as const,
  now,
});

describe('card simulator 3DS', () => {
  test('at confirm: frictionless authorizes, force_3ds_challenge challenges it, the rejected card declines', async () => {
    expect(await simulator.authorize(authorizeRequest(SIMULATOR_CARDS.threeDsFrictionless, undefined))).toMatchObject({ kind: 'authorized', amountReceived: 1_000 });
    expect(await simulator.authorize(authorizeRequest(SIMULATOR_CARDS.threeDsFrictionless, { external: false, forceChallenge: true }))).toMatchObject({
      kind: 'customer_action',
      nextAction: { type: 'redirect_to_url' },
    });
    expect(await simulator.authorize(authorizeRequest(SIMULATOR_CARDS.threeDsRejected, undefined))).toMatchObject({ kind: 'declined', errorCode: 'authentication_failed' });
  });

  test('external: the authorization waits; the state names the outcome, never the card; Y then complete_authorize', async () => {
    const waiting = await simulator.authorize(authorizeRequest(SIMULATOR_CARDS.declined, { external: true, forceChallenge: false }));
    if (waiting.kind !== 'customer_action') throw new Error(`expected customer_action, got ${waiting.kind}`);
    expect(waiting.nextAction).toMatchObject({ type: 'three_ds_invoke', three_ds_data: { three_ds_authorize_url: 'http://api.test/payments/pay_1/complete_authorize' } });
    expect(JSON.stringify(waiting.state)).not.toContain(SIMULATOR_CARDS.declined);
    const sync = { accountId: 'acc_1', mode: 'test' as const, paymentId: 'pay_1', amount: 1_000, railReference: 'sim_1', now: NOW };
    expect(await simulator.completeAuthorization({ ...sync, railState: waiting.state })).toEqual({ kind: 'pending', reference: 'sim_1' });
    const answered = await simulator.authenticateThreeDs(authenticateRequest(waiting.state));
    if (answered.kind !== 'answered') throw new Error('expected an answer');
    expect(answered.transStatus).toBe('Y');
    expect(await simulator.authenticateThreeDs(authenticateRequest(answered.state))).toEqual({ kind: 'not_waiting' });
    expect(await simulator.completeAuthorization({ ...sync, railState: answered.state })).toMatchObject({ kind: 'declined', errorCode: 'card_declined' });
  });

  test('external challenge: C with a page URL and a CReq; the page decides; an unanswered authentication expires', async () => {
    const waiting = await simulator.authorize(authorizeRequest(SIMULATOR_CARDS.threeDs, { external: true, forceChallenge: false }));
    if (waiting.kind !== 'customer_action') throw new Error('expected customer_action');
    const answered = await simulator.authenticateThreeDs(authenticateRequest(waiting.state));
    if (answered.kind !== 'answered') throw new Error('expected an answer');
    expect(answered.transStatus).toBe('C');
    expect(answered.acsUrl).toContain(`challenge=${answered.state['challenge'] as string}`);
    const sync = { mode: 'test' as const, paymentId: 'pay_1', amount: 1_000, railReference: 'sim_1', railState: answered.state, now: NOW };
    expect(await simulator.sync(sync)).toEqual({ kind: 'pending', reference: 'sim_1' });
    expect(await simulator.sync({ ...sync, customerDecision: 'complete' })).toMatchObject({ kind: 'authorized', amountReceived: 1_000 });
    expect(await simulator.sync({ ...sync, customerDecision: 'fail' })).toMatchObject({ kind: 'declined', errorCode: 'authentication_failed' });
    const late = new Date(NOW.getTime() + THREE_DS_VALIDITY_MS);
    expect(await simulator.authenticateThreeDs(authenticateRequest(waiting.state, late))).toEqual({ kind: 'not_waiting' });
    expect(await simulator.sync({ ...sync, railState: waiting.state, now: late })).toMatchObject({ kind: 'declined', errorCode: 'authentication_expired' });
  });
});

describe('card simulator wallets', () => {
  test('token amounts are major units in the currency\'s exponent; unknown wallets are left out; orders are PayPal only', () => {
    const request = { accountId: 'acc_1', mode: 'test' as const, paymentId: 'pay_1', amount: 500, currency: 'JPY' as const, now: NOW };
    const tokens = simulator.walletSessionTokens({ ...request, wallets: ['google_pay', 'venmo', 'google_pay'] });
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({ wallet_name: 'google_pay', transaction_info: { total_price: '500', currency_code: 'JPY' } });
    expect(simulator.walletSessionTokens({ ...request, currency: 'EUR', amount: 1_005, wallets: ['apple_pay'] })[0]).toMatchObject({
      payment_request_data: { total: { amount: '10.05' } },
    });
    expect(simulator.openWalletOrder({ ...request, wallet: 'paypal' })?.orderId).toMatch(/^sim_order_/);
    expect(simulator.openWalletOrder({ ...request, wallet: 'google_pay' })).toBeUndefined();
  });
});
