import { describe, expect, test } from 'vitest';
import { FINAL_PAYMENT_STATUSES } from '../../protocol/payments';
import { FINAL_STATUSES, PaymentModel } from './payment-model';
import { loadMessages } from './i18n';
import { CONFIG, METHODS, PAYMENT, fakeApi, json, modelDeps } from './test-utils';

async function loaded(api = fakeApi()) {
  const harness = modelDeps(api.fetch);
  const model = new PaymentModel(harness.deps);
  await model.load();
  return { model, ...harness, ...api };
}

const WAIT = {
  type: 'wait_screen_information',
  display_from_timestamp: 1_700_000_000,
  display_to_timestamp: null,
  poll_interval_ms: 1000,
};

describe('load()', () => {
  test('fetches methods and payment in one simple GET (the publishable key as key=, no header), then emits ready once', async () => {
    const { model, events, requests } = await loaded();
    expect(model.phase.value).toBe('ready');
    expect(model.amount.value).toEqual({ value: 10050, currency: 'INR' });
    expect(model.methodAvailable.value).toBe(true);
    expect(requests.map((request) => [request.method, request.url, request.headers])).toEqual([
      [
        'GET',
        `https://api.rail.test/account/payment_methods?client_secret=${encodeURIComponent(CONFIG.clientSecret)}&expand_payment=true&key=${encodeURIComponent(CONFIG.publishableKey)}`,
        {},
      ],
    ]);
    await model.load();
    expect(events.filter((event) => event.type === 'ready')).toHaveLength(1);
  });

  test('a frame in another locale than English is ready in its words: the first load waits for their chunk', async () => {
    const harness = modelDeps(fakeApi().fetch, { ...CONFIG, locale: 'hi' });
    const model = new PaymentModel(harness.deps);
    await model.load();
    expect(harness.events.filter((event) => event.type === 'ready')).toHaveLength(1);
    expect(model.messages.value).toEqual(await loadMessages('hi'));
    expect(model.messages.value.upiLabel).not.toBe('UPI ID');
  });

  test('emits loaderror with the API error and shows a notice', async () => {
    const error = { type: 'invalid_request', code: 'ERR_1006', message: 'client_secret has expired' };
    const { model, events } = await loaded(fakeApi({ methods: () => json({ error }, 400) }));
    expect(model.phase.value).toBe('loaderror');
    expect(events).toContainEqual({ type: 'loaderror', error });
    expect(model.notice.value).toEqual({ kind: 'error', key: 'loadFailed' });
  });

  test('emits loaderror ERR_6004 when the API is unreachable', async () => {
    const { events } = await loaded(fakeApi({ retrieve: () => Promise.reject(new TypeError('Failed to fetch')) }));
    expect(events).toContainEqual({ type: 'loaderror', error: expect.objectContaining({ code: 'ERR_6004' }) });
  });

  test('says so when no method the frame can take is offered', async () => {
    const { model } = await loaded(fakeApi({ methods: () => json({ ...METHODS, payment_methods: [{ payment_method: 'wallet' }] }) }));
    expect(model.methodAvailable.value).toBe(false);
    expect(model.notice.value?.key).toBe('noMethods');
    expect(await model.confirm({ redirect: 'if_required' })).toEqual({ error: expect.objectContaining({ code: 'ERR_6005' }) });
  });
});

describe('change events', () => {
  test('fire when completeness or emptiness changes, without the VPA', async () => {
    const { model, events } = await loaded();
    model.upi.input('s');
    model.upi.input('su');
    model.upi.input('success@upi');
    model.upi.input('');
    const changes = events.filter((event) => event.type === 'change');
    expect(changes).toEqual([
      { type: 'change', complete: false, empty: false, value: { type: 'upi_collect' } },
      { type: 'change', complete: true, empty: false, value: { type: 'upi_collect' } },
      { type: 'change', complete: false, empty: true, value: { type: 'upi_collect' } },
    ]);
    expect(JSON.stringify(events)).not.toContain('success@upi');
  });
});

describe('confirm()', () => {
  test('sends the UPI collect body and resolves the payment', async () => {
    const { model, requests } = await loaded();
    model.upi.input('success@upi');
    const outcome = await model.confirm({ redirect: 'if_required', return_url: 'https://shop.test/done' });
    expect(outcome).toEqual({ payment: { ...PAYMENT, status: 'succeeded' } });
    const confirm = requests.find((request) => request.method === 'POST')!;
    expect(confirm.url).toBe('https://api.rail.test/payments/pay_abc123/confirm');
    expect(confirm.headers).toEqual({ 'api-key': CONFIG.publishableKey, 'content-type': 'application/json' });
    expect(confirm.body).toEqual({
      client_secret: CONFIG.clientSecret,
      payment_method: 'upi',
      payment_method_type: 'upi_collect',
      payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } },
      return_url: 'https://shop.test/done',
    });
    expect(model.phase.value).toBe('done');
    expect(model.notice.value?.key).toBe('succeeded');
  });

  test.each([
    ['', 'The UPI ID is missing.', 'vpaRequired'],
    ['bad', 'The UPI ID is not valid.', 'vpaInvalid'],
  ])('refuses %j with ERR_6005 and shows the field error, without calling the API', async (vpa, message, key) => {
    const { model, requests } = await loaded();
    model.upi.input(vpa);
    expect(await model.confirm({ redirect: 'if_required' })).toEqual({
      error: { type: 'validation_error', code: 'ERR_6005', message, field_name: 'vpa_id' },
    });
    expect(model.upi.errorKey.value).toBe(key);
    expect(requests.some((request) => request.method === 'POST')).toBe(false);
  });

  test('resolves a failed payment and shows its error message', async () => {
    const failed = { ...PAYMENT, status: 'failed', error_code: 'UPI_DECLINED', error_message: 'Declined by the bank.' };
    const { model } = await loaded(fakeApi({ confirm: () => json(failed) }));
    model.upi.input('failure@upi');
    expect(await model.confirm({ redirect: 'if_required' })).toEqual({ payment: failed });
    expect(model.notice.value).toEqual({ kind: 'error', key: 'failed', detail: 'Declined by the bank.' });
    expect(model.phase.value).toBe('ready');
  });

  test('resolves the API error body as is', async () => {
    const error = { type: 'invalid_request', code: 'ERR_4003', message: 'Not allowed in status succeeded.' };
    const { model } = await loaded(fakeApi({ confirm: () => json({ error }, 400) }));
    model.upi.input('success@upi');
    expect(await model.confirm({ redirect: 'if_required' })).toEqual({ error });
  });

  test('polls a wait screen until a final status', async () => {
    let polls = 0;
    const api = fakeApi({
      confirm: () => json({ ...PAYMENT, status: 'requires_customer_action', next_action: WAIT }),
      retrieve: () => {
        polls += 1;
        if (polls === 1) return json(PAYMENT); // the load
        if (polls === 2) return Promise.reject(new TypeError('network blip'));
        if (polls < 4) return json({ ...PAYMENT, status: 'requires_customer_action', next_action: WAIT });
        return json({ ...PAYMENT, status: 'succeeded', next_action: null });
      },
    });
    const { model, now } = await loaded(api);
    const start = now();
    model.upi.input('pending@upi');
    const outcome = await model.confirm({ redirect: 'if_required' });
    expect(outcome).toEqual({ payment: expect.objectContaining({ status: 'succeeded' }) });
    expect(polls).toBe(4);
    expect(now() - start).toBe(3000);
    const pollUrl = `https://api.rail.test/payments/pay_abc123?client_secret=${encodeURIComponent(CONFIG.clientSecret)}&key=${encodeURIComponent(CONFIG.publishableKey)}`;
    const pollRequests = api.requests.filter((request) => request.url.includes('/payments/pay_abc123?'));
    expect(pollRequests.map((request) => [request.method, request.url, request.headers])).toEqual([
      ['GET', pollUrl, {}],
      ['GET', pollUrl, {}],
      ['GET', pollUrl, {}],
    ]);
  });

  test('stops polling at display_to_timestamp and resolves the payment still waiting', async () => {
    const waiting = { ...PAYMENT, status: 'requires_customer_action', next_action: { ...WAIT, display_to_timestamp: 1_700_000_005 } };
    const api = fakeApi({ confirm: () => json(waiting), retrieve: () => json(waiting) });
    const { model } = await loaded(api);
    model.upi.input('pending@upi');
    const outcome = await model.confirm({ redirect: 'if_required' });
    expect(outcome).toEqual({ payment: expect.objectContaining({ status: 'requires_customer_action' }) });
    expect(model.notice.value?.key).toBe('pending');
  });

  test('shares one request between concurrent confirms', async () => {
    const { model, requests } = await loaded();
    model.upi.input('success@upi');
    const [first, second] = await Promise.all([model.confirm({ redirect: 'if_required' }), model.confirm({ redirect: 'if_required' })]);
    expect(first).toBe(second);
    expect(requests.filter((request) => request.method === 'POST')).toHaveLength(1);
  });

  test('waits for a load in progress before confirming', async () => {
    const api = fakeApi();
    const { deps } = modelDeps(api.fetch);
    const model = new PaymentModel(deps);
    const loading = model.load();
    model.upi.input('success@upi');
    const outcome = await model.confirm({ redirect: 'if_required' });
    await loading;
    expect(outcome).toEqual({ payment: expect.objectContaining({ status: 'succeeded' }) });
  });

  test('refuses to confirm after a load error with ERR_6003', async () => {
    const { model } = await loaded(fakeApi({ methods: () => json({ error: { type: 'x', code: 'ERR_1002', message: 'bad key' } }, 401) }));
    model.upi.input('success@upi');
    expect(await model.confirm({ redirect: 'if_required' })).toEqual({ error: expect.objectContaining({ code: 'ERR_6003' }) });
  });
});

describe('update() and clear()', () => {
  test('a new clientSecret reloads and empties the form; locale and appearance apply live', async () => {
    const { model, requests } = await loaded();
    model.upi.input('success@upi');
    model.update({ locale: 'fr', appearance: { theme: 'night' } });
    // French is a chunk of its own: English until it is in.
    expect(model.messages.value.upiLabel).toBe('UPI ID');
    await loadMessages('fr');
    expect(model.messages.value.upiLabel).toBe('Identifiant UPI');
    expect(model.appearance.value).toEqual({ theme: 'night' });
    expect(model.upi.text.value).toBe('success@upi');
    model.update({ clientSecret: 'pay_xyz_secret_' + 'T'.repeat(20) });
    expect(model.upi.text.value).toBe('');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(requests.at(-1)?.url).toBe(`https://api.rail.test/account/payment_methods?client_secret=pay_xyz_secret_${'T'.repeat(20)}&expand_payment=true&key=${encodeURIComponent(CONFIG.publishableKey)}`);
  });

  test('clear empties the field', async () => {
    const { model } = await loaded();
    model.upi.input('bad');
    model.upi.reveal();
    model.clear();
    expect([model.upi.text.value, model.upi.errorKey.value]).toEqual(['', null]);
  });
});

test('keeps the final statuses in step with protocol/payments.ts', () => {
  expect([...FINAL_STATUSES].sort()).toEqual([...FINAL_PAYMENT_STATUSES].sort());
});
