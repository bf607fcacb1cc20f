/**
 * Stored payment methods and mandates (issue 11), on SQLite and PostgreSQL: the spec's today-behaviour on the default
 * account ("not live today" 3: token records that cannot be charged, mandate_id null, ERR_4088), and the full
 * lifecycle on a test account that switches recurring on (save with setup_future_usage, charge again, mandates,
 * revoke, webhooks).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CustomerPaymentMethodsResponse, PaymentMethodResponse } from '../../../../../protocol/api/payment-methods';
import type { MandateResponse } from '../../../../../protocol/api/mandates';
import type { PaymentResponse } from '../../../../../protocol/api/payments';
import type { ErrorCode } from '../../../../../protocol/errors';
import type { AccountSettings } from '../../../kernel/account-settings-types';
import { apiRequest, expectApiError, expectOk, type ApiRequestOptions } from '../../../test-support/api-assertions';
import { forEachEngine } from '../../../test-support/engines';
import { ALL_RAILS_SETTINGS } from '../../../test-support/fixtures';
import { PENDING_RESOLVE_AFTER_MS } from '../../../rails/simulator/upi-simulator';
import { createHarness, type Harness } from '../../../test-support/harness';

type Json = Record<string, unknown>;

const UPI = (vpa: string) => ({ upi: { upi_collect: { vpa_id: vpa } } });
/** The customer's acceptance a payment that sets up a mandate carries (Hyperswitch CustomerAcceptance). */
const ACCEPTANCE = { acceptance_type: 'online', accepted_at: '2025-01-01T00:00:00Z', online: { ip_address: '203.0.113.1', user_agent: 'checkout' } };
const JS_ORIGIN = 'http://127.0.0.1:8081';

/** A test account with recurring switched on for UPI and the simulated card acquirer (as RAIL_ACCOUNT_CONFIG sets it). */
const RECURRING_SETTINGS: AccountSettings = {
  ...ALL_RAILS_SETTINGS,
  rails: ALL_RAILS_SETTINGS.rails.map((rail) =>
    rail.rail === 'upi' || rail.rail === 'card' ? { ...rail, capabilities: { ...rail.capabilities, test: { ...rail.capabilities.test, recurring: true } } } : rail,
  ),
};

forEachEngine('Stored payment methods and mandates API', (engine) => {
  let h: Harness;
  let r: Harness;

  beforeAll(async () => {
    h = await createHarness(engine);
    r = await createHarness(engine, { settings: RECURRING_SETTINGS });
  });
  afterAll(async () => {
    await h?.close();
    await r?.close();
  });

  const call = (target: Harness, method: string, path: string, options: ApiRequestOptions = {}) => apiRequest(target, method, path, options);
  const ok = expectOk;
  const newCustomer = async (target: Harness) => (await ok<{ customer_id: string }>(await call(target, 'POST', '/customers', { body: { name: 'Ada' } }))).customer_id;
  const pay = async (target: Harness, body: Json) =>
    ok<PaymentResponse>(await call(target, 'POST', '/payments', { body: { amount: 10_000, currency: 'INR', confirm: true, customer_acceptance: ACCEPTANCE, ...body } }));
  const methodsOf = async (target: Harness, customerId: string) =>
    ok<CustomerPaymentMethodsResponse>(await call(target, 'GET', `/customers/${customerId}/payment_methods`));
  const eventTypesOf = async (target: Harness, objectId: string) =>
    (await ok<{ data: { event_type: string }[] }>(await call(target, 'GET', `/events?object_id=${objectId}`))).data.map((event) => event.event_type).sort();
  const ephemeralKey = async (target: Harness, customerId: string) =>
    (await ok<{ secret: string }>(await call(target, 'POST', '/ephemeral_keys', { body: { customer_id: customerId } }))).secret;

  describe(`[${engine}] today, on the default account`, () => {
    test('POST /payment_methods writes a token record that responds normally: retrieve, list, update, delete', async () => {
      const customerId = await newCustomer(h);
      const created = await ok<PaymentMethodResponse>(
        await call(h, 'POST', '/payment_methods', {
          body: {
            payment_method: 'card',
            payment_method_type: 'credit',
            customer_id: customerId,
            card: { card_exp_month: '3', card_exp_year: '27', card_holder_name: 'Ada Lovelace', nick_name: 'work' },
            metadata: { source: 'test' },
          },
        }),
      );
      expect(created).toMatchObject({
        customer_id: customerId,
        payment_method: 'card',
        payment_method_type: 'credit',
        recurring_enabled: false,
        metadata: { source: 'test' },
        card: { expiry_month: '03', expiry_year: '2027', card_holder_name: 'Ada Lovelace', nick_name: 'work', last4_digits: null, saved_to_locker: false },
        client_secret: null,
      });
      expect(created.payment_method_id).toMatch(/^pm_[A-Za-z0-9]{20}$/);
      expect(await ok(await call(h, 'GET', `/payment_methods/${created.payment_method_id}`))).toEqual(created);

      const listed = await methodsOf(h, customerId);
      expect(listed.is_guest_customer).toBe(false);
      expect(listed.customer_payment_methods.map((m) => m.payment_method_id)).toEqual([created.payment_method_id]);
      expect(listed.customer_payment_methods[0]).toMatchObject({ payment_token: created.payment_method_id, recurring_enabled: false, default_payment_method_set: false });

      // Partial update: a new expiry; the holder and nick name stay.
      const updated = await ok<PaymentMethodResponse>(
        await call(h, 'POST', `/payment_methods/${created.payment_method_id}/update`, { body: { card: { card_exp_month: '04', card_exp_year: '2031' } } }),
      );
      expect(updated.card).toMatchObject({ expiry_month: '04', expiry_year: '2031', card_holder_name: 'Ada Lovelace', nick_name: 'work' });

      expect(await ok(await call(h, 'DELETE', `/payment_methods/${created.payment_method_id}`))).toEqual({ payment_method_id: created.payment_method_id, deleted: true });
      await expectApiError(await call(h, 'GET', `/payment_methods/${created.payment_method_id}`), 'ERR_4100');
      await expectApiError(await call(h, 'DELETE', `/payment_methods/${created.payment_method_id}`), 'ERR_4100');
      expect((await methodsOf(h, customerId)).customer_payment_methods).toEqual([]);
    });

    test('a raw card number is refused on create and update (ERR_2029); the number never changes', async () => {
      await expectApiError(
        await call(h, 'POST', '/payment_methods', { body: { payment_method: 'card', card: { card_number: '4242424242424242', card_exp_month: '12', card_exp_year: '2030' } } }),
        'ERR_2029',
        'card.card_number',
      );
      const created = await ok<PaymentMethodResponse>(await call(h, 'POST', '/payment_methods', { body: { payment_method: 'card', card: { card_exp_month: '12', card_exp_year: '2030' } } }));
      const response = await call(h, 'POST', `/payment_methods/${created.payment_method_id}/update`, { body: { card: { card_number: '4000000000000002' } } });
      const text = await response.clone().text();
      await expectApiError(response, 'ERR_2029', 'card.card_number');
      expect(text).not.toContain('4000000000000002');
      expect(await ok(await call(h, 'GET', `/payment_methods/${created.payment_method_id}`))).toEqual(created);
    });

    test('bad input: unknown customer ERR_4006, unknown field ERR_2004, missing payment_method, half an expiry', async () => {
      await expectApiError(await call(h, 'POST', '/payment_methods', { body: { payment_method: 'upi', customer_id: 'cus_nobody' } }), 'ERR_4006');
      await expectApiError(await call(h, 'POST', '/payment_methods', { body: { payment_method: 'upi', vpa: 'x' } }), 'ERR_2004', 'vpa');
      await expectApiError(await call(h, 'POST', '/payment_methods', { body: {} }), 'ERR_2001', 'payment_method');
      await expectApiError(await call(h, 'GET', '/customers/cus_nobody/payment_methods'), 'ERR_4006');
      const card = await ok<PaymentMethodResponse>(await call(h, 'POST', '/payment_methods', { body: { payment_method: 'card' } }));
      await expectApiError(await call(h, 'POST', `/payment_methods/${card.payment_method_id}/update`, { body: { card: { card_exp_month: '01' } } }), 'ERR_2001', 'card.card_exp_year');
      const upi = await ok<PaymentMethodResponse>(await call(h, 'POST', '/payment_methods', { body: { payment_method: 'upi' } }));
      await expectApiError(await call(h, 'POST', `/payment_methods/${upi.payment_method_id}/update`, { body: { card: { nick_name: 'x' } } }), 'ERR_2003', 'card');
    });

    test("the customer's default: an ephemeral key of that customer sets it; another customer's key sees nothing", async () => {
      const customerId = await newCustomer(h);
      const other = await newCustomer(h);
      const method = await ok<PaymentMethodResponse>(await call(h, 'POST', '/payment_methods', { body: { payment_method: 'upi', payment_method_type: 'upi_collect', customer_id: customerId } }));
      const path = `/customers/${customerId}/payment_methods/${method.payment_method_id}/default`;
      expect(await ok(await call(h, 'POST', path, { key: await ephemeralKey(h, customerId), body: {} }))).toEqual({
        default_payment_method_id: method.payment_method_id,
        customer_id: customerId,
        payment_method: 'upi',
        payment_method_type: 'upi_collect',
      });
      expect((await ok<Json>(await call(h, 'GET', `/customers/${customerId}`)))['default_payment_method_id']).toBe(method.payment_method_id);
      expect((await methodsOf(h, customerId)).customer_payment_methods[0]?.default_payment_method_set).toBe(true);
      await expectApiError(await call(h, 'POST', path, { key: await ephemeralKey(h, other), body: {} }), 'ERR_4006');
      await expectApiError(await call(h, 'POST', `/customers/${other}/payment_methods/${method.payment_method_id}/default`, { key: await ephemeralKey(h, other), body: {} }), 'ERR_4100');
      await expectApiError(await call(h, 'POST', path, { body: {} }), 'ERR_1003');
      // Deleting the default leaves the customer without one.
      await ok(await call(h, 'DELETE', `/payment_methods/${method.payment_method_id}`));
      expect((await ok<Json>(await call(h, 'GET', `/customers/${customerId}`)))['default_payment_method_id']).toBeNull();
    });

    test('setting a default and deleting that method at the same time never leave the default naming a deleted method', async () => {
      const pairs = await Promise.all(
        Array.from({ length: 96 }, async () => {
          const customerId = await newCustomer(h);
          const method = await ok<PaymentMethodResponse>(await call(h, 'POST', '/payment_methods', { body: { payment_method: 'upi', customer_id: customerId } }));
          return { customerId, methodId: method.payment_method_id, key: await ephemeralKey(h, customerId) };
        }),
      );
      // Each delete starts once its set-default has read its ephemeral key, then lets 0 to 23 turns of the event loop
      // go by, so that across the pairs the two requests meet at every step of each other (on PostgreSQL, several
      // connections; SQLite runs one transaction at a time).
      const startDelete = new Map<string, () => void>();
      const keys = h.store.ephemeralKeys;
      const findKey = keys.findEphemeralKeyBySecretHash.bind(keys);
      keys.findEphemeralKeyBySecretHash = async (secretHash) => {
        const found = await findKey(secretHash);
        if (found !== undefined) startDelete.get(found.key.customerId)?.();
        return found;
      };
      let answers: [Response, Response][];
      try {
        answers = await Promise.all(
          pairs.map(({ customerId, methodId, key }, index) => {
            const deleted = new Promise<void>((resolve) => startDelete.set(customerId, resolve))
              .then(async () => {
                for (let turn = 0; turn < index % 24; turn += 1) await new Promise((resolve) => setImmediate(resolve));
              })
              .then(() => call(h, 'DELETE', `/payment_methods/${methodId}`));
            return Promise.all([call(h, 'POST', `/customers/${customerId}/payment_methods/${methodId}/default`, { key, body: {} }), deleted]);
          }),
        );
      } finally {
        keys.findEphemeralKeyBySecretHash = findKey;
      }
      // Each side either wins or answers ERR_4100 for a method deleted first: never a 5xx.
      for (const [setDefault, deleted] of answers) {
        expect(deleted.status).toBe(200);
        if (setDefault.status !== 200) await expectApiError(setDefault, 'ERR_4100');
      }
      const defaults = await Promise.all(pairs.map(async ({ customerId }) => (await ok<Json>(await call(h, 'GET', `/customers/${customerId}`)))['default_payment_method_id']));
      expect(defaults).toEqual(pairs.map(() => null));
    });

    test("the list for a payment: publishable key + client_secret shows the payment's customer's methods; a guest gets none", async () => {
      const customerId = await newCustomer(h);
      const method = await ok<PaymentMethodResponse>(await call(h, 'POST', '/payment_methods', { body: { payment_method: 'upi', customer_id: customerId } }));
      const payment = await ok<PaymentResponse>(await call(h, 'POST', '/payments', { body: { amount: 100, currency: 'INR', customer_id: customerId } }));
      const listed = await ok<CustomerPaymentMethodsResponse>(
        await call(h, 'GET', `/customers/payment_methods?client_secret=${payment.client_secret}`, { key: h.publishableKey }),
      );
      expect(listed).toMatchObject({ is_guest_customer: false, customer_payment_methods: [{ payment_method_id: method.payment_method_id, customer_id: customerId }] });
      const guest = await ok<PaymentResponse>(await call(h, 'POST', '/payments', { body: { amount: 100, currency: 'INR' } }));
      expect(await ok(await call(h, 'GET', `/customers/payment_methods?client_secret=${guest.client_secret}`, { key: h.publishableKey }))).toEqual({
        customer_payment_methods: [],
        is_guest_customer: true,
      });
      await expectApiError(await call(h, 'GET', '/customers/payment_methods', { key: h.publishableKey }), 'ERR_2001', 'client_secret');
      // A publishable key may update a method of the payment's customer only.
      const update = (clientSecret: string) =>
        call(h, 'POST', `/payment_methods/${method.payment_method_id}/update`, { key: h.publishableKey, body: { wallet: { label: 'phone' }, client_secret: clientSecret } });
      expect((await ok<PaymentMethodResponse>(await update(payment.client_secret))).wallet).toEqual({ label: 'phone' });
      await expectApiError(await update(guest.client_secret), 'ERR_4100');
    });

    test('recurring today: a payment that asks to save completes with mandate_id null and saves nothing; no mandate exists', async () => {
      const customerId = await newCustomer(h);
      for (const body of [
        { setup_future_usage: 'off_session' },
        { setup_future_usage: 'on_session' },
        { mandate_data: { customer_acceptance: ACCEPTANCE } },
        { amount: 0, payment_type: 'setup_mandate', setup_future_usage: 'off_session' },
      ]) {
        const payment = await pay(h, { customer_id: customerId, payment_method_data: UPI('success@upi'), ...body });
        expect(payment).toMatchObject({ status: 'succeeded', mandate_id: null, payment_method_id: null });
      }
      expect((await methodsOf(h, customerId)).customer_payment_methods).toEqual([]);
      expect(await ok(await call(h, 'GET', '/mandates/list'))).toEqual([]);
      expect(await ok(await call(h, 'GET', `/customers/${customerId}/mandates`))).toEqual([]);
      await expectApiError(await call(h, 'GET', '/mandates/man_nothing'), 'ERR_4101');
      await expectApiError(await call(h, 'POST', '/mandates/revoke/man_nothing', { body: {} }), 'ERR_4101');
    });

    test.each<[string, Json, ErrorCode, string]>([
      ['not an object', { customer_acceptance: 'x' }, 'ERR_2003', 'customer_acceptance'],
      ['no acceptance_type', { customer_acceptance: {} }, 'ERR_2001', 'customer_acceptance.acceptance_type'],
      ['an unknown acceptance_type', { customer_acceptance: { acceptance_type: 'sometimes' } }, 'ERR_2003', 'customer_acceptance.acceptance_type'],
      ['online without its online block', { customer_acceptance: { acceptance_type: 'online' } }, 'ERR_2001', 'customer_acceptance.online'],
      ['online without a user_agent', { customer_acceptance: { acceptance_type: 'online', online: { ip_address: '203.0.113.1' } } }, 'ERR_2001', 'customer_acceptance.online.user_agent'],
      ['an ip_address that is none', { customer_acceptance: { ...ACCEPTANCE, online: { ip_address: 'localhost', user_agent: 'x' } } }, 'ERR_2003', 'customer_acceptance.online.ip_address'],
      ['accepted_at not a date-time', { customer_acceptance: { acceptance_type: 'offline', accepted_at: 'yesterday' } }, 'ERR_2003', 'customer_acceptance.accepted_at'],
      ['an unknown field', { customer_acceptance: { acceptance_type: 'offline', signed: true } }, 'ERR_2004', 'customer_acceptance.signed'],
      ['mandate_data not an object', { mandate_data: 'x' }, 'ERR_2003', 'mandate_data'],
      ['a mandate_data.customer_acceptance not an object', { mandate_data: { customer_acceptance: 'x' } }, 'ERR_2003', 'mandate_data.customer_acceptance'],
      ['an unknown mandate_data field', { mandate_data: { acceptance: ACCEPTANCE } }, 'ERR_2004', 'mandate_data.acceptance'],
      ['a bad mandate_data.customer_acceptance', { mandate_data: { customer_acceptance: { acceptance_type: 'online' } } }, 'ERR_2001', 'mandate_data.customer_acceptance.online'],
    ])('customer_acceptance and mandate_data, %s: refused on create, update and confirm, nothing stored or changed', async (_name, fields, code, field) => {
      const paymentId = `pay_acceptance_${randomUUID().replaceAll('-', '')}`;
      await expectApiError(await call(h, 'POST', '/payments', { body: { payment_id: paymentId, amount: 100, currency: 'INR', customer_id: 'cus_acceptance', ...fields } }), code, field);
      await expectApiError(await call(h, 'GET', `/payments/${paymentId}`), 'ERR_4001');
      const payment = await ok<PaymentResponse>(await call(h, 'POST', '/payments', { body: { amount: 100, currency: 'INR', payment_method_data: UPI('success@upi') } }));
      await expectApiError(await call(h, 'POST', `/payments/${payment.payment_id}`, { body: fields }), code, field);
      await expectApiError(await call(h, 'POST', `/payments/${payment.payment_id}/confirm`, { body: fields }), code, field);
      const stored = await h.db.selectFrom('payments').select(['status', 'request_fields']).where('payment_id', '=', payment.payment_id).executeTakeFirstOrThrow();
      expect(stored.status).toBe('requires_confirmation');
      expect(JSON.parse(stored.request_fields)).not.toHaveProperty(Object.keys(fields)[0]!);
    });

    test('a token record cannot be charged: off-session ERR_4088, payment_token ERR_4004', async () => {
      const customerId = await newCustomer(h);
      const method = await ok<PaymentMethodResponse>(await call(h, 'POST', '/payment_methods', { body: { payment_method: 'upi', customer_id: customerId } }));
      await expectApiError(
        await call(h, 'POST', '/payments', {
          body: { amount: 100, currency: 'INR', confirm: true, customer_id: customerId, off_session: true, recurring_details: { type: 'payment_method_id', data: method.payment_method_id } },
        }),
        'ERR_4088',
        'recurring_details',
      );
      const payment = await ok<PaymentResponse>(await call(h, 'POST', '/payments', { body: { amount: 100, currency: 'INR', customer_id: customerId } }));
      await expectApiError(await call(h, 'POST', `/payments/${payment.payment_id}/confirm`, { body: { payment_token: method.payment_method_id } }), 'ERR_4004', 'payment_token');
      expect((await ok<PaymentResponse>(await call(h, 'GET', `/payments/${payment.payment_id}`))).status).toBe('requires_payment_method');
    });
  });

  describe(`[${engine}] recurring switched on for a test account`, () => {
    test('UPI: setup_future_usage saves the method (the default one), and a later payment is charged with payment_token', async () => {
      const customerId = await newCustomer(r);
      const first = await pay(r, { customer_id: customerId, setup_future_usage: 'on_session', payment_method_data: UPI('success@upi') });
      expect(first).toMatchObject({ status: 'succeeded', mandate_id: null });
      expect(first.payment_method_id).toMatch(/^pm_/);
      const listed = await methodsOf(r, customerId);
      expect(listed.customer_payment_methods).toHaveLength(1);
      expect(listed.customer_payment_methods[0]).toMatchObject({
        payment_method_id: first.payment_method_id,
        payment_method: 'upi',
        payment_method_type: 'upi_collect',
        recurring_enabled: true,
        default_payment_method_set: true,
      });
      // A payment without setup_future_usage saves nothing.
      await pay(r, { customer_id: customerId, payment_method_data: UPI('success@upi') });
      expect((await methodsOf(r, customerId)).customer_payment_methods).toHaveLength(1);

      const second = await ok<PaymentResponse>(await call(r, 'POST', '/payments', { body: { amount: 2_500, currency: 'INR', customer_id: customerId } }));
      const charged = await ok<PaymentResponse>(
        await call(r, 'POST', `/payments/${second.payment_id}/confirm`, { key: r.publishableKey, body: { client_secret: second.client_secret, payment_token: first.payment_method_id } }),
      );
      expect(charged).toMatchObject({ status: 'succeeded', amount_received: 2_500, payment_method: 'upi', payment_method_id: first.payment_method_id, mandate_id: null });
      // Another customer's payment cannot use it.
      const stranger = await newCustomer(r);
      const third = await ok<PaymentResponse>(await call(r, 'POST', '/payments', { body: { amount: 100, currency: 'INR', customer_id: stranger } }));
      await expectApiError(await call(r, 'POST', `/payments/${third.payment_id}/confirm`, { body: { payment_token: first.payment_method_id } }), 'ERR_4004', 'payment_token');
      // An off-session charge still needs a mandate.
      await expectApiError(
        await call(r, 'POST', '/payments', { body: { amount: 100, currency: 'INR', confirm: true, customer_id: customerId, off_session: true, recurring_details: { type: 'payment_method_id', data: first.payment_method_id } } }),
        'ERR_4088',
        'recurring_details',
      );
    });

    test('the customer_acceptance sent at confirm (with setup_future_usage) is the mandate\'s, in place of the one sent at create', async () => {
      const customerId = await newCustomer(r);
      const payment = await ok<PaymentResponse>(
        await call(r, 'POST', '/payments', { body: { amount: 10_000, currency: 'INR', customer_id: customerId, customer_acceptance: { acceptance_type: 'offline' } } }),
      );
      const acceptance = { acceptance_type: 'online', accepted_at: '2026-11-27T10:00:00Z', online: { ip_address: '203.0.113.7', user_agent: 'checkout' } };
      const confirmed = await ok<PaymentResponse>(
        await call(r, 'POST', `/payments/${payment.payment_id}/confirm`, {
          key: r.publishableKey,
          body: { client_secret: payment.client_secret, setup_future_usage: 'off_session', customer_acceptance: acceptance, payment_method_data: UPI('success@upi') },
        }),
      );
      expect(confirmed).toMatchObject({ status: 'succeeded', setup_future_usage: 'off_session' });
      expect(confirmed.mandate_id).toMatch(/^man_/);
      const mandate = await ok<MandateResponse>(await call(r, 'GET', `/mandates/${confirmed.mandate_id}`));
      expect(mandate).toMatchObject({ status: 'active', customer_id: customerId, payment_method_id: confirmed.payment_method_id, customer_acceptance: acceptance });
      expect(await ok(await call(r, 'GET', `/customers/${customerId}/mandates`))).toMatchObject([{ mandate_id: confirmed.mandate_id, customer_acceptance: acceptance }]);
    });

    test('a confirm that waits for the customer (pending@upi) keeps the customer_acceptance it was sent for the mandate', async () => {
      const customerId = await newCustomer(r);
      const payment = await ok<PaymentResponse>(await call(r, 'POST', '/payments', { body: { amount: 10_000, currency: 'INR', customer_id: customerId } }));
      const acceptance = { acceptance_type: 'online', online: { ip_address: '203.0.113.8', user_agent: 'checkout' } };
      const waiting = await ok<PaymentResponse>(
        await call(r, 'POST', `/payments/${payment.payment_id}/confirm`, {
          body: { setup_future_usage: 'off_session', customer_acceptance: acceptance, payment_method_data: UPI('pending@upi') },
        }),
      );
      expect(waiting.status).toBe('requires_customer_action');
      r.clock.advance(PENDING_RESOLVE_AFTER_MS + 1);
      const settled = await ok<PaymentResponse>(await call(r, 'GET', `/payments/${payment.payment_id}`));
      expect(settled.status).toBe('succeeded');
      expect(settled.mandate_id).toMatch(/^man_/);
      expect((await ok<MandateResponse>(await call(r, 'GET', `/mandates/${settled.mandate_id}`))).customer_acceptance).toEqual(acceptance);
    });

    test.each<[string, Json]>([
      ['setup_future_usage off_session', { setup_future_usage: 'off_session' }],
      ['an explicit mandate_data block', { customer_acceptance: undefined, mandate_data: { customer_acceptance: ACCEPTANCE, mandate_type: { multi_use: null } } }],
      ['a zero-amount setup_mandate payment', { amount: 0, payment_type: 'setup_mandate', setup_future_usage: 'off_session' }],
    ])('UPI: %s creates an active mandate; an off-session charge with it succeeds; revoke ends it', async (_name, body) => {
      const customerId = await newCustomer(r);
      const first = await pay(r, { customer_id: customerId, payment_method_data: UPI('success@upi'), customer_acceptance: { acceptance_type: 'offline' }, ...body });
      expect(first.status).toBe('succeeded');
      expect(first.mandate_id).toMatch(/^man_[A-Za-z0-9]{20}$/);
      const mandateId = first.mandate_id!;
      const mandate = await ok<MandateResponse>(await call(r, 'GET', `/mandates/${mandateId}`));
      expect(mandate).toMatchObject({ mandate_id: mandateId, status: 'active', payment_method_id: first.payment_method_id, payment_method: 'upi', customer_id: customerId, card: null });
      expect(mandate.customer_acceptance).not.toBeNull();
      expect(await eventTypesOf(r, mandateId)).toEqual(['mandate_active']);
      // The payment's own event carries the mandate (written in the same transaction).
      const paymentEvents = (await ok<{ data: { event_type: string; content?: { object: Json } }[] }>(await call(r, 'GET', `/events?object_id=${first.payment_id}`))).data;
      expect(paymentEvents.map((event) => event.event_type)).toContain('payment_succeeded');

      const charge = await pay(r, { amount: 4_200, customer_id: customerId, off_session: true, mandate_id: mandateId });
      expect(charge).toMatchObject({ status: 'succeeded', amount_received: 4_200, mandate_id: mandateId, payment_method_id: first.payment_method_id });
      const byMethod = await pay(r, { amount: 300, customer_id: customerId, off_session: true, recurring_details: { type: 'payment_method_id', data: first.payment_method_id } });
      expect(byMethod).toMatchObject({ status: 'succeeded', mandate_id: mandateId });

      expect(await ok(await call(r, 'POST', `/mandates/revoke/${mandateId}`, { body: {} }))).toEqual({ mandate_id: mandateId, status: 'revoked', error_code: null, error_message: null });
      expect(await eventTypesOf(r, mandateId)).toEqual(['mandate_active', 'mandate_revoked']);
      expect((await ok<MandateResponse>(await call(r, 'GET', `/mandates/${mandateId}`))).status).toBe('revoked');
      await expectApiError(await call(r, 'POST', `/mandates/revoke/${mandateId}`, { body: {} }), 'ERR_4102');
      await expectApiError(await call(r, 'POST', '/payments', { body: { amount: 100, currency: 'INR', confirm: true, customer_id: customerId, off_session: true, mandate_id: mandateId } }), 'ERR_4088', 'mandate_id');
    });

    test('a browser cannot charge a mandate: off-session charges need the secret key; refused charges store no payment', async () => {
      const customerId = await newCustomer(r);
      const first = await pay(r, { customer_id: customerId, setup_future_usage: 'off_session', payment_method_data: UPI('success@upi') });
      const payment = await ok<PaymentResponse>(await call(r, 'POST', '/payments', { body: { amount: 700, currency: 'INR', customer_id: customerId } }));
      await expectApiError(
        await call(r, 'POST', `/payments/${payment.payment_id}/confirm`, { key: r.publishableKey, body: { client_secret: payment.client_secret, mandate_id: first.mandate_id } }),
        'ERR_4088',
        'mandate_id',
      );
      expect((await ok<PaymentResponse>(await call(r, 'GET', `/payments/${payment.payment_id}`))).status).toBe('requires_payment_method');
      const before = (await r.db.selectFrom('payments').select('payment_id').execute()).length;
      await expectApiError(await call(r, 'POST', '/payments', { body: { amount: 100, currency: 'INR', confirm: true, customer_id: customerId, off_session: true, mandate_id: 'man_nothing' } }), 'ERR_4088', 'mandate_id');
      await expectApiError(await call(r, 'POST', '/payments', { body: { amount: 100, currency: 'INR', confirm: true, customer_id: customerId, off_session: true } }), 'ERR_4088', 'off_session');
      expect((await r.db.selectFrom('payments').select('payment_id').execute()).length).toBe(before);
    });

    test('a browser reaches no mandate by any field: recurring_details of either type, off_session, a mandate the payment was created with, update with confirm', async () => {
      const customerId = await newCustomer(r);
      const first = await pay(r, { customer_id: customerId, setup_future_usage: 'off_session', payment_method_data: UPI('success@upi') });
      const payment = await ok<PaymentResponse>(await call(r, 'POST', '/payments', { body: { amount: 700, currency: 'INR', customer_id: customerId } }));
      const asBrowser = (path: string, body: Json, of = payment) =>
        call(r, 'POST', path, { key: r.publishableKey, body: { client_secret: of.client_secret, ...body } });
      for (const [body, field] of [
        [{ recurring_details: { type: 'mandate_id', data: first.mandate_id } }, 'recurring_details'],
        [{ recurring_details: { type: 'payment_method_id', data: first.payment_method_id } }, 'recurring_details'],
        [{ off_session: true, recurring_details: { type: 'payment_method_id', data: first.payment_method_id } }, 'recurring_details'],
        [{ off_session: true, mandate_id: first.mandate_id }, 'mandate_id'],
        [{ off_session: true }, 'off_session'],
      ] as [Json, string][]) {
        await expectApiError(await asBrowser(`/payments/${payment.payment_id}/confirm`, body), 'ERR_4088', field);
      }
      // A merchant's payment that names the mandate is confirmed by the merchant's server, not by the browser.
      const merchantCharge = await ok<PaymentResponse>(
        await call(r, 'POST', '/payments', { body: { amount: 800, currency: 'INR', customer_id: customerId, off_session: true, mandate_id: first.mandate_id } }),
      );
      await expectApiError(await asBrowser(`/payments/${merchantCharge.payment_id}/confirm`, {}, merchantCharge), 'ERR_4088', 'mandate_id');
      // Update cannot bring the fields in: recurring_details and off_session are not the browser's to change.
      await expectApiError(await asBrowser(`/payments/${payment.payment_id}`, { recurring_details: { type: 'mandate_id', data: first.mandate_id }, confirm: true }), 'ERR_2003', 'recurring_details');
      await expectApiError(await asBrowser(`/payments/${payment.payment_id}`, { off_session: true, confirm: true }), 'ERR_2003', 'off_session');
      for (const target of [payment, merchantCharge]) {
        expect((await ok<PaymentResponse>(await call(r, 'GET', `/payments/${target.payment_id}`))).status).toBe('requires_payment_method');
      }
      // The merchant's server charges it.
      expect(await ok<PaymentResponse>(await call(r, 'POST', `/payments/${merchantCharge.payment_id}/confirm`, { body: {} }))).toMatchObject({ status: 'succeeded', mandate_id: first.mandate_id });
    });

    test('mandate lists: by status, by customer, paged; another customer cannot charge the mandate', async () => {
      const customerId = await newCustomer(r);
      const a = await pay(r, { customer_id: customerId, setup_future_usage: 'off_session', payment_method_data: UPI('success@upi') });
      const b = await pay(r, { customer_id: customerId, setup_future_usage: 'off_session', payment_method_data: UPI('success@upi') });
      await ok(await call(r, 'POST', `/mandates/revoke/${a.mandate_id}`, { body: {} }));
      const ofCustomer = await ok<MandateResponse[]>(await call(r, 'GET', `/customers/${customerId}/mandates`));
      expect(ofCustomer.map((m) => m.mandate_id).sort()).toEqual([a.mandate_id, b.mandate_id].sort());
      const revoked = await ok<MandateResponse[]>(await call(r, 'GET', '/mandates/list?mandate_status=revoked&limit=100'));
      expect(revoked.map((m) => m.mandate_id)).toContain(a.mandate_id);
      expect(revoked.every((m) => m.status === 'revoked')).toBe(true);
      expect(await ok<MandateResponse[]>(await call(r, 'GET', '/mandates/list?limit=1'))).toHaveLength(1);
      await expectApiError(await call(r, 'GET', '/mandates/list?mandate_status=gone'), 'ERR_2003', 'mandate_status');
      const stranger = await newCustomer(r);
      await expectApiError(await call(r, 'POST', '/payments', { body: { amount: 100, currency: 'INR', confirm: true, customer_id: stranger, off_session: true, mandate_id: b.mandate_id } }), 'ERR_4088', 'mandate_id');
    });

    test('card: a psp_token payment with off_session saves the card (never its number); a new expiry carries it on', async () => {
      const customerId = await newCustomer(r);
      const first = await ok<PaymentResponse>(
        await call(r, 'POST', '/payments', { body: { amount: 5_000, currency: 'USD', customer_id: customerId, setup_future_usage: 'off_session', customer_acceptance: ACCEPTANCE } }),
      );
      const token = await ok<{ psp_token: string }>(
        await call(r, 'POST', '/vault/tokens', {
          key: r.publishableKey,
          headers: { origin: JS_ORIGIN },
          body: { client_secret: first.client_secret, card_number: '4242424242424242', card_exp_month: '12', card_exp_year: '2030', card_cvc: '123', card_holder_name: 'Ada Lovelace' },
        }),
      );
      const paid = await ok<PaymentResponse>(
        await call(r, 'POST', `/payments/${first.payment_id}/confirm`, {
          key: r.publishableKey,
          body: { client_secret: first.client_secret, payment_method: 'card', payment_method_type: 'credit', payment_method_data: { psp_token: token.psp_token } },
        }),
      );
      expect(paid.status).toBe('succeeded');
      expect(paid.mandate_id).toMatch(/^man_/);
      const saved = await ok<PaymentMethodResponse>(await call(r, 'GET', `/payment_methods/${paid.payment_method_id}`));
      expect(saved).toMatchObject({ payment_method: 'card', recurring_enabled: true, card: { last4_digits: '4242', card_network: 'Visa', expiry_month: '12', expiry_year: '2030', card_holder_name: 'Ada Lovelace', saved_to_locker: true } });
      const row = await r.db.selectFrom('stored_payment_methods').selectAll().where('payment_method_id', '=', paid.payment_method_id!).executeTakeFirstOrThrow();
      expect(JSON.stringify(row)).not.toContain('4242424242424242');
      expect((await ok<MandateResponse>(await call(r, 'GET', `/mandates/${paid.mandate_id}`))).card).toMatchObject({ last4_digits: '4242', card_exp_year: '2030' });

      await ok(await call(r, 'POST', `/payment_methods/${paid.payment_method_id}/update`, { body: { card: { card_exp_month: '01', card_exp_year: '2033' } } }));
      const renewal = await ok<PaymentResponse>(
        await call(r, 'POST', '/payments', { body: { amount: 1_999, currency: 'USD', confirm: true, customer_id: customerId, off_session: true, mandate_id: paid.mandate_id } }),
      );
      expect(renewal).toMatchObject({ status: 'succeeded', amount_received: 1_999, payment_method: 'card', payment_method_data: { card: { last4: '4242', exp_month: '01', exp_year: '2033' } } });
      const usedAt = (await ok<PaymentMethodResponse>(await call(r, 'GET', `/payment_methods/${paid.payment_method_id}`))).last_used_at;
      expect(usedAt).not.toBeNull();
    });

    const cardPaymentAsking = async (customerId: string, number: string) => {
      const payment = await ok<PaymentResponse>(
        await call(r, 'POST', '/payments', { body: { amount: 5_000, currency: 'USD', customer_id: customerId, setup_future_usage: 'off_session', customer_acceptance: ACCEPTANCE } }),
      );
      const token = await ok<{ psp_token: string }>(
        await call(r, 'POST', '/vault/tokens', {
          key: r.publishableKey,
          headers: { origin: JS_ORIGIN },
          body: { client_secret: payment.client_secret, card_number: number, card_exp_month: '12', card_exp_year: '2030', card_cvc: '123' },
        }),
      );
      return ok<PaymentResponse>(
        await call(r, 'POST', `/payments/${payment.payment_id}/confirm`, {
          key: r.publishableKey,
          body: { client_secret: payment.client_secret, payment_method: 'card', payment_method_type: 'credit', payment_method_data: { psp_token: token.psp_token } },
        }),
      );
    };
    /** Answers a simulator page (3DS) as the customer would. */
    const answerPage = async (url: string, decision: 'complete' | 'fail') => {
      const target = new URL(url);
      const html = await (await r.app.request(`${target.pathname}${target.search}`)).text();
      const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
      const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? '';
      await r.app.request(action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ account: field('account'), challenge: field('challenge'), decision }).toString(),
      });
    };
    const pendingSaves = async () => (await r.db.selectFrom('pending_method_saves').select('payment_id').execute()).map((row) => row.payment_id);

    test('a payment that waits for the customer saves its method when it succeeds later (UPI pending, 3DS card)', async () => {
      const customerId = await newCustomer(r);
      const upi = await pay(r, { customer_id: customerId, setup_future_usage: 'off_session', payment_method_data: UPI('pending@upi') });
      expect(upi).toMatchObject({ status: 'requires_customer_action', mandate_id: null, payment_method_id: null });
      expect(await pendingSaves()).toContain(upi.payment_id);
      r.clock.advance(PENDING_RESOLVE_AFTER_MS);
      const resolved = await ok<PaymentResponse>(await call(r, 'GET', `/payments/${upi.payment_id}`));
      expect(resolved.status).toBe('succeeded');
      expect(resolved.mandate_id).toMatch(/^man_/);
      expect(await pendingSaves()).not.toContain(upi.payment_id);
      expect((await ok<MandateResponse>(await call(r, 'GET', `/mandates/${resolved.mandate_id}`))).status).toBe('active');

      const card = await cardPaymentAsking(customerId, '4000003800000446');
      expect(card.status).toBe('requires_customer_action');
      await answerPage(card.next_action?.type === 'redirect_to_url' ? card.next_action.redirect_to_url : '', 'complete');
      const authenticated = await ok<PaymentResponse>(await call(r, 'GET', `/payments/${card.payment_id}`));
      expect(authenticated.status).toBe('succeeded');
      const saved = await ok<PaymentMethodResponse>(await call(r, 'GET', `/payment_methods/${authenticated.payment_method_id}`));
      expect(saved.card).toMatchObject({ last4_digits: '0446', saved_to_locker: true });
      expect(await eventTypesOf(r, authenticated.mandate_id!)).toEqual(['mandate_active']);
    });

    test('a waiting payment that fails saves nothing, and its sealed card is dropped', async () => {
      const customerId = await newCustomer(r);
      const card = await cardPaymentAsking(customerId, '4000003800000446');
      expect(await pendingSaves()).toContain(card.payment_id);
      await answerPage(card.next_action?.type === 'redirect_to_url' ? card.next_action.redirect_to_url : '', 'fail');
      expect((await ok<PaymentResponse>(await call(r, 'GET', `/payments/${card.payment_id}`))).status).toBe('failed');
      expect(await pendingSaves()).not.toContain(card.payment_id);
      expect((await methodsOf(r, customerId)).customer_payment_methods).toEqual([]);
      expect(await ok(await call(r, 'GET', `/customers/${customerId}/mandates`))).toEqual([]);

      // Deleting a saved method revokes its mandate.
      const kept = await pay(r, { customer_id: customerId, setup_future_usage: 'off_session', payment_method_data: UPI('success@upi') });
      await ok(await call(r, 'DELETE', `/payment_methods/${kept.payment_method_id}`));
      expect((await ok<MandateResponse>(await call(r, 'GET', `/mandates/${kept.mandate_id}`))).status).toBe('revoked');
      expect(await eventTypesOf(r, kept.mandate_id!)).toEqual(['mandate_active', 'mandate_revoked']);

      // Cancelled while waiting: the sealed card goes too.
      const cancelled = await cardPaymentAsking(customerId, '4000003800000446');
      expect(await pendingSaves()).toContain(cancelled.payment_id);
      await ok(await call(r, 'POST', `/payments/${cancelled.payment_id}/cancel`, { body: { cancellation_reason: 'abandoned' } }));
      expect(await pendingSaves()).not.toContain(cancelled.payment_id);
    });

    test('a payment without a customer saves nothing, and deleting the customer deletes its methods', async () => {
      const guest = await pay(r, { setup_future_usage: 'off_session', payment_method_data: UPI('success@upi') });
      expect(guest).toMatchObject({ status: 'succeeded', mandate_id: null, payment_method_id: null });
      const customerId = await newCustomer(r);
      const saved = await pay(r, { customer_id: customerId, setup_future_usage: 'off_session', payment_method_data: UPI('success@upi') });
      expect(await ok(await call(r, 'DELETE', `/customers/${customerId}`))).toMatchObject({ payment_methods_deleted: true });
      await expectApiError(await call(r, 'GET', `/payment_methods/${saved.payment_method_id}`), 'ERR_4100');
      expect((await ok<MandateResponse>(await call(r, 'GET', `/mandates/${saved.mandate_id}`))).status).toBe('revoked');
      expect(await eventTypesOf(r, saved.mandate_id!)).toEqual(['mandate_active', 'mandate_revoked']);
    });

    test('a charge under a mandate names the mandate\'s customer: without customer_id ERR_2001, and nothing is stored', async () => {
      const customerId = await newCustomer(r);
      const setup = await pay(r, { customer_id: customerId, setup_future_usage: 'off_session', payment_method_data: UPI('success@upi') });
      const paymentId = `pay_no_customer_${engine}`;
      await expectApiError(
        await call(r, 'POST', '/payments', { body: { payment_id: paymentId, amount: 500, currency: 'INR', confirm: true, off_session: true, mandate_id: setup.mandate_id } }),
        'ERR_2001',
        'customer_id',
      );
      await expectApiError(await call(r, 'GET', `/payments/${paymentId}`), 'ERR_4001');
      const created = await ok<PaymentResponse>(await call(r, 'POST', '/payments', { body: { amount: 500, currency: 'INR' } }));
      await expectApiError(await call(r, 'POST', `/payments/${created.payment_id}/confirm`, { body: { off_session: true, mandate_id: setup.mandate_id } }), 'ERR_2001', 'customer_id');
      expect((await ok<PaymentResponse>(await call(r, 'GET', `/payments/${created.payment_id}`))).status).toBe('requires_payment_method');
    });

    test('a charge under a mandate revoked after the charge read it and before its claim is refused (ERR_4088), and nothing is charged', async () => {
      const customerId = await newCustomer(r);
      const setup = await pay(r, { customer_id: customerId, setup_future_usage: 'off_session', payment_method_data: UPI('success@upi') });
      const mandateId = setup.mandate_id!;
      // The revocation commits between the charge's read of the mandate (stored-charge.ts) and its claim.
      const mandates = r.store.mandates;
      const findMandate = mandates.findMandate.bind(mandates);
      // A create with confirm: true reads it twice (the create's check, then the confirm's): after the second read.
      let reads = 0;
      let revoked = false;
      mandates.findMandate = async (scope, id) => {
        const found = await findMandate(scope, id);
        if (id === mandateId && !revoked && (reads += 1) === 2) {
          revoked = true; // the revocation reads the mandate too
          await ok(await call(r, 'POST', `/mandates/revoke/${mandateId}`, { body: {} }));
        }
        return found;
      };
      try {
        await expectApiError(
          await call(r, 'POST', '/payments', { body: { amount: 500, currency: 'INR', confirm: true, customer_id: customerId, off_session: true, mandate_id: mandateId } }),
          'ERR_4088',
          'mandate_id',
        );
      } finally {
        mandates.findMandate = findMandate;
      }
      expect(revoked).toBe(true);
      const charged = await r.db.selectFrom('payments').select('payment_id').where('mandate_id', '=', mandateId).where('status', '=', 'succeeded').execute();
      expect(charged.map((row) => row.payment_id)).toEqual([setup.payment_id]);
    });

    test('a payment that asks to save for a customer deleted before its confirm succeeds and saves nothing: no method, no mandate to charge', async () => {
      const customerId = await newCustomer(r);
      const created = await ok<PaymentResponse>(
        await call(r, 'POST', '/payments', {
          body: { amount: 1_000, currency: 'INR', customer_id: customerId, setup_future_usage: 'off_session', customer_acceptance: ACCEPTANCE, payment_method_data: UPI('success@upi') },
        }),
      );
      await ok(await call(r, 'DELETE', `/customers/${customerId}`));
      const confirmed = await ok<PaymentResponse>(await call(r, 'POST', `/payments/${created.payment_id}/confirm`, { body: {} }));
      expect(confirmed).toMatchObject({ status: 'succeeded', mandate_id: null, payment_method_id: null });
      const saved = await r.db.selectFrom('stored_payment_methods').select('payment_method_id').where('customer_id', '=', customerId).execute();
      const mandates = await r.db.selectFrom('mandates').select('mandate_id').where('customer_id', '=', customerId).where('status', '=', 'active').execute();
      expect({ saved, mandates }).toEqual({ saved: [], mandates: [] });
    });

    test("a waiting payment's sealed instrument goes with its customer: deleted with the customer, never sealed for one deleted meanwhile", async () => {
      const customerId = await newCustomer(r);
      const waiting = await cardPaymentAsking(customerId, '4000003800000446');
      expect(waiting.status).toBe('requires_customer_action');
      expect(await pendingSaves()).toContain(waiting.payment_id);
      await ok(await call(r, 'DELETE', `/customers/${customerId}`));
      // The sealed card of a deleted customer is not kept until the payment settles.
      expect(await pendingSaves()).not.toContain(waiting.payment_id);
      await answerPage(waiting.next_action?.type === 'redirect_to_url' ? waiting.next_action.redirect_to_url : '', 'complete');
      expect(await ok<PaymentResponse>(await call(r, 'GET', `/payments/${waiting.payment_id}`))).toMatchObject({ status: 'succeeded', payment_method_id: null, mandate_id: null });
      expect(await r.db.selectFrom('stored_payment_methods').select('payment_method_id').where('customer_id', '=', customerId).execute()).toEqual([]);

      // The customer is deleted after the confirm claimed the payment and before the rail's answer asks the customer to act.
      const other = await newCustomer(r);
      const payments = r.store.payments;
      const claim = payments.claimPaymentAndOpenAttempt.bind(payments);
      let deleted = false;
      payments.claimPaymentAndOpenAttempt = async (...args) => {
        const claimed = await claim(...args);
        if (!deleted && claimed?.payment.customerId === other) {
          deleted = true;
          await ok(await call(r, 'DELETE', `/customers/${other}`));
        }
        return claimed;
      };
      let pending: PaymentResponse;
      try {
        pending = await pay(r, { customer_id: other, setup_future_usage: 'off_session', payment_method_data: UPI('pending@upi') });
      } finally {
        payments.claimPaymentAndOpenAttempt = claim;
      }
      expect(deleted).toBe(true);
      expect(pending.status).toBe('requires_customer_action');
      expect(await pendingSaves()).not.toContain(pending.payment_id);
      r.clock.advance(PENDING_RESOLVE_AFTER_MS + 1);
      expect(await ok<PaymentResponse>(await call(r, 'GET', `/payments/${pending.payment_id}`))).toMatchObject({ status: 'succeeded', payment_method_id: null, mandate_id: null });
    });

    test('a waiting payment that succeeds while its customer is deleted: both answer, and nothing of the customer is left saved', async () => {
      const waiting = await Promise.all(
        Array.from({ length: 48 }, async () => {
          const customerId = await newCustomer(r);
          const payment = await pay(r, { customer_id: customerId, setup_future_usage: 'off_session', payment_method_data: UPI('pending@upi') });
          return { customerId, paymentId: payment.payment_id };
        }),
      );
      r.clock.advance(PENDING_RESOLVE_AFTER_MS + 1);
      // The settlement (a read that syncs with the rail) and the deletion meet at every step of each other across the
      // pairs: each deletion starts after 0 to 23 turns of the event loop.
      const answers = await Promise.all(
        waiting.map(async ({ customerId, paymentId }, index) =>
          Promise.all([
            call(r, 'GET', `/payments/${paymentId}`),
            (async () => {
              for (let turn = 0; turn < index % 24; turn += 1) await new Promise((resolve) => setImmediate(resolve));
              return call(r, 'DELETE', `/customers/${customerId}`);
            })(),
          ]),
        ),
      );
      expect(answers.flat().map((response) => response.status)).toEqual(answers.flat().map(() => 200));
      const customerIds = waiting.map(({ customerId }) => customerId);
      expect(await r.db.selectFrom('stored_payment_methods').select('payment_method_id').where('customer_id', 'in', customerIds).execute()).toEqual([]);
      expect(await r.db.selectFrom('mandates').select('mandate_id').where('customer_id', 'in', customerIds).where('status', '=', 'active').execute()).toEqual([]);
      expect(await pendingSaves()).toEqual(expect.not.arrayContaining(waiting.map(({ paymentId }) => paymentId)));
    });

    test('no mandate without an acceptance: mandate_data {} or off-session usage without customer_acceptance is ERR_2001 at confirm, before anything is charged', async () => {
      const customerId = await newCustomer(r);
      const paymentId = `pay_no_acceptance_${randomUUID().replaceAll('-', '')}`;
      await expectApiError(
        await call(r, 'POST', '/payments', { body: { payment_id: paymentId, amount: 500, currency: 'INR', confirm: true, customer_id: customerId, mandate_data: {}, payment_method_data: UPI('success@upi') } }),
        'ERR_2001',
        'customer_acceptance',
      );
      await expectApiError(await call(r, 'GET', `/payments/${paymentId}`), 'ERR_4001');
      // Created without one (it is sent at confirm): the confirm that would set the mandate up needs it.
      const created = await ok<PaymentResponse>(await call(r, 'POST', '/payments', { body: { amount: 500, currency: 'INR', customer_id: customerId, setup_future_usage: 'off_session' } }));
      const confirm = (body: Json) => call(r, 'POST', `/payments/${created.payment_id}/confirm`, { body: { payment_method_data: UPI('success@upi'), ...body } });
      await expectApiError(await confirm({}), 'ERR_2001', 'customer_acceptance');
      await expectApiError(await confirm({ mandate_data: {} }), 'ERR_2003', 'mandate_data');
      expect((await ok<PaymentResponse>(await call(r, 'GET', `/payments/${created.payment_id}`))).status).toBe('requires_payment_method');
      expect(await ok(await call(r, 'GET', `/customers/${customerId}/mandates`))).toEqual([]);
      const confirmed = await ok<PaymentResponse>(await confirm({ customer_acceptance: { acceptance_type: 'offline' } }));
      expect(confirmed.mandate_id).toMatch(/^man_/);
      expect((await ok<MandateResponse>(await call(r, 'GET', `/mandates/${confirmed.mandate_id}`))).customer_acceptance).toEqual({ acceptance_type: 'offline' });
      // Saving for on-session use sets up no mandate and needs no acceptance.
      const onSession = await pay(r, { customer_id: customerId, customer_acceptance: undefined, setup_future_usage: 'on_session', payment_method_data: UPI('success@upi') });
      expect(onSession).toMatchObject({ status: 'succeeded', mandate_id: null });
      expect(onSession.payment_method_id).toMatch(/^pm_/);
    });

    test('rows stored before acceptances were validated: a mandate shows null for one that is not an acceptance; a payment asks for one at confirm', async () => {
      const customerId = await newCustomer(r);
      const setup = await pay(r, { customer_id: customerId, setup_future_usage: 'off_session', payment_method_data: UPI('success@upi') });
      await r.db.updateTable('mandates').set({ customer_acceptance: JSON.stringify('x') }).where('mandate_id', '=', setup.mandate_id!).execute();
      expect((await ok<MandateResponse>(await call(r, 'GET', `/mandates/${setup.mandate_id}`))).customer_acceptance).toBeNull();
      expect(await ok<MandateResponse[]>(await call(r, 'GET', `/customers/${customerId}/mandates`))).toMatchObject([{ mandate_id: setup.mandate_id, customer_acceptance: null }]);
      // The mandate itself stands: it was set up when the payment succeeded.
      expect((await pay(r, { amount: 300, customer_id: customerId, off_session: true, mandate_id: setup.mandate_id })).status).toBe('succeeded');

      const created = await ok<PaymentResponse>(await call(r, 'POST', '/payments', { body: { amount: 500, currency: 'INR', customer_id: customerId, setup_future_usage: 'off_session' } }));
      const row = await r.db.selectFrom('payments').select('request_fields').where('payment_id', '=', created.payment_id).executeTakeFirstOrThrow();
      const legacy = JSON.stringify({ ...JSON.parse(row.request_fields), customer_acceptance: 'x', mandate_data: {} });
      await r.db.updateTable('payments').set({ request_fields: legacy }).where('payment_id', '=', created.payment_id).execute();
      await expectApiError(await call(r, 'POST', `/payments/${created.payment_id}/confirm`, { body: { payment_method_data: UPI('success@upi') } }), 'ERR_2001', 'customer_acceptance');
      const confirmed = await ok<PaymentResponse>(await call(r, 'POST', `/payments/${created.payment_id}/confirm`, { body: { payment_method_data: UPI('success@upi'), customer_acceptance: ACCEPTANCE } }));
      expect((await ok<MandateResponse>(await call(r, 'GET', `/mandates/${confirmed.mandate_id}`))).customer_acceptance).toEqual(ACCEPTANCE);
    });

    test('a pending save sealed before acceptances were validated, without one, saves the method and sets up no mandate', async () => {
      const customerId = await newCustomer(r);
      const waiting = await pay(r, { customer_id: customerId, setup_future_usage: 'off_session', payment_method_data: UPI('pending@upi') });
      const row = await r.db.selectFrom('pending_method_saves').select('instrument').where('payment_id', '=', waiting.payment_id).executeTakeFirstOrThrow();
      await r.db.updateTable('pending_method_saves').set({ instrument: JSON.stringify({ ...JSON.parse(row.instrument), customerAcceptance: null }) }).where('payment_id', '=', waiting.payment_id).execute();
      r.clock.advance(PENDING_RESOLVE_AFTER_MS + 1);
      const settled = await ok<PaymentResponse>(await call(r, 'GET', `/payments/${waiting.payment_id}`));
      expect(settled).toMatchObject({ status: 'succeeded', mandate_id: null });
      expect(settled.payment_method_id).toMatch(/^pm_/);
      expect(await ok(await call(r, 'GET', `/customers/${customerId}/mandates`))).toEqual([]);
    });
  });
});
