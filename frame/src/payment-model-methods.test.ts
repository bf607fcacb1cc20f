import { describe, expect, test } from 'vitest';
import { PaymentModel, methodOptions } from './payment-model';
import { ALL_METHODS, CONFIG, PAYMENT, VAULT_TOKEN, fakeApi, json, modelDeps } from './test-utils';

const CARD_NUMBER = '4242424242424242';

async function loaded(api = fakeApi({ methods: () => json(ALL_METHODS) })) {
  const harness = modelDeps(api.fetch);
  const model = new PaymentModel(harness.deps);
  await model.load();
  return { model, ...harness, ...api };
}

function fillCard(model: InstanceType<typeof PaymentModel>, number = CARD_NUMBER) {
  model.card.setNumber(number);
  model.card.setExpiry('12 / 39');
  model.card.setCvc('123');
  model.card.setName('Asha Rao');
}

describe('methodOptions()', () => {
  test('orders card, UPI, bank transfer, mobile money, crypto and merges credit/debit into one card option', () => {
    expect(methodOptions(ALL_METHODS).map((option) => option.id)).toEqual([
      'card',
      'upi_collect',
      'upi_qr',
      'bank_transfer:local_bank_transfer',
      'mobile_payment:momo',
      'crypto',
    ]);
  });

  test('offers mobile_payment only as mobile money (momo); carrier billing needs inputs the frame lacks', () => {
    expect(methodOptions({ payment_methods: [{ payment_method: 'mobile_payment', payment_method_types: [{ payment_method_type: 'direct_carrier_billing' }] }] })).toEqual([]);
    expect(methodOptions({ payment_methods: [{ payment_method: 'mobile_payment', payment_method_types: [{ payment_method_type: 'momo' }] }] })).toEqual([
      { id: 'mobile_payment:momo', payment_method: 'mobile_payment', payment_method_type: 'momo', label: 'tabMobileMoney' },
    ]);
  });

  test('leaves out methods the frame cannot take', () => {
    expect(methodOptions({ payment_methods: [{ payment_method: 'wallet' }, { payment_method: 'pay_later' }] })).toEqual([]);
  });
});

describe('card', () => {
  test('selects the first method and emits change with the method type when another is picked', async () => {
    const { model, events } = await loaded();
    expect(model.selectedId.value).toBe('card');
    model.select('crypto');
    expect(events.filter((event) => event.type === 'change')).toEqual([
      { type: 'change', complete: true, empty: false, value: { type: 'crypto' } },
    ]);
  });

  test('tokenizes in the vault, then confirms with the psp_token only', async () => {
    const { model, requests, events } = await loaded();
    fillCard(model);
    const outcome = await model.confirm({ redirect: 'if_required', return_url: 'https://shop.test/done' });
    expect(outcome).toEqual({ payment: { ...PAYMENT, status: 'succeeded' } });
    const [vault, confirm] = requests.filter((request) => request.method === 'POST');
    expect(vault!.url).toBe('https://api.rail.test/vault/tokens');
    expect(vault!.headers['api-key']).toBe(CONFIG.publishableKey);
    expect(vault!.body).toEqual({
      client_secret: CONFIG.clientSecret,
      card_number: CARD_NUMBER,
      card_exp_month: '12',
      card_exp_year: '2039',
      card_cvc: '123',
      card_holder_name: 'Asha Rao',
    });
    expect(confirm!.body).toEqual({
      client_secret: CONFIG.clientSecret,
      payment_method: 'card',
      payment_method_type: 'credit',
      payment_method_data: { psp_token: VAULT_TOKEN.psp_token },
      return_url: 'https://shop.test/done',
    });
    expect(JSON.stringify(confirm!.body)).not.toContain('4242');
    expect(JSON.stringify(events)).not.toMatch(/\d{12,19}/);
    expect(JSON.stringify(outcome)).not.toContain(CARD_NUMBER);
  });

  test('a confirm after the payment succeeded answers it again and sends nothing: no second vault request', async () => {
    const { model, requests } = await loaded();
    fillCard(model);
    const first = await model.confirm({ redirect: 'if_required' });
    const posts = requests.filter((request) => request.method === 'POST').length;
    expect(await model.confirm({ redirect: 'if_required' })).toEqual(first);
    expect(requests.filter((request) => request.method === 'POST')).toHaveLength(posts);
    expect([model.phase.value, model.notice.value?.key]).toEqual(['done', 'succeeded']);
  });

  test('the card goes to the vault of the deployment that served the frame, not to the API the page named', async () => {
    const api = fakeApi({ methods: () => json(ALL_METHODS) });
    const harness = modelDeps(api.fetch, { ...CONFIG, apiBaseUrl: 'https://collector.example', vaultBaseUrl: 'https://api.rail.test' });
    const model = new PaymentModel(harness.deps);
    await model.load();
    fillCard(model);
    await model.confirm({ redirect: 'if_required' });
    const posts = api.requests.filter((request) => request.method === 'POST').map((request) => request.url);
    expect(posts).toEqual(['https://api.rail.test/vault/tokens', 'https://collector.example/payments/pay_abc123/confirm']);
    expect(api.requests.filter((request) => JSON.stringify(request.body ?? '').includes(CARD_NUMBER)).map((request) => request.url)).toEqual([
      'https://api.rail.test/vault/tokens',
    ]);
  });

  test('an incomplete card is refused with ERR_6005 naming the first invalid field, without any request', async () => {
    const { model, requests } = await loaded();
    model.card.setNumber('4242');
    expect(await model.confirm({ redirect: 'if_required' })).toEqual({
      error: { type: 'validation_error', code: 'ERR_6005', message: 'The card number is missing or not valid.', field_name: 'card_number' },
    });
    expect(model.card.errors.value.card_exp).toBe('expiryRequired');
    expect(requests.some((request) => request.method === 'POST')).toBe(false);
  });

  test('a vault refusal resolves its error and does not confirm', async () => {
    const error = { type: 'invalid_request', code: 'ERR_2003', message: 'card_number is not a valid card number', field_name: 'card_number' };
    const { model, requests } = await loaded(fakeApi({ methods: () => json(ALL_METHODS), vault: () => json({ error }, 400) }));
    fillCard(model);
    expect(await model.confirm({ redirect: 'if_required' })).toEqual({ error });
    expect(requests.some((request) => request.url.endsWith('/confirm'))).toBe(false);
    expect(model.phase.value).toBe('ready');
  });

  test('a 3DS redirect_to_url is handed to the host, the frame says it is redirecting', async () => {
    const challenge = { ...PAYMENT, status: 'requires_customer_action', next_action: { type: 'redirect_to_url', redirect_to_url: 'https://api.rail.test/sim/3ds/pay_abc123' } };
    const { model } = await loaded(fakeApi({ methods: () => json(ALL_METHODS), confirm: () => json(challenge) }));
    fillCard(model);
    expect(await model.confirm({ redirect: 'if_required' })).toEqual({ payment: challenge });
    expect(model.phase.value).toBe('processing');
    expect(model.notice.value?.key).toBe('redirecting');
  });

  test('clear empties the card', async () => {
    const { model } = await loaded();
    fillCard(model);
    model.clear();
    expect(model.card.empty.value).toBe(true);
  });
});

describe('screens the frame shows itself', () => {
  const crypto = {
    type: 'crypto_payment_information',
    wallet_address: 'bc1qexample',
    network: 'bitcoin',
    pay_currency: 'BTC',
    pay_amount: '0.0012',
    hosted_page_url: 'https://api.rail.test/sim/crypto/pay_abc123',
  };

  test('crypto: sends pay_currency, shows the address and polls until the payment is final', async () => {
    let reads = 0;
    const waiting = { ...PAYMENT, currency: 'EUR', status: 'requires_customer_action', next_action: crypto };
    const api = fakeApi({
      methods: () => json(ALL_METHODS),
      confirm: () => json(waiting),
      retrieve: () => json(++reads < 4 ? (reads === 1 ? PAYMENT : waiting) : { ...waiting, status: 'succeeded', next_action: null }),
    });
    const harness = modelDeps(api.fetch);
    const model = new PaymentModel(harness.deps);
    await model.load();
    model.select('crypto');
    model.cryptoCurrency.value = 'ETH';
    const pending = model.confirm({ redirect: 'if_required' });
    await Promise.resolve();
    const outcome = await pending;
    expect(outcome).toEqual({ payment: { ...waiting, status: 'succeeded', next_action: null } });
    const confirm = api.requests.find((request) => request.url.endsWith('/confirm'))!;
    expect(confirm.body).toMatchObject({ payment_method: 'crypto', payment_method_type: 'crypto_currency', payment_method_data: { crypto: { pay_currency: 'ETH' } } });
    expect(model.phase.value).toBe('done');
    expect(model.screen.value).toBeNull();
  });

  test('bank transfer: shows the instructions while polling; at the deadline resolves the payment still pending', async () => {
    const action = { type: 'display_bank_transfer_information', bank_transfer_steps_and_charges_details: { account_number: '0123456789', bank_name: 'Rail Bank' } };
    const waiting = { ...PAYMENT, status: 'requires_customer_action', next_action: action };
    const { model, requests } = await loaded(
      fakeApi({ methods: () => json(ALL_METHODS), confirm: () => json(waiting), retrieve: (request) => json(request.url.includes('client_secret') ? waiting : PAYMENT) }),
    );
    model.select('bank_transfer:local_bank_transfer');
    const outcome = await model.confirm({ redirect: 'if_required' });
    expect(outcome).toEqual({ payment: waiting });
    expect(requests.find((request) => request.url.endsWith('/confirm'))!.body).toMatchObject({
      payment_method: 'bank_transfer',
      payment_method_type: 'local_bank_transfer',
      payment_method_data: { bank_transfer: { local_bank_transfer: {} } },
    });
    expect(model.screen.value).toEqual(action);
    expect(model.notice.value?.key).toBe('pending');
  });

  test('mobile money: refuses a missing or malformed number in the frame (ERR_6005, field msisdn) without calling confirm', async () => {
    const { model, requests } = await loaded();
    model.select('mobile_payment:momo');
    expect(await model.confirm({ redirect: 'if_required' })).toEqual({
      error: expect.objectContaining({ code: 'ERR_6005', field_name: 'msisdn', message: 'The mobile money number is missing.' }),
    });
    expect(model.mobileMoney.errorKey.value).toBe('msisdnRequired');
    model.mobileMoney.input('0712 34');
    expect(await model.confirm({ redirect: 'if_required' })).toEqual({
      error: expect.objectContaining({ code: 'ERR_6005', field_name: 'msisdn', message: 'The mobile money number is not valid.' }),
    });
    expect(requests.some((request) => request.url.endsWith('/confirm'))).toBe(false);
  });

  test('mobile money: confirms with the number without its spaces; change events report completeness only', async () => {
    const action = { type: 'display_bank_transfer_information', bank_transfer_steps_and_charges_details: { type: 'mobile_money', business_number: '400200' } };
    const waiting = { ...PAYMENT, status: 'requires_customer_action', next_action: action };
    const { model, requests, events } = await loaded(fakeApi({ methods: () => json(ALL_METHODS), confirm: () => json(waiting), retrieve: () => json(PAYMENT) }));
    model.select('mobile_payment:momo');
    model.mobileMoney.input('+254 712 345 678');
    expect(events.filter((event) => event.type === 'change').at(-1)).toEqual({ type: 'change', complete: true, empty: false, value: { type: 'mobile_payment' } });
    await model.confirm({ redirect: 'if_required' });
    expect(requests.find((request) => request.url.endsWith('/confirm'))!.body).toMatchObject({
      payment_method: 'mobile_payment',
      payment_method_type: 'momo',
      payment_method_data: { mobile_payment: { momo: { msisdn: '+254712345678' } } },
    });
    expect(JSON.stringify(events)).not.toContain('712');
    model.clear();
    expect(model.mobileMoney.text.value).toBe('');
  });

  test('UPI QR: shows the QR next_action', async () => {
    const action = { type: 'qr_code_information', qr_code_url: 'https://api.rail.test/qr', image_data_url: 'data:image/png;base64,AAAA', display_to_timestamp: null };
    const waiting = { ...PAYMENT, status: 'requires_customer_action', next_action: action };
    let reads = 0;
    const { model } = await loaded(
      fakeApi({ methods: () => json(ALL_METHODS), confirm: () => json(waiting), retrieve: () => json(++reads === 1 ? PAYMENT : reads === 2 ? waiting : { ...waiting, status: 'failed', next_action: null }) }),
    );
    model.select('upi_qr');
    let shown: unknown = null;
    const stop = model.screen.subscribe((value) => (shown ??= value));
    const outcome = await model.confirm({ redirect: 'if_required' });
    stop();
    expect(outcome).toEqual({ payment: expect.objectContaining({ status: 'failed' }) });
    expect(shown).toEqual(action);
    expect(model.notice.value?.key).toBe('failed');
  });
});
