import { describe, expect, test } from 'vitest';
import { PaymentModel, methodOptions } from './payment-model';
import { CONFIG, PAYMENT, VAULT_TOKEN, backgroundRequestsAnswered, fakeApi, json, modelDeps } from './test-utils';

const WITH_WALLETS = {
  currency: 'EUR',
  payment_methods: [
    { payment_method: 'card', payment_method_types: [{ payment_method_type: 'credit' }] },
    {
      payment_method: 'wallet',
      payment_method_types: [{ payment_method_type: 'google_pay' }, { payment_method_type: 'apple_pay' }, { payment_method_type: 'paypal' }, { payment_method_type: 'venmo' }],
    },
  ],
};

const tokens = (...wallets: string[]) => json({ payment_id: 'pay_abc123', client_secret: CONFIG.clientSecret, session_token: wallets.map((wallet_name) => ({ wallet_name, connector: 'card_simulator' })) });

/** Loads, then lets the wallet session tokens (requested after `ready`) arrive. */
async function loaded(api: ReturnType<typeof fakeApi>) {
  const harness = modelDeps(api.fetch);
  const model = new PaymentModel(harness.deps);
  await model.load();
  await backgroundRequestsAnswered();
  return { model, ...harness, ...api };
}

const posts = (requests: { url: string; method: string; body: unknown }[]) =>
  requests.filter((request) => request.method === 'POST').map((request) => ({ path: new URL(request.url).pathname, body: request.body }));

describe('test wallets', () => {
  test('the list names the wallets; methodOptions keeps the ones the frame knows, after the card', () => {
    expect(methodOptions(WITH_WALLETS).map((option) => option.id)).toEqual(['card', 'wallet:google_pay', 'wallet:apple_pay', 'wallet:paypal']);
  });

  test('a wallet tab is shown only when its session token arrives, asked for with the client_secret', async () => {
    const { model, requests } = await loaded(fakeApi({ methods: () => json(WITH_WALLETS), sessionTokens: () => tokens('google_pay', 'paypal') }));
    expect(model.methods.value.map((option) => option.id)).toEqual(['card', 'wallet:google_pay', 'wallet:paypal']);
    expect(posts(requests)).toEqual([
      { path: '/payments/session_tokens', body: { client_secret: CONFIG.clientSecret, payment_id: 'pay_abc123', wallets: ['google_pay', 'apple_pay', 'paypal'] } },
    ]);
  });

  test('ready does not wait for the session tokens: the wallet tabs join when they arrive, the selection stays', async () => {
    let answer!: (response: Response) => void;
    const api = fakeApi({ methods: () => json(WITH_WALLETS), sessionTokens: () => new Promise<Response>((resolve) => (answer = resolve)) });
    const harness = modelDeps(api.fetch);
    const model = new PaymentModel(harness.deps);
    await model.load();
    expect(harness.events.map((event) => event.type)).toEqual(['ready']);
    expect(model.methods.value.map((option) => option.id)).toEqual(['card']);
    answer(await tokens('apple_pay'));
    await backgroundRequestsAnswered();
    expect(model.methods.value.map((option) => option.id)).toEqual(['card', 'wallet:apple_pay']);
    expect(model.selectedId.value).toBe('card');
  });

  test('wallet tabs join after the tabs shown at ready, which keep their places', async () => {
    const withUpi = { ...WITH_WALLETS, payment_methods: [...WITH_WALLETS.payment_methods, { payment_method: 'upi', payment_method_types: [{ payment_method_type: 'upi_collect' }, { payment_method_type: 'upi_qr' }] }] };
    let answer!: (response: Response) => void;
    const api = fakeApi({ methods: () => json(withUpi), sessionTokens: () => new Promise<Response>((resolve) => (answer = resolve)) });
    const model = new PaymentModel(modelDeps(api.fetch).deps);
    await model.load();
    const atReady = model.methods.value.map((option) => option.id);
    expect(atReady).toEqual(['card', 'upi_collect', 'upi_qr']);
    answer(await tokens('google_pay', 'paypal'));
    await backgroundRequestsAnswered();
    expect(model.methods.value.map((option) => option.id)).toEqual([...atReady, 'wallet:google_pay', 'wallet:paypal']);
  });

  test('a list of wallets only: "no method" until a token arrives, then the first wallet is selected', async () => {
    const onlyWallets = { payment_methods: [{ payment_method: 'wallet', payment_method_types: [{ payment_method_type: 'paypal' }] }] };
    const { model } = await loaded(fakeApi({ methods: () => json(onlyWallets), sessionTokens: () => tokens('paypal') }));
    expect(model.selectedId.value).toBe('wallet:paypal');
    expect(model.notice.value).toBeNull();
  });

  test('no session token (or a refused request): no wallet tab, the other methods stay', async () => {
    const refused = await loaded(fakeApi({ methods: () => json(WITH_WALLETS) }));
    expect(refused.model.methods.value.map((option) => option.id)).toEqual(['card']);
    expect(refused.model.phase.value).toBe('ready');
    const none = await loaded(fakeApi({ methods: () => json(WITH_WALLETS), sessionTokens: () => tokens() }));
    expect(none.model.methods.value.map((option) => option.id)).toEqual(['card']);
  });

  test('a live publishable key gets no test wallet tab and asks for no session token', async () => {
    const api = fakeApi({ methods: () => json(WITH_WALLETS), sessionTokens: () => tokens('google_pay') });
    const harness = modelDeps(api.fetch, { ...CONFIG, publishableKey: 'rail_open_live_' + 'k'.repeat(32) });
    const model = new PaymentModel(harness.deps);
    await model.load();
    await backgroundRequestsAnswered();
    expect(model.methods.value.map((option) => option.id)).toEqual(['card']);
    expect(api.requests.filter((request) => request.url.includes('session_tokens'))).toEqual([]);
  });

  test('a list without wallets asks for no session token', async () => {
    const { requests } = await loaded(fakeApi({ methods: () => json({ payment_methods: [{ payment_method: 'card' }] }) }));
    expect(requests.filter((request) => request.url.includes('session_tokens'))).toEqual([]);
  });

  test('Google Pay confirms in its own shape with the approved test token, and change reports google_pay', async () => {
    const succeeded = { ...PAYMENT, status: 'succeeded', payment_method: 'wallet' };
    const { model, requests, events } = await loaded(
      fakeApi({ methods: () => json(WITH_WALLETS), sessionTokens: () => tokens('google_pay'), confirm: () => json(succeeded) }),
    );
    model.select('wallet:google_pay');
    expect(events.at(-1)).toEqual({ type: 'change', complete: true, empty: false, value: { type: 'google_pay' } });
    expect(await model.confirm({ redirect: 'if_required' })).toEqual({ payment: succeeded });
    expect(posts(requests).at(-1)).toEqual({
      path: '/payments/pay_abc123/confirm',
      body: {
        client_secret: CONFIG.clientSecret,
        payment_method: 'wallet',
        payment_method_type: 'google_pay',
        payment_method_data: {
          wallet: {
            google_pay: {
              type: 'CARD',
              description: 'Visa •••• 4242',
              info: { card_network: 'VISA', card_details: '4242' },
              tokenization_data: { type: 'PAYMENT_GATEWAY', token: 'sim_wallet_approved' },
            },
          },
        },
      },
    });
    expect(model.phase.value).toBe('done');
  });

  test('Apple Pay with the declined answer sends the declined token; the failed payment is shown as failed', async () => {
    const failed = { ...PAYMENT, status: 'failed', error_code: 'card_declined', error_message: 'card_declined' };
    const { model, requests } = await loaded(fakeApi({ methods: () => json(WITH_WALLETS), sessionTokens: () => tokens('apple_pay'), confirm: () => json(failed) }));
    model.select('wallet:apple_pay');
    model.walletOutcome.value = 'declined';
    expect(await model.confirm({ redirect: 'if_required' })).toEqual({ payment: failed });
    const confirm = posts(requests).at(-1)?.body as { payment_method_data: { wallet: { apple_pay: { payment_data: string } } } };
    expect(confirm.payment_method_data.wallet.apple_pay.payment_data).toBe('sim_wallet_declined');
    expect(model.notice.value).toMatchObject({ kind: 'error', key: 'failed' });
  });

  test('PayPal opens its order first and confirms with the order id', async () => {
    const order = { payment_id: 'pay_abc123', status: 'requires_payment_method', next_action: { type: 'invoke_sdk_client', next_action_data: { wallet_name: 'paypal', order_id: 'sim_order_9', next_action: 'confirm' } } };
    const { model, requests } = await loaded(
      fakeApi({ methods: () => json(WITH_WALLETS), sessionTokens: () => tokens('paypal'), walletOrder: () => json(order), confirm: () => json({ ...PAYMENT, status: 'succeeded' }) }),
    );
    model.select('wallet:paypal');
    await model.confirm({ redirect: 'if_required' });
    expect(posts(requests).slice(1)).toEqual([
      { path: '/payments/pay_abc123/post_session_tokens', body: { client_secret: CONFIG.clientSecret, payment_method: 'wallet', payment_method_type: 'paypal' } },
      {
        path: '/payments/pay_abc123/confirm',
        body: { client_secret: CONFIG.clientSecret, payment_method: 'wallet', payment_method_type: 'paypal', payment_method_data: { wallet: { paypal_sdk: { token: 'sim_order_9' } } } },
      },
    ]);
  });

  test('a refused PayPal order resolves its error and confirms nothing', async () => {
    const error = { type: 'invalid_request', code: 'ERR_4004', message: 'No such wallet order.' };
    const { model, requests } = await loaded(
      fakeApi({ methods: () => json(WITH_WALLETS), sessionTokens: () => tokens('paypal'), walletOrder: () => json({ error }, 400) }),
    );
    model.select('wallet:paypal');
    expect(await model.confirm({ redirect: 'if_required' })).toEqual({ error });
    expect(requests.some((request) => request.url.endsWith('/confirm'))).toBe(false);
    expect(model.phase.value).toBe('ready');
  });
});

describe('external 3DS (next_action three_ds_invoke)', () => {
  const CARD_METHODS = { currency: 'EUR', payment_methods: [{ payment_method: 'card' }] };
  const invoke = {
    ...PAYMENT,
    status: 'requires_customer_action',
    next_action: {
      type: 'three_ds_invoke',
      three_ds_data: {
        three_ds_authentication_url: 'https://elsewhere.test/steal',
        three_ds_authorize_url: 'https://elsewhere.test/steal',
        three_ds_method_details: { three_ds_method_data_submission: false },
        message_version: '2.2.0',
        directory_server_id: 'A000000003',
      },
    },
  };

  async function confirmCard(overrides: Parameters<typeof fakeApi>[0]) {
    const result = await loaded(fakeApi({ methods: () => json(CARD_METHODS), confirm: () => json(invoke), vault: () => json(VAULT_TOKEN), ...overrides }));
    result.model.card.setNumber('4000000000003055');
    result.model.card.setExpiry('12 / 39');
    result.model.card.setCvc('123');
    result.model.card.setName('Asha Rao');
    const outcome = await result.model.confirm({ redirect: 'if_required' });
    return { ...result, outcome };
  }

  test('frictionless (Y): authenticates on its own API path, then completes the authorization', async () => {
    const succeeded = { ...PAYMENT, status: 'succeeded' };
    const { outcome, requests, model } = await confirmCard({ threeDs: () => json({ trans_status: 'Y' }), completeAuthorize: () => json(succeeded) });
    expect(outcome).toEqual({ payment: succeeded });
    expect(posts(requests).slice(2)).toEqual([
      { path: '/payments/pay_abc123/3ds/authentication', body: { client_secret: CONFIG.clientSecret, device_channel: 'BRW', threeds_method_comp_ind: 'U' } },
      { path: '/payments/pay_abc123/complete_authorize', body: { client_secret: CONFIG.clientSecret } },
    ]);
    expect(requests.every((request) => request.url.startsWith(CONFIG.apiBaseUrl))).toBe(true);
    expect(model.phase.value).toBe('done');
  });

  test('challenge (C): no authorization; the payment now redirects to the challenge, handed to the host', async () => {
    const challenge = { ...PAYMENT, status: 'requires_customer_action', next_action: { type: 'redirect_to_url', redirect_to_url: 'https://api.rail.test/simulator/3ds/pay_abc123?challenge=x' } };
    const { outcome, requests, model } = await confirmCard({ threeDs: () => json({ trans_status: 'C' }), retrieve: () => json(challenge) });
    expect(outcome).toEqual({ payment: challenge });
    expect(requests.some((request) => request.url.endsWith('/complete_authorize'))).toBe(false);
    expect(model.notice.value?.key).toBe('redirecting');
  });

  test('rejected (N): the failed payment is read and shown as failed', async () => {
    const failed = { ...PAYMENT, status: 'failed', error_code: 'authentication_failed', error_message: 'authentication_failed' };
    const { outcome, model } = await confirmCard({ threeDs: () => json({ trans_status: 'N' }), retrieve: () => json(failed) });
    expect(outcome).toEqual({ payment: failed });
    expect(model.notice.value).toMatchObject({ kind: 'error', key: 'failed' });
  });

  test('an authentication error resolves as an error and the form is usable again', async () => {
    const error = { type: 'invalid_request', code: 'ERR_4016', message: 'Already authenticated.' };
    const { outcome, model } = await confirmCard({ threeDs: () => json({ error }, 400) });
    expect(outcome).toEqual({ error });
    expect(model.phase.value).toBe('ready');
  });
});
