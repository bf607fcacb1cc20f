/**
 * The card simulator's own answers, without the core: 3DS profiles by card, the external 3DS stages in its rail state
 * (never the card number), expiry, the wallet token amounts in the currency's exponent, the PayPal order ids and the
 * wallet outcomes by token.
 */
import { describe, expect, test } from 'vitest';
import type { JsonObject } from '../../../../protocol/api/payments';
import { cryptoIds } from '../../kernel/ids';
import { CardDetails } from '../../vault/card-details';
import type { AuthorizeRequest } from '../rail-adapter';
import { CardSimulator, SIMULATOR_CARDS, SIMULATOR_WALLET_TOKENS, THREE_DS_VALIDITY_MS } from './card-simulator';

const NOW = new Date('2026-01-01T00:00:00Z');
const simulator = new CardSimulator({ ids: cryptoIds, publicBaseUrl: 'http://api.test', walletOrderKey: Buffer.alloc(32, 1) });

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
    expect(simulator.openWalletOrder({ ...request, wallet: 'paypal' })?.orderId).toMatch(/^sim_order_[0-9A-Za-z]{20}$/);
    expect(simulator.openWalletOrder({ ...request, wallet: 'google_pay' })).toBeUndefined();
  });

  test('a PayPal order id is the same for every call on one payment, differs by payment, account, mode and key', () => {
    const request = { accountId: 'acc_1', mode: 'test' as const, paymentId: 'pay_1', amount: 500, currency: 'EUR' as const, now: NOW, wallet: 'paypal' as const };
    const order = simulator.openWalletOrder(request)?.orderId;
    expect(simulator.openWalletOrder({ ...request, now: new Date(NOW.getTime() + 60_000) })?.orderId).toBe(order);
    const others = [
      simulator.openWalletOrder({ ...request, paymentId: 'pay_2' })?.orderId,
      simulator.openWalletOrder({ ...request, accountId: 'acc_2' })?.orderId,
      simulator.openWalletOrder({ ...request, mode: 'live' })?.orderId,
      new CardSimulator({ ids: cryptoIds, publicBaseUrl: 'http://api.test', walletOrderKey: Buffer.alloc(32, 2) }).openWalletOrder(request)?.orderId,
    ];
    for (const other of others) expect(other).not.toBe(order);
  });

  test('wallet payments are answered by their token, as a table; no 3DS; card wallets and PayPal differ', async () => {
    const base = { ...authorizeRequest(SIMULATOR_CARDS.success, { external: true, forceChallenge: true }), paymentMethod: 'wallet' as const };
    const { card: _card, ...withoutCard } = base;
    const googlePay = (token: string) => ({
      ...withoutCard,
      paymentMethodType: 'google_pay' as const,
      paymentMethodData: {
        wallet: {
          google_pay: { type: 'CARD' as const, description: 'Visa 4242', info: { card_network: 'VISA', card_details: '4242' }, tokenization_data: { type: 'PAYMENT_GATEWAY' as const, token } },
        },
      },
    });
    const applePay = (token: string) => ({
      ...withoutCard,
      paymentMethodType: 'apple_pay' as const,
      paymentMethodData: { wallet: { apple_pay: { payment_data: token, payment_method: { display_name: 'Visa 4242', network: 'Visa', type: 'debit' }, transaction_identifier: 'tx_1' } } },
    });
    const paypal = (token: string) => ({ ...withoutCard, paymentMethodType: 'paypal' as const, paymentMethodData: { wallet: { paypal_sdk: { token } } } });
    const ownOrder = simulator.walletOrderId({ accountId: 'acc_1', mode: 'test', paymentId: 'pay_1' });
    const otherOrder = simulator.walletOrderId({ accountId: 'acc_1', mode: 'test', paymentId: 'pay_2' });
    const cases: [AuthorizeRequest, string][] = [
      [googlePay(SIMULATOR_WALLET_TOKENS.approved), 'authorized'],
      [googlePay(SIMULATOR_WALLET_TOKENS.declined), 'card_declined'],
      [googlePay(ownOrder), 'wallet_token_invalid'],
      [googlePay('tok_anything'), 'wallet_token_invalid'],
      [applePay(SIMULATOR_WALLET_TOKENS.approved), 'authorized'],
      [applePay(SIMULATOR_WALLET_TOKENS.declined), 'card_declined'],
      [applePay('tok_anything'), 'wallet_token_invalid'],
      [paypal(ownOrder), 'authorized'],
      [paypal(SIMULATOR_WALLET_TOKENS.declined), 'card_declined'],
      [paypal(SIMULATOR_WALLET_TOKENS.approved), 'wallet_token_invalid'],
      [paypal(otherOrder), 'wallet_token_invalid'],
      [paypal('sim_order_madeUpmadeUpmadeUp1234'), 'wallet_token_invalid'],
      [{ ...paypal(ownOrder), paymentMethodType: 'venmo' }, 'wallet_token_invalid'],
    ];
    for (const [request, expected] of cases) {
      const outcome = await simulator.authorize(request);
      const label = `${request.paymentMethodType} ${JSON.stringify(request.paymentMethodData)}`;
      if (expected === 'authorized') expect(outcome, label).toMatchObject({ kind: 'authorized', amountReceived: 1_000 });
      else expect(outcome, label).toMatchObject({ kind: 'declined', errorCode: expected, errorMessage: expected });
    }
  });

  test('the simulator takes the three wallets beside credit and debit', () => {
    expect(simulator.paymentMethodTypes('EUR')).toEqual([
      { paymentMethod: 'card', paymentMethodType: 'credit' },
      { paymentMethod: 'card', paymentMethodType: 'debit' },
      { paymentMethod: 'wallet', paymentMethodType: 'google_pay' },
      { paymentMethod: 'wallet', paymentMethodType: 'apple_pay' },
      { paymentMethod: 'wallet', paymentMethodType: 'paypal' },
    ]);
  });
});
