import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { ConfirmOutcome } from '../../protocol/frame-messages';
import { FINAL_PAYMENT_STATUSES } from '../../protocol/payments';
import { IntegrationError } from './errors';
import { FINAL_STATUSES, createRail, returnUrlFor } from './rail';
import { CLIENT_SECRET, PAYMENT, PUBLISHABLE_KEY, disableIframeLoading, fakeEnv, flush } from './test-utils';

beforeEach(() => {
  disableIframeLoading();
  document.body.innerHTML = '<div id="payment"></div><div id="other"></div>';
});
afterEach(() => {
  document.body.innerHTML = '';
});

function setup(outcome?: ConfirmOutcome) {
  const fake = fakeEnv(outcome);
  const rail = createRail(PUBLISHABLE_KEY, undefined, fake.env);
  const elements = rail.elements({ clientSecret: CLIENT_SECRET });
  return { ...fake, rail, elements };
}

describe('Rail()', () => {
  const BAD_KEYS: [string, unknown, RegExp][] = [
    ['a secret key', 'rail_full_test_' + 'x'.repeat(32), /got a secret key/],
    ['a missing key', undefined, /got undefined/],
    ['a foreign key', 'pk_test_123', /got string "pk_test_123"/],
    ['a number', 7, /got number/],
  ];
  test.each(BAD_KEYS)('throws an IntegrationError for %s', (_name, key, message) => {
    const { env } = fakeEnv();
    expect(() => createRail(key as string, undefined, env)).toThrow(IntegrationError);
    expect(() => createRail(key as string, undefined, env)).toThrow(message);
  });

  test('rejects a customBackendUrl that is not http(s)', () => {
    expect(() => createRail(PUBLISHABLE_KEY, { customBackendUrl: 'javascript:alert(1)' }, fakeEnv().env)).toThrow(/customBackendUrl/);
  });

  test('gives every instance its own state: elements from one are refused by another', async () => {
    const fake = fakeEnv();
    const first = createRail(PUBLISHABLE_KEY, undefined, fake.env);
    const second = createRail(PUBLISHABLE_KEY, undefined, fake.env);
    const elements = first.elements({ clientSecret: CLIENT_SECRET });
    elements.create('payment').mount('#payment');
    expect(await second.confirmPayment({ elements })).toEqual({ error: expect.objectContaining({ code: 'ERR_6002', field_name: 'elements' }) });
  });

  test('sends customBackendUrl to the frame', () => {
    const fake = fakeEnv();
    const rail = createRail(PUBLISHABLE_KEY, { customBackendUrl: 'https://backend.test/' }, fake.env);
    rail.elements({ clientSecret: CLIENT_SECRET }).create('payment').mount('#payment');
    const config = JSON.parse(new URLSearchParams(new URL(fake.connections[0]!.iframe.src).hash.slice(1)).get('config')!);
    expect(config).toMatchObject({ apiBaseUrl: 'https://backend.test', publishableKey: PUBLISHABLE_KEY });
    expect(config).not.toHaveProperty('profileId');
  });

  test('without customBackendUrl the frame gets no API base (it uses its deployment\'s) and nothing is fetched', () => {
    const fake = fakeEnv();
    createRail(PUBLISHABLE_KEY, undefined, fake.env).elements({ clientSecret: CLIENT_SECRET }).create('payment').mount('#payment');
    const config = JSON.parse(new URLSearchParams(new URL(fake.connections[0]!.iframe.src).hash.slice(1)).get('config')!);
    expect(config).not.toHaveProperty('apiBaseUrl');
    expect(fake.env.deploymentApiBaseUrl).not.toHaveBeenCalled();
    expect(fake.fetch).not.toHaveBeenCalled();
  });

  test('refuses profileId with an IntegrationError saying it is not supported, instead of ignoring it', () => {
    const { env } = fakeEnv();
    expect(() => createRail(PUBLISHABLE_KEY, { profileId: 'pro_1' }, env)).toThrow(IntegrationError);
    expect(() => createRail(PUBLISHABLE_KEY, { profileId: 'pro_1' }, env)).toThrow(/profileId is not supported yet/);
    expect(() => createRail(PUBLISHABLE_KEY, { profileId: undefined }, env)).not.toThrow();
  });

  test('keeps the final statuses in step with protocol/payments.ts', () => {
    expect([...FINAL_STATUSES].sort()).toEqual([...FINAL_PAYMENT_STATUSES].sort());
  });
});

describe('rail.elements()', () => {
  test.each([
    ['no options', undefined],
    ['a malformed clientSecret', { clientSecret: 'nope' }],
    ['an unknown locale', { clientSecret: CLIENT_SECRET, locale: 'xx' }],
    ['a non-object appearance', { clientSecret: CLIENT_SECRET, appearance: 'dark' }],
  ])('throws for %s', (_name, options) => {
    const { env } = fakeEnv();
    const rail = createRail(PUBLISHABLE_KEY, undefined, env);
    expect(() => rail.elements(options as never)).toThrow(IntegrationError);
  });

  test('allows one payment element per group, and a new one after destroy', () => {
    const { elements } = setup();
    const element = elements.create('payment');
    expect(() => elements.create('payment')).toThrow(/already has a payment element/);
    expect(elements.getElement('payment')).toBe(element);
    element.destroy();
    expect(elements.getElement('payment')).toBeNull();
    expect(() => elements.create('payment')).not.toThrow();
  });

  test('update() pushes locale, appearance and clientSecret to the mounted frame', async () => {
    const { elements, connections, remote } = setup();
    elements.create('payment').mount('#payment');
    connections[0]!.connect();
    const secret = 'pay_other_secret_' + 'T'.repeat(20);
    elements.update({ locale: 'fr', appearance: { theme: 'night' }, clientSecret: secret });
    await flush();
    expect(remote.update).toHaveBeenCalledWith({ locale: 'fr', appearance: { theme: 'night' }, clientSecret: secret });
  });

  test('update() before mount changes the config the frame starts with', () => {
    const { elements, connections } = setup();
    elements.update({ locale: 'fr' });
    elements.create('payment').mount('#payment');
    expect(new URL(connections[0]!.iframe.src).hash).toContain(encodeURIComponent('"locale":"fr"'));
  });
});

describe('rail.confirmPayment()', () => {
  test('resolves ERR_6001 when the payment element is not mounted', async () => {
    const { rail, elements } = setup();
    expect(await rail.confirmPayment({ elements })).toEqual({ error: expect.objectContaining({ code: 'ERR_6001' }) });
    elements.create('payment');
    expect(await rail.confirmPayment({ elements })).toEqual({ error: expect.objectContaining({ code: 'ERR_6001' }) });
  });

  test('resolves the payment the frame returns, waiting for the handshake', async () => {
    const { rail, elements, connections, remote } = setup();
    elements.create('payment').mount('#payment');
    const result = rail.confirmPayment({ elements, confirmParams: { return_url: 'https://shop.test/done' }, redirect: 'if_required' });
    connections[0]!.connect();
    expect(await result).toEqual({ payment: PAYMENT });
    expect(remote.confirm).toHaveBeenCalledWith({ redirect: 'if_required', return_url: 'https://shop.test/done' });
  });

  test('resolves the error the frame returns', async () => {
    const error = { type: 'validation_error', code: 'ERR_6005', message: 'The UPI ID is missing.', field_name: 'vpa_id' };
    const { rail, elements, connections } = setup({ error });
    elements.create('payment').mount('#payment');
    connections[0]!.connect();
    expect(await rail.confirmPayment({ elements })).toEqual({ error });
  });

  test('when the frame focused the field its error names, the iframe gets the page\'s focus; the merchant sees the error alone', async () => {
    const error = { type: 'validation_error', code: 'ERR_6005', message: 'The card number is not valid.', field_name: 'card_number' };
    const { rail, elements, connections, remote } = setup({ error, focused: true });
    const element = elements.create('payment');
    element.mount('#payment');
    connections[0]!.connect();
    expect(await rail.confirmPayment({ elements })).toEqual({ error });
    expect(document.activeElement).toBe(document.querySelector('#payment iframe'));
    // Focusing the iframe leaves the frame's focus on its body: the frame is asked to focus the field again.
    await flush();
    expect(remote.focus).toHaveBeenCalledWith('card_number');
  });

  test('an error the frame did not focus a field for leaves the page\'s focus where it is', async () => {
    const error = { type: 'invalid_request_error', code: 'ERR_2003', message: 'amount is invalid.', field_name: 'amount' };
    const { rail, elements, connections, remote } = setup({ error });
    elements.create('payment').mount('#payment');
    connections[0]!.connect();
    const button = document.body.appendChild(document.createElement('button'));
    button.focus();
    expect(await rail.confirmPayment({ elements })).toEqual({ error });
    expect(document.activeElement).toBe(button);
    await flush();
    expect(remote.focus).not.toHaveBeenCalled();
  });

  const BAD_PARAMS: [string, object, string, string | undefined][] = [
    ['no options', {}, 'ERR_6002', 'elements'],
    ['an unknown redirect', { redirect: 'never' }, 'ERR_2003', 'redirect'],
    ['a javascript: return_url', { confirmParams: { return_url: 'javascript:alert(1)' } }, 'ERR_2003', 'return_url'],
    ['a relative return_url', { confirmParams: { return_url: '/done' } }, 'ERR_2003', 'return_url'],
    ['a too long return_url', { confirmParams: { return_url: 'https://shop.test/' + 'a'.repeat(2048) } }, 'ERR_2003', 'return_url'],
    ['redirect always without return_url', { redirect: 'always' }, 'ERR_2001', 'return_url'],
  ];
  test.each(BAD_PARAMS)('resolves an error for %s', async (_name, params, code, fieldName) => {
    const { rail, elements } = setup();
    elements.create('payment').mount('#payment');
    const withElements = 'confirmParams' in params || 'redirect' in params ? { elements, ...params } : params;
    const result = await rail.confirmPayment(withElements as never);
    expect(result.error).toMatchObject({ code, field_name: fieldName });
  });

  test('navigates to a redirect_to_url from the API and stays pending', async () => {
    const payment = { ...PAYMENT, status: 'requires_customer_action' as const, next_action: { type: 'redirect_to_url' as const, redirect_to_url: 'https://bank.test/auth' } };
    const { rail, elements, connections, navigate } = setup({ payment });
    elements.create('payment').mount('#payment');
    connections[0]!.connect();
    const settled = vi.fn();
    rail.confirmPayment({ elements }).then(settled);
    await flush();
    expect(navigate).toHaveBeenCalledWith('https://bank.test/auth');
    expect(settled).not.toHaveBeenCalled();
  });

  test('refuses a redirect_to_url that is not http(s)', async () => {
    const payment = { ...PAYMENT, status: 'requires_customer_action' as const, next_action: { type: 'redirect_to_url' as const, redirect_to_url: 'javascript:alert(1)' } };
    const { rail, elements, connections, navigate } = setup({ payment });
    elements.create('payment').mount('#payment');
    connections[0]!.connect();
    expect((await rail.confirmPayment({ elements })).error?.code).toBe('ERR_5000');
    expect(navigate).not.toHaveBeenCalled();
  });

  test('redirect always goes to return_url with payment_id and status after a final status', async () => {
    const { rail, elements, connections, navigate } = setup({ payment: { ...PAYMENT, status: 'failed' } });
    elements.create('payment').mount('#payment');
    connections[0]!.connect();
    void rail.confirmPayment({ elements, confirmParams: { return_url: 'https://shop.test/done?order=7' }, redirect: 'always' });
    await flush();
    expect(navigate).toHaveBeenCalledWith('https://shop.test/done?order=7&payment_id=pay_abc123&status=failed');
  });

  test.each([
    ['failed', { error_code: 'card_declined', error_message: 'Your card was declined.' }, 'Your card was declined.', 'card_declined'],
    ['failed', { error_code: null, error_message: null }, 'The payment failed.', undefined],
    ['cancelled', {}, 'The payment was cancelled.', undefined],
  ] as const)('a payment that ends %s resolves { error } of type payment_failed (ERR_6007) holding the payment, never { payment }', async (status, fields, message, declineCode) => {
    const payment = { ...PAYMENT, status, ...fields };
    const { rail, elements, connections } = setup({ payment: payment as never });
    elements.create('payment').mount('#payment');
    connections[0]!.connect();
    const result = await rail.confirmPayment({ elements, redirect: 'if_required' });
    expect(result.payment).toBeUndefined();
    expect(result.error).toEqual({ type: 'payment_failed', code: 'ERR_6007', message, payment, ...(declineCode ? { decline_code: declineCode } : {}) });
  });

  test.each(['succeeded', 'processing', 'requires_capture'] as const)('a payment that is %s resolves { payment }', async (status) => {
    const payment = { ...PAYMENT, status };
    const { rail, elements, connections } = setup({ payment: payment as never });
    elements.create('payment').mount('#payment');
    connections[0]!.connect();
    expect(await rail.confirmPayment({ elements })).toEqual({ payment });
  });

  test('redirect always resolves a payment that is not final yet', async () => {
    const payment = { ...PAYMENT, status: 'requires_customer_action' as const };
    const { rail, elements, connections, navigate } = setup({ payment });
    elements.create('payment').mount('#payment');
    connections[0]!.connect();
    expect(await rail.confirmPayment({ elements, confirmParams: { return_url: 'https://shop.test/' }, redirect: 'always' })).toEqual({ payment });
    expect(navigate).not.toHaveBeenCalled();
  });

  test('resolves ERR_6003 when the frame handshake fails', async () => {
    const { rail, elements, connections } = setup();
    elements.create('payment').mount('#payment');
    connections[0]!.fail();
    expect((await rail.confirmPayment({ elements })).error?.code).toBe('ERR_6003');
  });

  test('resolves ERR_6006 instead of hanging when the element is unmounted during the handshake', async () => {
    const { rail, elements } = setup();
    const element = elements.create('payment').mount('#payment');
    const result = rail.confirmPayment({ elements });
    element.unmount();
    expect((await result).error?.code).toBe('ERR_6006');
  });

  test('resolves ERR_6003 when the frame call itself fails', async () => {
    const { rail, elements, connections, remote } = setup();
    remote.confirm.mockRejectedValueOnce(new Error('METHOD_CALL_TIMEOUT'));
    elements.create('payment').mount('#payment');
    connections[0]!.connect();
    expect((await rail.confirmPayment({ elements })).error?.code).toBe('ERR_6003');
  });
});

describe('rail.retrievePayment()', () => {
  test('reads the payment with the publishable key as key= and no header (a simple GET, no preflight)', async () => {
    const { rail, fetch } = setup();
    fetch.mockResolvedValueOnce(new Response(JSON.stringify(PAYMENT), { status: 200 }));
    expect(await rail.retrievePayment(CLIENT_SECRET)).toEqual({ payment: PAYMENT });
    expect(fetch.mock.calls).toEqual([
      [`https://api.rail.test/payments/pay_abc123?client_secret=${encodeURIComponent(CLIENT_SECRET)}&key=${encodeURIComponent(PUBLISHABLE_KEY)}`],
    ]);
  });

  test('with customBackendUrl it calls that backend and does not ask the deployment', async () => {
    const fake = fakeEnv();
    const rail = createRail(PUBLISHABLE_KEY, { customBackendUrl: 'https://backend.test/' }, fake.env);
    fake.fetch.mockResolvedValueOnce(new Response(JSON.stringify(PAYMENT), { status: 200 }));
    expect(await rail.retrievePayment(CLIENT_SECRET)).toEqual({ payment: PAYMENT });
    expect(fake.fetch.mock.calls[0]![0]).toBe(`https://backend.test/payments/pay_abc123?client_secret=${encodeURIComponent(CLIENT_SECRET)}&key=${encodeURIComponent(PUBLISHABLE_KEY)}`);
    expect(fake.env.deploymentApiBaseUrl).not.toHaveBeenCalled();
  });

  test.each([
    ['the deployment config cannot be read', () => Promise.reject(new TypeError('Failed to fetch'))],
    ['the deployment names a base that is not http(s)', () => Promise.resolve('javascript:alert(1)')],
  ])('resolves ERR_6004 when %s, without calling the API', async (_name, answer) => {
    const { rail, fetch, env } = setup();
    vi.mocked(env.deploymentApiBaseUrl).mockImplementationOnce(answer);
    expect((await rail.retrievePayment(CLIENT_SECRET)).error?.code).toBe('ERR_6004');
    expect(fetch).not.toHaveBeenCalled();
  });

  test('resolves the API error body', async () => {
    const { rail, fetch } = setup();
    const error = { type: 'invalid_request', code: 'ERR_1006', message: 'expired' };
    fetch.mockResolvedValueOnce(new Response(JSON.stringify({ error }), { status: 400 }));
    expect(await rail.retrievePayment(CLIENT_SECRET)).toEqual({ error });
  });

  test.each([
    ['a network failure', () => Promise.reject(new TypeError('Failed to fetch')), 'ERR_6004'],
    ['a body that is not JSON', () => Promise.resolve(new Response('<html>', { status: 502 })), 'ERR_6004'],
  ])('resolves %s as %s', async (_name, respond, code) => {
    const { rail, fetch } = setup();
    fetch.mockImplementationOnce(respond);
    expect((await rail.retrievePayment(CLIENT_SECRET)).error?.code).toBe(code);
  });

  test('resolves ERR_6002 for a malformed client secret without calling the API', async () => {
    const { rail, fetch } = setup();
    expect((await rail.retrievePayment('nope')).error?.code).toBe('ERR_6002');
    expect(fetch).not.toHaveBeenCalled();
  });
});

test('returnUrlFor keeps the merchant query and replaces stale payment params', () => {
  expect(returnUrlFor('https://shop.test/r?a=1&status=old', { ...PAYMENT })).toBe('https://shop.test/r?a=1&status=succeeded&payment_id=pay_abc123');
});

test.each([[Infinity], [2 ** 31], [-1], ['5000']])('a frameTimeout of %s falls back to the default instead of timing out at once', (frameTimeout) => {
  document.body.innerHTML = '<div id="payment"></div>';
  const fake = fakeEnv();
  const rail = createRail(PUBLISHABLE_KEY, { frameTimeout: frameTimeout as number }, fake.env);
  rail.elements({ clientSecret: 'pay_abc123_secret_' + 'S'.repeat(20) }).create('payment').mount('#payment');
  expect(fake.connections[0]?.options.timeout).toBe(fake.env.frameTimeout);
  document.body.innerHTML = '';
});

test('a frameTimeout within range is used', () => {
  document.body.innerHTML = '<div id="payment"></div>';
  const fake = fakeEnv();
  createRail(PUBLISHABLE_KEY, { frameTimeout: 30_000 }, fake.env).elements({ clientSecret: 'pay_abc123_secret_' + 'S'.repeat(20) }).create('payment').mount('#payment');
  expect(fake.connections[0]?.options.timeout).toBe(30_000);
  document.body.innerHTML = '';
});
