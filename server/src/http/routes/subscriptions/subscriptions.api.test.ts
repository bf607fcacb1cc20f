/**
 * Subscriptions today (spec "not live today" 4), on SQLite and PostgreSQL: no billing processor is connected, so
 * every creation is refused for the missing billing_processor_id (naming it), nothing exists to read or change, and
 * every call needs the X-Profile-Id header of one of the account's business profiles.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { apiRequest, expectApiError, expectOk } from '../../../test-support/api-assertions';
import { forEachEngine } from '../../../test-support/engines';
import { createHarness, createSecondInstance, type Harness } from '../../../test-support/harness';
import { ALL_RAILS_SETTINGS } from '../../../test-support/fixtures';
import type { AccountSettings } from '../../../kernel/account-settings-types';
import type { SubscriptionResponse } from '../../../../../protocol/api/subscriptions';
import type { PaymentResponse } from '../../../../../protocol/api/payments';
import { PENDING_RESOLVE_AFTER_MS } from '../../../rails/simulator/upi-simulator';
import type { AuthContext } from '../../../core/auth/auth-context';
import { confirmSubscription } from '../../../core/subscriptions/confirm-subscription';
import { createAndConfirmSubscription } from '../../../core/subscriptions/create-and-confirm-subscription';
import { renewDueSubscriptions } from '../../../core/subscriptions/renew-subscriptions';
import { ApiError } from '../../../core/shared/errors';
import { IDEMPOTENCY_LEASE_MS } from '../../../core/auth/idempotency';
import { StuckObjectRecovery } from '../../../core/recovery/recover-stuck-objects';
import { DEFAULT_RECOVERY_POLICY } from '../../../core/shared/deps';
import { DEFAULT_SESSION_EXPIRY_SECONDS } from '../../../../../protocol/api/payments';
import { cryptoIds, derivedIds } from '../../../kernel/ids';
import { withoutWalletToken } from '../../../core/payments/wallet-data';
import { secretsEqual } from '../../../kernel/constant-time';

vi.mock('../../../kernel/constant-time', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../kernel/constant-time')>();
  return { ...actual, secretsEqual: vi.fn(actual.secretsEqual) };
});

/** The lengths of the secrets `given` was compared with (client-secret-probing.test.ts does the same for payments). */
const comparedWith = (given: string) => vi.mocked(secretsEqual).mock.calls.filter(([sent]) => sent === given).map(([, expected]) => expected.length);

/** A test account with the simulated billing processor and recurring on for UPI (RAIL_ACCOUNT_CONFIG). */
const BILLING_SETTINGS: AccountSettings = {
  ...ALL_RAILS_SETTINGS,
  billingProcessor: 'simulator',
  rails: ALL_RAILS_SETTINGS.rails.map((rail) =>
    rail.rail === 'upi' ? { ...rail, capabilities: { ...rail.capabilities, test: { ...rail.capabilities.test, recurring: true } } } : rail,
  ),
};
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const ACCEPTANCE = { acceptance_type: 'online', accepted_at: '2025-01-01T00:00:00Z', online: { ip_address: '203.0.113.9', user_agent: 'checkout' } };
const UPI = (vpa: string) => ({
  payment_method: 'upi',
  payment_method_type: 'upi_collect',
  payment_method_data: { upi: { upi_collect: { vpa_id: vpa } } },
  customer_acceptance: ACCEPTANCE,
});

/**
 * `object` with some members replaced, for a test that steps into a request between two of its writes: each override
 * is given the object itself and returns the member; every other member is the object's own (methods bound to it).
 */
function withMembers<T extends object>(object: T, overrides: { [K in keyof T]?: (target: T) => unknown }): T {
  return new Proxy(object, {
    get(target, property) {
      const override = (overrides as Partial<Record<PropertyKey, (target: T) => unknown>>)[property];
      if (override !== undefined) return override(target);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

forEachEngine('Subscriptions API', (engine) => {
  let h: Harness;
  let customerId: string;

  beforeAll(async () => {
    h = await createHarness(engine);
    customerId = (await expectOk<{ customer_id: string }>(await apiRequest(h, 'POST', '/customers', { body: { name: 'Subscriber' } }))).customer_id;
  });
  afterAll(async () => h?.close());

  const profiled = (method: string, path: string, body?: unknown, profileId: string | null = h.boot.profile.profileId, key?: string) =>
    apiRequest(h, method, path, { ...(body !== undefined ? { body } : {}), ...(key !== undefined ? { key } : {}), headers: profileId === null ? {} : { 'X-Profile-Id': profileId } });
  const creation = () => ({ item_price_id: 'price_monthly', plan_id: 'plan_basic', customer_id: customerId, payment_details: { payment_method: 'upi' } });

  describe(`[${engine}] no billing processor is connected`, () => {
    test.each(['/subscriptions', '/subscriptions/create'])('POST %s is refused for the missing billing_processor_id, naming it', async (path) => {
      const error = await expectApiError(await profiled('POST', path, creation()), 'ERR_2001', 'billing_processor_id');
      expect(String(error['message'])).toContain('billing_processor_id');
      expect(await expectOk(await profiled('GET', '/subscriptions/list'))).toEqual([]);
    });

    test('estimate and the item catalogue need the billing processor too', async () => {
      await expectApiError(await profiled('GET', '/subscriptions/estimate?plan_id=plan_basic'), 'ERR_2001', 'billing_processor_id');
      await expectApiError(await profiled('GET', '/subscriptions/items?item_type=plan'), 'ERR_2001', 'billing_processor_id');
      await expectApiError(await profiled('GET', '/subscriptions/items?item_type=plan', undefined, h.boot.profile.profileId, h.publishableKey), 'ERR_2001', 'billing_processor_id');
    });

    test('no subscription exists: retrieve and every change answer ERR_4110', async () => {
      await expectApiError(await profiled('GET', '/subscriptions/sub_nothing'), 'ERR_4110');
      await expectApiError(await profiled('POST', '/subscriptions/sub_nothing/cancel', { cancel_option: 'immediately' }), 'ERR_4110');
      await expectApiError(await profiled('POST', '/subscriptions/sub_nothing/pause', {}), 'ERR_4110');
      await expectApiError(await profiled('POST', '/subscriptions/sub_nothing/resume', { resume_option: 'immediately' }), 'ERR_4110');
      await expectApiError(await profiled('POST', '/subscriptions/sub_nothing/confirm', { payment_details: {} }), 'ERR_4110');
      await expectApiError(await profiled('PUT', '/subscriptions/sub_nothing/update', { plan_id: 'p', item_price_id: 'i' }), 'ERR_4110');
    });

    test('X-Profile-Id is required on every call and must name a profile of the account', async () => {
      await expectApiError(await profiled('POST', '/subscriptions', creation(), null), 'ERR_2001', 'X-Profile-Id');
      await expectApiError(await profiled('GET', '/subscriptions/list', undefined, null), 'ERR_2001', 'X-Profile-Id');
      await expectApiError(await profiled('GET', '/subscriptions/sub_x', undefined, null), 'ERR_2001', 'X-Profile-Id');
      await expectApiError(await profiled('GET', '/subscriptions/list', undefined, 'pro_nobody'), 'ERR_2003', 'X-Profile-Id');
    });

    test('bad bodies are refused at the edge before the billing processor is looked for', async () => {
      const { item_price_id: _omitted, ...withoutPrice } = creation();
      await expectApiError(await profiled('POST', '/subscriptions', withoutPrice), 'ERR_2001', 'item_price_id');
      await expectApiError(await profiled('POST', '/subscriptions/create', { ...creation(), billing_processor: 'x' }), 'ERR_2004', 'billing_processor');
      await expectApiError(await profiled('POST', '/subscriptions/sub_x/cancel', { cancel_option: 'someday' }), 'ERR_2003', 'cancel_option');
      await expectApiError(await profiled('GET', '/subscriptions/items'), 'ERR_2001', 'item_type');
      await expectApiError(await profiled('POST', '/subscriptions/sub_x/confirm', { payment_details: {} }, h.boot.profile.profileId, h.publishableKey), 'ERR_2001', 'client_secret');
    });
  });

  describe(`[${engine}] with the simulated billing processor`, () => {
    let b: Harness;
    let subscriber: string;
    beforeAll(async () => {
      b = await createHarness(engine, { settings: BILLING_SETTINGS });
      subscriber = (await expectOk<{ customer_id: string }>(await apiRequest(b, 'POST', '/customers', { body: { name: 'Subscriber' } }))).customer_id;
    });
    afterAll(async () => b?.close());

    const on = (method: string, path: string, body?: unknown, key?: string) =>
      apiRequest(b, method, path, { ...(body !== undefined ? { body } : {}), ...(key !== undefined ? { key } : {}), headers: { 'X-Profile-Id': b.boot.profile.profileId } });
    const subscribe = async (vpa = 'success@upi', extra: Record<string, unknown> = {}) =>
      expectOk<SubscriptionResponse>(await on('POST', '/subscriptions', { item_price_id: 'price_basic_monthly', plan_id: 'plan_basic', customer_id: subscriber, payment_details: UPI(vpa), ...extra }));
    const eventsOf = async (objectId: string) => (await expectOk<{ data: { event_type: string }[] }>(await apiRequest(b, 'GET', `/events?object_id=${objectId}`))).data.map((e) => e.event_type);
    const renew = async () => expectOk<{ renewed: number; failed: number; paused: number; cancelled: number }>(await on('POST', '/simulator/subscriptions/renew', {}));
    const secretAuth = (): AuthContext => ({ accountId: b.boot.account.accountId, mode: 'test', keyId: 'key_test', keyKind: 'secret', account: b.boot.account });
    /** The core's store, with transactions that throw `message` once `dies()` says so (a process that died, say). */
    const storeWhoseTransactions = (dies: () => boolean | Promise<boolean>, message: string) =>
      withMembers(b.core.store, {
        transaction: (target) =>
          async (work: Parameters<typeof target.transaction>[0]) => {
            if (await dies()) throw new Error(message);
            return target.transaction(work);
          },
      });

    test('the catalogue: items and an estimate with a coupon or a trial', async () => {
      const plans = await expectOk<{ item_id: string; price_id: { price_id: string; amount: number }[] }[]>(await on('GET', '/subscriptions/items?item_type=plan'));
      expect(plans.map((plan) => plan.item_id)).toEqual(['plan_basic', 'plan_pro']);
      expect(plans[0]?.price_id[0]).toMatchObject({ price_id: 'price_basic_monthly', amount: 19_900 });
      expect((await expectOk<unknown[]>(await on('GET', '/subscriptions/items?item_type=addon'))).length).toBe(1);
      expect(await expectOk(await on('GET', '/subscriptions/estimate?plan_id=plan_basic&coupon_id=WELCOME10'))).toMatchObject({ amount: 17_910, currency: 'INR', item_price_id: 'price_basic_monthly', coupon_code: 'WELCOME10' });
      expect(await expectOk(await on('GET', '/subscriptions/estimate?plan_id=plan_basic&trial_days=7'))).toMatchObject({ amount: 0 });
      await expectApiError(await on('GET', '/subscriptions/estimate?plan_id=plan_none'), 'ERR_2003', 'plan_id');
      await expectApiError(await on('GET', '/subscriptions/estimate?plan_id=plan_basic&coupon_id=NOPE'), 'ERR_2003', 'coupon_id');
    });

    test('create and confirm pays the first invoice with a mandate; renewals charge it on the moved clock; each change sends its event', async () => {
      const started = b.clock.now().getTime();
      const subscription = await subscribe();
      expect(subscription).toMatchObject({ status: 'active', plan_id: 'plan_basic', amount: 19_900, currency: 'INR', customer_id: subscriber, profile_id: b.boot.profile.profileId });
      expect(subscription.payment).toMatchObject({ status: 'succeeded', amount: 19_900 });
      const mandateId = subscription.payment?.['mandate_id'] as string;
      expect(mandateId).toMatch(/^man_/);
      expect(subscription.invoice).toMatchObject({ next_billing_at: new Date(started + 30 * DAY_MS).toISOString(), mandate_id: mandateId });
      // Every event of the subscription under its own id (newest first; these two share a time).
      expect((await eventsOf(subscription.id)).sort()).toEqual(['subscription_active', 'subscription_created']);

      // Not due yet: nothing is charged. (The tick counts every subscription of the account, so each check reads this one.)
      b.clock.advance(29 * DAY_MS);
      await renew();
      expect((await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`))).payment?.['payment_id']).toBe(subscription.payment?.['payment_id']);
      b.clock.advance(DAY_MS);
      expect((await renew()).renewed).toBeGreaterThanOrEqual(1);
      const renewed = await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`));
      expect(renewed.status).toBe('active');
      const renewal = renewed.payment as { payment_id: string; status: string; amount: number; mandate_id: string };
      expect(renewal).toMatchObject({ status: 'succeeded', amount: 19_900, mandate_id: mandateId });
      expect(renewal.payment_id).not.toBe(subscription.payment?.['payment_id']);
      expect(renewed.invoice).toMatchObject({ next_billing_at: new Date(started + 60 * DAY_MS).toISOString() });
      expect((await eventsOf(subscription.id)).slice(0, 2)).toEqual(['invoice_paid', expect.stringMatching(/^subscription_/)]);
      expect((await expectOk<PaymentResponse>(await apiRequest(b, 'GET', `/payments/${renewal.payment_id}`))).description).toContain(subscription.id);

      // A revoked mandate cannot be charged: the next renewal makes the subscription unpaid.
      await expectOk(await apiRequest(b, 'POST', `/mandates/revoke/${mandateId}`, { body: {} }));
      b.clock.advance(30 * DAY_MS);
      expect((await renew()).failed).toBeGreaterThanOrEqual(1);
      const unpaid = await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`));
      // The unpaid period stays due (a resume bills it): the renewal's claim of it was put back.
      expect(unpaid).toMatchObject({ status: 'unpaid', invoice: { next_billing_at: new Date(started + 60 * DAY_MS).toISOString() } });
      expect((await eventsOf(subscription.id)).slice(0, 2)).toEqual(['subscription_unpaid', 'invoice_paid']);
    });

    test('create, then confirm with the publishable key and the subscription client_secret', async () => {
      const created = await expectOk<SubscriptionResponse>(await on('POST', '/subscriptions/create', { item_price_id: 'price_basic_monthly', customer_id: subscriber, payment_details: {} }));
      expect(created).toMatchObject({ status: 'created', payment: null });
      expect(created.client_secret).toMatch(new RegExp(`^${created.id}_secret_`));
      const wrong = `${created.id}_secret_${'W'.repeat(20)}`;
      vi.mocked(secretsEqual).mockClear();
      const wrongSecret = await on('POST', `/subscriptions/${created.id}/confirm`, { client_secret: wrong, payment_details: UPI('success@upi') }, b.publishableKey);
      const wrongAnswer = await expectApiError(wrongSecret, 'ERR_1005', 'client_secret');
      expect(comparedWith(wrong)).toEqual([created.client_secret!.length]);
      // A publishable key cannot tell an unknown subscription from a wrong client_secret, by the answer or by the
      // comparison it waited for (a stand-in of an issued secret's length).
      const ofUnknown = `sub_noSuchSubscription0_secret_${'W'.repeat(20)}`;
      const unknown = await on('POST', '/subscriptions/sub_noSuchSubscription0/confirm', { client_secret: ofUnknown, payment_details: UPI('success@upi') }, b.publishableKey);
      expect(unknown.status).toBe(wrongSecret.status);
      expect(((await unknown.json()) as { error: unknown }).error).toEqual(wrongAnswer);
      expect(comparedWith(ofUnknown)).toEqual([ofUnknown.length]);
      const failed = await expectOk<SubscriptionResponse>(await on('POST', `/subscriptions/${created.id}/confirm`, { client_secret: created.client_secret, payment_details: UPI('failure@upi') }, b.publishableKey));
      expect(failed).toMatchObject({ status: 'created', payment: { status: 'failed' } });
      const confirmed = await expectOk<SubscriptionResponse>(await on('POST', `/subscriptions/${created.id}/confirm`, { client_secret: created.client_secret, payment_details: UPI('success@upi') }, b.publishableKey));
      expect(confirmed).toMatchObject({ status: 'active', payment: { status: 'succeeded' } });
      await expectApiError(await on('POST', `/subscriptions/${created.id}/confirm`, { payment_details: UPI('success@upi') }), 'ERR_4111');
      await expectApiError(await on('POST', `/subscriptions/${created.id}/confirm`, { payment_details: { vpa: 'x' } }), 'ERR_4111');
      const before = (await expectOk<SubscriptionResponse[]>(await on('GET', '/subscriptions/list?limit=100'))).length;
      await expectApiError(await on('POST', '/subscriptions', { item_price_id: 'price_basic_monthly', customer_id: subscriber, payment_details: { payment_method: 'teleport' } }), 'ERR_2003', 'payment_details.payment_method');
      expect((await expectOk<SubscriptionResponse[]>(await on('GET', '/subscriptions/list?limit=100'))).length).toBe(before);
      const other = await expectOk<SubscriptionResponse>(await on('POST', '/subscriptions/create', { item_price_id: 'price_basic_monthly', customer_id: subscriber, payment_details: {} }));
      await expectApiError(await on('POST', `/subscriptions/${other.id}/confirm`, { payment_details: { vpa: 'x' } }), 'ERR_2004', 'payment_details.vpa');
    });

    test("the first invoice needs the subscriber's customer_acceptance, checked as on POST /payments, before anything is stored", async () => {
      const before = (await expectOk<SubscriptionResponse[]>(await on('GET', '/subscriptions/list?limit=100'))).length;
      const subscribeWith = (acceptance: unknown) =>
        on('POST', '/subscriptions', { item_price_id: 'price_basic_monthly', customer_id: subscriber, payment_details: { ...UPI('success@upi'), customer_acceptance: acceptance } });
      await expectApiError(await subscribeWith(undefined), 'ERR_2001', 'payment_details.customer_acceptance');
      await expectApiError(await subscribeWith('x'), 'ERR_2003', 'payment_details.customer_acceptance');
      await expectApiError(await subscribeWith({ acceptance_type: 'online' }), 'ERR_2001', 'payment_details.customer_acceptance.online');
      await expectApiError(await subscribeWith({ acceptance_type: 'offline', by: 'phone' }), 'ERR_2004', 'payment_details.customer_acceptance.by');
      expect((await expectOk<SubscriptionResponse[]>(await on('GET', '/subscriptions/list?limit=100'))).length).toBe(before);
      const offline = await expectOk<SubscriptionResponse>(await subscribeWith({ acceptance_type: 'offline', accepted_at: '2025-01-01T00:00:00Z' }));
      const mandate = await expectOk<{ customer_acceptance: unknown }>(await apiRequest(b, 'GET', `/mandates/${String(offline.payment?.['mandate_id'])}`));
      expect(mandate.customer_acceptance).toEqual({ acceptance_type: 'offline', accepted_at: '2025-01-01T00:00:00Z' });
    });

    test('raw card numbers in payment_details are refused (ERR_2029) before anything is stored; a card number as a field name is not echoed', async () => {
      const card = { payment_method: 'card', payment_method_type: 'credit', payment_method_data: { card: { card_number: '4242424242424242', card_exp_month: '12', card_exp_year: '2030', card_cvc: '123' } } };
      const created = await expectOk<SubscriptionResponse>(await on('POST', '/subscriptions/create', { item_price_id: 'price_basic_monthly', customer_id: subscriber, payment_details: {} }));
      const confirm = (paymentDetails: unknown) => on('POST', `/subscriptions/${created.id}/confirm`, { client_secret: created.client_secret, payment_details: paymentDetails }, b.publishableKey);
      await expectApiError(await confirm(card), 'ERR_2029', 'payment_details.payment_method_data');
      // A number anywhere inside payment_method_data, as on POST /payments.
      await expectApiError(await confirm({ payment_method: 'card', payment_method_data: { card: { number: '4242 4242 4242 4242' } } }), 'ERR_2029', 'payment_details.payment_method_data');
      const unknownField = await expectApiError(await confirm({ '4242424242424242': 'x' }), 'ERR_2004', 'payment_details.[redacted]');
      expect(JSON.stringify(unknownField)).not.toContain('4242424242424242');
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${created.id}`))).toMatchObject({ status: 'created', payment: null });
      const before = (await expectOk<SubscriptionResponse[]>(await on('GET', '/subscriptions/list?limit=100'))).length;
      await expectApiError(await on('POST', '/subscriptions', { item_price_id: 'price_basic_monthly', customer_id: subscriber, payment_details: card }), 'ERR_2029', 'payment_details.payment_method_data');
      expect((await expectOk<SubscriptionResponse[]>(await on('GET', '/subscriptions/list?limit=100'))).length).toBe(before);
      const stored = await b.db.selectFrom('payments').select('payment_method_data').execute();
      expect(stored.filter((row) => String(row.payment_method_data).includes('4242424242424242'))).toEqual([]);
    });

    test('pause, resume, update, cancel: each moves the status and sends its event; a cancelled subscription stays cancelled', async () => {
      const subscription = await subscribe();
      const paused = await expectOk<Record<string, unknown>>(await on('POST', `/subscriptions/${subscription.id}/pause`, {}));
      expect(paused).toMatchObject({ id: subscription.id, status: 'paused', paused_at: b.clock.now().toISOString() });
      await expectApiError(await on('POST', `/subscriptions/${subscription.id}/pause`, {}), 'ERR_4111');
      b.clock.advance(40 * DAY_MS);
      await renew();
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`))).toMatchObject({ status: 'paused', payment: { payment_id: subscription.payment?.['payment_id'] } });
      const resumed = await expectOk<Record<string, unknown>>(await on('POST', `/subscriptions/${subscription.id}/resume`, { resume_option: 'immediately', charges_handling: 'invoice_immediately' }));
      expect(resumed).toMatchObject({ status: 'active', next_billing_at: b.clock.now().toISOString() });

      const updated = await expectOk<SubscriptionResponse>(await on('PUT', `/subscriptions/${subscription.id}/update`, { plan_id: 'plan_pro', item_price_id: 'price_pro_monthly' }));
      expect(updated).toMatchObject({ plan_id: 'plan_pro', item_price_id: 'price_pro_monthly', amount: 49_900, status: 'active' });
      await expectApiError(await on('PUT', `/subscriptions/${subscription.id}/update`, { plan_id: 'plan_pro', item_price_id: 'price_pro_monthly_usd' }), 'ERR_2003', 'item_price_id');
      await expectApiError(await on('PUT', `/subscriptions/${subscription.id}/update`, { plan_id: 'plan_basic', item_price_id: 'price_pro_monthly' }), 'ERR_2003', 'item_price_id');
      // invoice_immediately: the next tick bills the new price.
      await renew();
      expect((await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`))).payment).toMatchObject({ amount: 49_900, status: 'succeeded' });

      const cancelled = await expectOk<Record<string, unknown>>(await on('POST', `/subscriptions/${subscription.id}/cancel`, { cancel_option: 'immediately', cancel_reason_code: 'customer_request' }));
      expect(cancelled).toMatchObject({ status: 'cancelled', cancelled_at: b.clock.now().toISOString() });
      for (const [method, path, body] of [
        ['POST', 'cancel', {}],
        ['POST', 'pause', {}],
        ['POST', 'resume', {}],
        ['PUT', 'update', { plan_id: 'plan_basic', item_price_id: 'price_basic_monthly' }],
      ] as const) {
        await expectApiError(await on(method, `/subscriptions/${subscription.id}/${path}`, body), 'ERR_4111');
      }
      const events = (await expectOk<{ data: { event_type: string; object_id?: string }[] }>(await apiRequest(b, 'GET', '/events?limit=100'))).data.map((e) => e.event_type);
      for (const type of ['subscription_paused', 'subscription_active', 'subscription_updated', 'invoice_paid', 'subscription_cancelled']) expect(events).toContain(type);
    });

    test('a cancel at the end of the term waits for the renewal tick', async () => {
      const subscription = await subscribe();
      const scheduled = await expectOk<Record<string, unknown>>(await on('POST', `/subscriptions/${subscription.id}/cancel`, { cancel_option: 'end_of_term' }));
      expect(scheduled['status']).toBe('active');
      await expectApiError(await on('POST', `/subscriptions/${subscription.id}/cancel`, { cancel_option: 'specific_date', cancel_at: '2000-01-01T00:00:00Z' }), 'ERR_2003', 'cancel_at');
      b.clock.advance(30 * DAY_MS);
      expect((await renew()).cancelled).toBeGreaterThanOrEqual(1);
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`))).toMatchObject({ status: 'cancelled', payment: { payment_id: subscription.payment?.['payment_id'] } });
    });

    /**
     * The payments charged for a subscription (first invoice and renewals carry its id in their description); a payment
     * cancelled before it reached the rail charged nothing.
     */
    const chargesOf = async (subscriptionId: string) =>
      (await paymentsOf(subscriptionId)).filter((payment) => payment.status !== 'cancelled').length;
    const paymentsOf = (subscriptionId: string) => b.db.selectFrom('payments').select(['payment_id', 'status']).where('description', 'like', `%${subscriptionId}`).execute();

    test('concurrent confirms of one subscription charge its first invoice once', async () => {
      const created = await expectOk<SubscriptionResponse>(await on('POST', '/subscriptions/create', { item_price_id: 'price_basic_monthly', customer_id: subscriber, payment_details: {} }));
      const answers = await Promise.all([0, 1, 2].map(() => on('POST', `/subscriptions/${created.id}/confirm`, { payment_details: UPI('success@upi') })));
      const confirmed = answers.filter((answer) => answer.status === 200);
      expect(confirmed.length).toBe(1);
      for (const answer of answers.filter((a) => a.status !== 200)) await expectApiError(answer, 'ERR_4111');
      expect(await chargesOf(created.id)).toBe(1);
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${created.id}`))).toMatchObject({ status: 'active', payment: { status: 'succeeded' } });
      expect((await eventsOf(created.id)).sort()).toEqual(['subscription_active', 'subscription_created']);
    });

    test('a confirm whose first invoice is refused before it is stored leaves the subscription created, to confirm again', async () => {
      const created = await expectOk<SubscriptionResponse>(await on('POST', '/subscriptions/create', { item_price_id: 'price_basic_monthly', customer_id: subscriber, payment_details: {} }));
      await expectApiError(await on('POST', `/subscriptions/${created.id}/confirm`, { payment_details: { mandate_id: 'man_NoSuchMandate0000000' } }), 'ERR_4088', 'mandate_id');
      expect(await chargesOf(created.id)).toBe(0);
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${created.id}`))).toMatchObject({ status: 'created' });
      expect(await expectOk<SubscriptionResponse>(await on('POST', `/subscriptions/${created.id}/confirm`, { payment_details: UPI('success@upi') }))).toMatchObject({ status: 'active' });
    });

    test('a plan change that lands while a confirm runs is never charged at the price the confirm read', async () => {
      const created = await expectOk<SubscriptionResponse>(await on('POST', '/subscriptions/create', { item_price_id: 'price_basic_monthly', customer_id: subscriber, payment_details: {} }));
      const auth = secretAuth();
      // The update commits after the confirm read the subscription, before its first write (the claim).
      let updated = false;
      const store = withMembers(b.core.store, {
        transaction: (target) => async (work: Parameters<typeof target.transaction>[0]) => {
          if (!updated) {
            updated = true;
            await expectOk(await on('PUT', `/subscriptions/${created.id}/update`, { plan_id: 'plan_pro', item_price_id: 'price_pro_monthly' }));
          }
          return target.transaction(work);
        },
      });
      await expect(confirmSubscription({ ...b.core, store }, auth, b.boot.profile.profileId, created.id, { payment_details: UPI('success@upi') })).rejects.toMatchObject({ code: 'ERR_4111' });
      expect(await chargesOf(created.id)).toBe(0);
      const confirmed = await expectOk<SubscriptionResponse>(await on('POST', `/subscriptions/${created.id}/confirm`, { payment_details: UPI('success@upi') }));
      expect(confirmed).toMatchObject({ status: 'active', plan_id: 'plan_pro', amount: 49_900, payment: { amount: 49_900, status: 'succeeded' } });
    });

    test('a retrieve while the first invoice is being charged leaves the subscription pending', async () => {
      const created = await expectOk<SubscriptionResponse>(await on('POST', '/subscriptions/create', { item_price_id: 'price_basic_monthly', customer_id: subscriber, payment_details: {} }));
      const auth = secretAuth();
      // The retrieve runs once the invoice's payment is stored and before it reaches the rail (requires_confirmation).
      let seenMeanwhile: SubscriptionResponse | undefined;
      const store = withMembers(b.core.store, {
        transaction: (target) =>
          async (work: Parameters<typeof target.transaction>[0]) => {
            const result = await target.transaction(work);
            if (seenMeanwhile === undefined && (await chargesOf(created.id)) === 1) {
              seenMeanwhile = await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${created.id}`));
            }
            return result;
          },
      });
      const confirmed = await confirmSubscription({ ...b.core, store }, auth, b.boot.profile.profileId, created.id, { payment_details: UPI('success@upi') });
      expect(seenMeanwhile).toMatchObject({ status: 'pending', payment: { status: 'requires_confirmation' } });
      expect(confirmed).toMatchObject({ status: 'active', payment: { status: 'succeeded' } });
      // Still pending meanwhile, so no second confirm could charge the invoice again.
      await expectApiError(await on('POST', `/subscriptions/${created.id}/confirm`, { payment_details: UPI('success@upi') }), 'ERR_4111');
      expect(await chargesOf(created.id)).toBe(1);
    });

    test('an Idempotency-Key re-run (same derived ids) of a confirm that died after its claim charges the invoice once', async () => {
      const created = await expectOk<SubscriptionResponse>(await on('POST', '/subscriptions/create', { item_price_id: 'price_basic_monthly', customer_id: subscriber, payment_details: {} }));
      const auth = secretAuth();
      const ids = () => derivedIds(`confirm-rerun-${engine}`, cryptoIds, b.clock.now());
      // The first run dies after its claim: no later write of it lands (the process is gone).
      let transactions = 0;
      const dying = storeWhoseTransactions(() => (transactions += 1) > 1, 'the process died');
      const body = { payment_details: UPI('success@upi') };
      await expect(confirmSubscription({ ...b.core, ids: ids(), store: dying }, auth, b.boot.profile.profileId, created.id, body)).rejects.toThrow('the process died');
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${created.id}`))).toMatchObject({ status: 'pending' });
      const rerun = await confirmSubscription({ ...b.core, ids: ids() }, auth, b.boot.profile.profileId, created.id, body);
      expect(rerun).toMatchObject({ status: 'active', payment: { status: 'succeeded' } });
      // A re-run of a confirm that completed answers the subscription as it left it.
      expect(await confirmSubscription({ ...b.core, ids: ids() }, auth, b.boot.profile.profileId, created.id, body)).toMatchObject({ status: 'active', payment: rerun.payment });
      expect(await chargesOf(created.id)).toBe(1);
    });

    test('an Idempotency-Key re-run (same derived ids) of a confirm whose payment was refused before it was stored charges the invoice', async () => {
      const created = await expectOk<SubscriptionResponse>(await on('POST', '/subscriptions/create', { item_price_id: 'price_basic_monthly', customer_id: subscriber, payment_details: {} }));
      const auth = secretAuth();
      const ids = () => derivedIds(`confirm-released-${engine}`, cryptoIds, b.clock.now());
      // The first run's claim lands; its payment's insert fails (a 5xx, which releases the key), and the claim is given back.
      let transactions = 0;
      const failing = storeWhoseTransactions(() => (transactions += 1) === 2, 'the database went away for a moment');
      const body = { payment_details: UPI('success@upi') };
      await expect(confirmSubscription({ ...b.core, ids: ids(), store: failing }, auth, b.boot.profile.profileId, created.id, body)).rejects.toThrow('went away');
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${created.id}`))).toMatchObject({ status: 'created' });
      expect(await chargesOf(created.id)).toBe(0);
      // The retry the 5xx asks for derives the same payment id: it confirms (it answered `created` and charged nothing).
      const rerun = await confirmSubscription({ ...b.core, ids: ids() }, auth, b.boot.profile.profileId, created.id, body);
      expect(rerun).toMatchObject({ status: 'active', payment: { status: 'succeeded' } });
      expect(await chargesOf(created.id)).toBe(1);
    });

    test('a take-over whose stored payment its confirm refuses short of the rail cancels it, so the stalled claimant cannot charge it', async () => {
      const created = await expectOk<SubscriptionResponse>(await on('POST', '/subscriptions/create', { item_price_id: 'price_basic_monthly', customer_id: subscriber, payment_details: {} }));
      // What a stalled claimant leaves: its invoice payment stored short of the rail with a wallet whose token went
      // only to its own confirm (the placeholder), and a claim past its lease.
      const paymentId = `pay_stalled_${engine}_${b.clock.now().getTime()}`;
      await expectOk(await apiRequest(b, 'POST', '/payments', { body: { payment_id: paymentId, amount: 19_900, currency: 'INR', customer_id: subscriber, ...UPI('success@upi') } }));
      const consumed = withoutWalletToken({ wallet: { paypal_sdk: { token: 'sim_wallet_approved' } } });
      await b.db.updateTable('payments').set({ payment_method: 'wallet', payment_method_type: 'paypal', payment_method_data: JSON.stringify(consumed), status: 'requires_confirmation' }).where('payment_id', '=', paymentId).execute();
      await b.db.updateTable('subscriptions').set({ status: 'pending', last_payment_id: paymentId, updated_at: b.clock.now().toISOString() }).where('subscription_id', '=', created.id).execute();
      b.clock.advance(IDEMPOTENCY_LEASE_MS + 1);
      const takeOver = await on('POST', `/subscriptions/${created.id}/confirm`, { payment_details: UPI('success@upi') });
      expect(takeOver.status).toBeLessThan(500);
      // The stored payment is cancelled before the subscription is released: a confirm of it by the stalled run fails.
      expect(await expectOk<PaymentResponse>(await apiRequest(b, 'GET', `/payments/${paymentId}`))).toMatchObject({ status: 'cancelled' });
      await expectApiError(await apiRequest(b, 'POST', `/payments/${paymentId}/confirm`, { body: {} }), 'ERR_4003');
    });

    test('a keyed renew run again after its key was released charges each subscription under a payment id of its own', async () => {
      const first = await subscribe();
      // The second falls due an hour after the first: both runs of the key fall within its 24 hours.
      b.clock.advance(HOUR_MS);
      const second = await subscribe();
      const key = `renew-${engine}-${b.clock.now().getTime()}`;
      const keyedRenew = () =>
        apiRequest(b, 'POST', '/simulator/subscriptions/renew', { body: {}, headers: { 'X-Profile-Id': b.boot.profile.profileId, 'Idempotency-Key': key } });
      b.clock.advance(30 * DAY_MS - HOUR_MS);
      expect((await expectOk<{ renewed: number }>(await keyedRenew())).renewed).toBeGreaterThanOrEqual(1);
      expect(await chargesOf(first.id)).toBe(2);
      // As a 5xx or a "try later" answer leaves it (core/auth/idempotency.ts): its retry takes the claim over.
      await b.db
        .updateTable('idempotency_keys')
        .set({ status: 'in_flight', response_status: null, response_headers: null, response_body: null, locked_at: new Date(0).toISOString() })
        .where('idempotency_key', '=', key)
        .execute();
      b.clock.advance(HOUR_MS);
      expect((await expectOk<{ renewed: number }>(await keyedRenew())).renewed).toBeGreaterThanOrEqual(1);
      // The re-run renewed other subscriptions than its first run: none is paid by a payment of another.
      const shared = await b.db
        .selectFrom('subscriptions')
        .select(['last_payment_id', (eb) => eb.fn.countAll<number>().as('count')])
        .where('last_payment_id', 'is not', null)
        .groupBy('last_payment_id')
        .having((eb) => eb.fn.countAll(), '>', 1)
        .execute();
      expect(shared).toEqual([]);
      const renewed = await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${second.id}`));
      const payment = await expectOk<PaymentResponse>(await apiRequest(b, 'GET', `/payments/${String(renewed.payment?.['payment_id'])}`));
      expect(payment).toMatchObject({ status: 'succeeded', description: expect.stringContaining(second.id) });
      expect(await chargesOf(second.id)).toBe(2);
    });

    test('an Idempotency-Key re-run takes its claim over: a cancel while it charges is refused, and the invoice is charged once', async () => {
      const created = await createdSubscription();
      // The claim's ids time, which the re-run keeps (core/auth/idempotency.ts).
      const claimedAt = b.clock.now();
      const ids = () => derivedIds(`confirm-rerun-cancel-${engine}`, cryptoIds, claimedAt);
      let transactions = 0;
      const dying = storeWhoseTransactions(() => (transactions += 1) > 1, 'the process died');
      const body = { payment_details: UPI('success@upi') };
      await expect(confirmSubscription({ ...b.core, ids: ids(), store: dying }, secretAuth(), b.boot.profile.profileId, created.id, body)).rejects.toThrow('the process died');
      b.clock.advance(IDEMPOTENCY_LEASE_MS);
      // The cancel comes once the re-run's first transaction (its claim) committed, before the invoice is charged.
      let cancelMeanwhile: Response | undefined;
      const store = storeWith(async (index) => {
        if (index === 1) cancelMeanwhile = await on('POST', `/subscriptions/${created.id}/cancel`, { cancel_option: 'immediately' });
      });
      const rerun = await confirmSubscription({ ...b.core, ids: ids(), store }, secretAuth(), b.boot.profile.profileId, created.id, body);
      await expectApiError(cancelMeanwhile!, 'ERR_4111');
      expect(rerun).toMatchObject({ status: 'active', payment: { status: 'succeeded' } });
      expect(await chargesOf(created.id)).toBe(1);
    });

    test('an Idempotency-Key re-run of a create and confirm whose answer was lost answers the subscription it created', async () => {
      const auth = secretAuth();
      const ids = () => derivedIds(`create-rerun-${engine}`, cryptoIds, b.clock.now());
      const body = { item_price_id: 'price_basic_monthly', customer_id: subscriber, payment_details: UPI('success@upi') };
      const first = await createAndConfirmSubscription({ ...b.core, ids: ids() }, auth, b.boot.profile.profileId, body);
      const rerun = await createAndConfirmSubscription({ ...b.core, ids: ids() }, auth, b.boot.profile.profileId, body);
      expect(rerun).toMatchObject({ id: first.id, status: 'active', payment: first.payment });
      expect(await chargesOf(first.id)).toBe(1);
    });

    test('concurrent renewal ticks (several instances) charge a due period once', async () => {
      const subscription = await subscribe();
      b.clock.advance(30 * DAY_MS);
      await Promise.all([renew(), renew(), renew()]);
      expect(await chargesOf(subscription.id)).toBe(2);
      const renewed = await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`));
      expect(renewed).toMatchObject({ status: 'active', invoice: { next_billing_at: new Date(b.clock.now().getTime() + 30 * DAY_MS).toISOString() } });
      const paidEvents = (await expectOk<{ data: { event_type: string; object_id: string }[] }>(await apiRequest(b, 'GET', '/events?limit=100'))).data.filter(
        (event) => event.event_type === 'invoice_paid' && event.object_id === subscription.id,
      );
      expect(paidEvents.length).toBe(1);
    });

    const createdSubscription = async () =>
      expectOk<SubscriptionResponse>(await on('POST', '/subscriptions/create', { item_price_id: 'price_basic_monthly', customer_id: subscriber, payment_details: {} }));
    /** The store, with `afterTransaction` run after each transaction commits (its index from 1). */
    const storeWith = (afterTransaction: (index: number) => Promise<void>) => {
      let transactions = 0;
      return withMembers(b.core.store, {
        transaction: (target) =>
          async (work: Parameters<typeof target.transaction>[0]) => {
            const result = await target.transaction(work);
            transactions += 1;
            await afterTransaction(transactions);
            return result;
          },
      });
    };

    test('a cancel while the confirm charges the first invoice is refused, and the paid invoice activates the subscription', async () => {
      const created = await createdSubscription();
      // The cancel comes once the confirm's claim committed (its first transaction), before the invoice is charged.
      let cancelMeanwhile: Response | undefined;
      const store = storeWith(async (index) => {
        if (index === 1) cancelMeanwhile = await on('POST', `/subscriptions/${created.id}/cancel`, { cancel_option: 'immediately' });
      });
      const confirmed = await confirmSubscription({ ...b.core, store }, secretAuth(), b.boot.profile.profileId, created.id, { payment_details: UPI('success@upi') });
      const refusal = await expectApiError(cancelMeanwhile!, 'ERR_4111');
      expect(String(refusal['message'])).toContain('first invoice');
      expect(confirmed).toMatchObject({ status: 'active', payment: { status: 'succeeded' } });
      expect(await chargesOf(created.id)).toBe(1);
      // Once the invoice settled, the cancel is the ordinary one.
      expect(await expectOk(await on('POST', `/subscriptions/${created.id}/cancel`, { cancel_option: 'immediately' }))).toMatchObject({ status: 'cancelled' });
    });

    test('a cancel of a subscription whose first invoice waits for the customer is refused until the payment settles', async () => {
      const waiting = await subscribe('pending@upi');
      expect(waiting).toMatchObject({ status: 'pending', payment: { status: 'requires_customer_action' } });
      const refusal = await expectApiError(await on('POST', `/subscriptions/${waiting.id}/cancel`, {}), 'ERR_4111');
      expect(String(refusal['message'])).toContain('requires_customer_action');
      b.clock.advance(PENDING_RESOLVE_AFTER_MS);
      // The cancel looks at the payment first: it was paid, so the subscription was active, and an end_of_term cancel is scheduled.
      expect(await expectOk(await on('POST', `/subscriptions/${waiting.id}/cancel`, { cancel_option: 'end_of_term' }))).toMatchObject({ status: 'active' });
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${waiting.id}`))).toMatchObject({ status: 'active', invoice: { scheduled_change: { kind: 'cancel' } } });
    });

    /** A confirm (no Idempotency-Key) that dies once its claim committed; `stored`: after storing the invoice's payment too. */
    const confirmThatDies = async (subscriptionId: string, stored: boolean) => {
      let dyingTransactions = 0;
      const dying = withMembers(
        b.core.store,
        stored
          ? { payments: (target) => withMembers(target.payments, { claimPaymentAndOpenAttempt: () => () => Promise.reject(new Error('the process died')) }) }
          : {
              transaction: (target) => async (work: Parameters<typeof target.transaction>[0]) => {
                if ((dyingTransactions += 1) > 1) throw new Error('the process died');
                return target.transaction(work);
              },
            },
      );
      await expect(confirmSubscription({ ...b.core, store: dying }, secretAuth(), b.boot.profile.profileId, subscriptionId, { payment_details: UPI('success@upi') })).rejects.toThrow(
        'the process died',
      );
      const pending = await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscriptionId}`));
      expect(pending.status).toBe('pending');
      return String(pending.invoice?.['last_payment_id']);
    };

    test.each([false, true])('a confirm that died after its claim (payment stored: %s) is taken over once its lease ran out, charging the invoice once under its payment id', async (stored) => {
      const created = await createdSubscription();
      const invoicePaymentId = await confirmThatDies(created.id, stored);
      expect(await chargesOf(created.id)).toBe(stored ? 1 : 0);
      // Within the lease the claim may still be charging: another confirm and a cancel are refused.
      await expectApiError(await on('POST', `/subscriptions/${created.id}/confirm`, { payment_details: UPI('success@upi') }), 'ERR_4111');
      await expectApiError(await on('POST', `/subscriptions/${created.id}/cancel`, {}), 'ERR_4111');
      b.clock.advance(60_000);
      const taken = await expectOk<SubscriptionResponse>(await on('POST', `/subscriptions/${created.id}/confirm`, { client_secret: created.client_secret, payment_details: UPI('success@upi') }, b.publishableKey));
      expect(taken).toMatchObject({ status: 'active', payment: { payment_id: invoicePaymentId, status: 'succeeded' } });
      expect(await chargesOf(created.id)).toBe(1);
      await expectApiError(await on('POST', `/subscriptions/${created.id}/confirm`, { payment_details: UPI('success@upi') }), 'ERR_4111');
    });

    test('a cancel after a dead confirm\'s lease ran out, with no payment stored, cancels; the invoice is then never charged', async () => {
      const created = await createdSubscription();
      await confirmThatDies(created.id, false);
      b.clock.advance(60_000);
      expect(await expectOk(await on('POST', `/subscriptions/${created.id}/cancel`, {}))).toMatchObject({ status: 'cancelled' });
      await expectApiError(await on('POST', `/subscriptions/${created.id}/confirm`, { payment_details: UPI('success@upi') }), 'ERR_4111');
      expect(await chargesOf(created.id)).toBe(0);
    });

    /** The store, with `beforeClaim` run before each claim of a payment by its confirm (the call, its payment). */
    const storeBeforeClaim = (beforeClaim: (payment: { paymentId: string; description: string | null }) => Promise<void>) =>
      withMembers(b.core.store, {
        payments: (target) =>
          withMembers(target.payments, {
            claimPaymentAndOpenAttempt: (payments) =>
              async (...args: Parameters<typeof payments.claimPaymentAndOpenAttempt>) => {
                await beforeClaim(args[0]);
                return payments.claimPaymentAndOpenAttempt(...args);
              },
          }),
      });

    test('a confirm stalled past its lease before storing its payment charges nothing once a cancel took its invoice', async () => {
      const created = await createdSubscription();
      // The confirm stalls once its claim committed (its first transaction); its lease runs out and a cancel comes.
      let cancelMeanwhile: Response | undefined;
      const store = storeWith(async (index) => {
        if (index !== 1) return;
        b.clock.advance(60_000);
        cancelMeanwhile = await on('POST', `/subscriptions/${created.id}/cancel`, {});
      });
      const stalled = await confirmSubscription({ ...b.core, store }, secretAuth(), b.boot.profile.profileId, created.id, { payment_details: UPI('success@upi') });
      expect(await expectOk(cancelMeanwhile!)).toMatchObject({ status: 'cancelled' });
      // The cancel took the invoice's payment id (a cancelled payment, announced): the stalled run's create was refused.
      const [invoice] = await paymentsOf(created.id);
      expect(invoice?.status).toBe('cancelled');
      expect(stalled).toMatchObject({ status: 'cancelled', payment: { payment_id: invoice?.payment_id, status: 'cancelled' } });
      expect(await chargesOf(created.id)).toBe(0);
      expect(await eventsOf(invoice!.payment_id)).toEqual(['payment_cancelled']);
      expect(await eventsOf(created.id)).toContain('subscription_cancelled');
    });

    test('a confirm stalled past its lease after storing its payment, before charging it, charges nothing once a cancel came', async () => {
      const created = await createdSubscription();
      // The confirm stalls once the invoice's payment is stored, before its confirm claims it; then a cancel comes.
      let cancelMeanwhile: Response | undefined;
      const store = storeBeforeClaim(async () => {
        if (cancelMeanwhile !== undefined) return;
        b.clock.advance(60_000);
        cancelMeanwhile = await on('POST', `/subscriptions/${created.id}/cancel`, {});
      });
      const stalled = await confirmSubscription({ ...b.core, store }, secretAuth(), b.boot.profile.profileId, created.id, { payment_details: UPI('success@upi') }).catch(
        (error: unknown) => error,
      );
      expect(await expectOk(cancelMeanwhile!)).toMatchObject({ status: 'cancelled' });
      // The cancel cancelled the stored payment first, so the stalled confirm could not charge it.
      const [invoice] = await paymentsOf(created.id);
      expect(invoice?.status).toBe('cancelled');
      expect(await chargesOf(created.id)).toBe(0);
      expect(stalled).toMatchObject({ status: 'cancelled' });
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${created.id}`))).toMatchObject({ status: 'cancelled', payment: { status: 'cancelled' } });
    });

    test('a take-over of a confirm whose payment failed charges the invoice anew with its own payment_details', async () => {
      const created = await createdSubscription();
      // The first confirm dies once its payment failed, before the subscription heard of it.
      const failedPayment = async () => (await paymentsOf(created.id)).find((payment) => payment.status === 'failed');
      const dying = storeWhoseTransactions(async () => (await failedPayment()) !== undefined, 'the process died');
      await expect(confirmSubscription({ ...b.core, store: dying }, secretAuth(), b.boot.profile.profileId, created.id, { payment_details: UPI('failure@upi') })).rejects.toThrow(
        'the process died',
      );
      const failed = await failedPayment();
      expect(failed).toBeDefined();
      expect(await b.db.selectFrom('subscriptions').select(['status', 'last_payment_id']).where('subscription_id', '=', created.id).executeTakeFirstOrThrow()).toEqual({
        status: 'pending',
        last_payment_id: failed?.payment_id,
      });
      b.clock.advance(60_000);
      const taken = await expectOk<SubscriptionResponse>(await on('POST', `/subscriptions/${created.id}/confirm`, { client_secret: created.client_secret, payment_details: UPI('success@upi') }, b.publishableKey));
      expect(taken).toMatchObject({ status: 'active', payment: { status: 'succeeded' } });
      expect(taken.payment?.['payment_id']).not.toBe(failed?.payment_id);
      expect(await chargesOf(created.id)).toBe(2);
      expect((await eventsOf(created.id)).sort()).toEqual(['subscription_active', 'subscription_created']);
    });

    test('a renewal whose charge errors once its payment is stored follows that payment: the period is not billed again', async () => {
      const subscription = await subscribe();
      b.clock.advance(30 * DAY_MS);
      const renewalPayments = () => b.db.selectFrom('payments').select(['payment_id', 'status']).where('description', '=', `Renewal of subscription ${subscription.id}`).execute();
      // The charge reached the rail (the payment is processing), then the write of its answer failed.
      let failed = false;
      const store = withMembers(b.core.store, {
        transaction: (target) =>
          async (work: Parameters<typeof target.transaction>[0]) => {
            if (!failed && (await renewalPayments()).some((payment) => payment.status === 'processing')) {
              failed = true;
              throw new ApiError('ERR_4003', 'the answer could not be written');
            }
            return target.transaction(work);
          },
      });
      await renewDueSubscriptions({ ...b.core, store }, secretAuth());
      expect(failed).toBe(true);
      const [renewal] = await renewalPayments();
      const after = await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`));
      // The period has a payment the rail may still pay: it stays claimed (not unpaid, not due again).
      expect(after).toMatchObject({ status: 'active', invoice: { last_payment_id: renewal?.payment_id, next_billing_at: new Date(b.clock.now().getTime() + 30 * DAY_MS).toISOString() } });
      await expectApiError(await on('POST', `/subscriptions/${subscription.id}/resume`, { charges_handling: 'invoice_immediately' }), 'ERR_4111');
      await renew();
      expect(await chargesOf(subscription.id)).toBe(2);
    });

    test.each([
      ['the rail never received it', 'throw_before_accept', 'unpaid', 'subscription_unpaid'],
      ['the rail took it and its answer was lost', 'throw_after_accept', 'active', 'invoice_paid'],
    ] as const)('a renewal the rail had not decided (%s) is settled by a later tick from its payment', async (_case, fault, status, eventType) => {
      const subscription = await subscribe();
      b.clock.advance(30 * DAY_MS);
      const periodStart = b.clock.now();
      // Every renewal of this tick (the harness's other subscriptions fall due too).
      b.faults.inject(fault, { call: 'authorize', rail: 'upi', times: 1000 });
      try {
        await renew();
      } finally {
        b.faults.clear();
      }
      const outstanding = () => b.db.selectFrom('subscriptions').select('renewal_payment_id').where('subscription_id', '=', subscription.id).executeTakeFirstOrThrow();
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`))).toMatchObject({ status: 'active' });
      expect((await outstanding()).renewal_payment_id).not.toBeNull();
      // The payment recovery settles the payment (rail_not_reached, or the rail's answer); the next tick, the renewal.
      b.clock.advance(DEFAULT_RECOVERY_POLICY.recoverAfterMs + 1);
      const recovery = new StuckObjectRecovery(b.core, { batchSize: 100, onError: (_object, error) => { throw error; } });
      for (let step = await recovery.step(); step.checked > 0; step = await recovery.step());
      await renew();
      const settled = await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`));
      expect(settled.status).toBe(status);
      if (status === 'unpaid') expect(settled.invoice?.next_billing_at).toBe(periodStart.toISOString());
      const announced = (await expectOk<{ data: { event_type: string; object_id: string }[] }>(await apiRequest(b, 'GET', '/events?limit=100'))).data.filter(
        (event) => event.event_type === eventType && event.object_id === subscription.id,
      );
      expect(announced).toHaveLength(1);
      expect((await outstanding()).renewal_payment_id).toBeNull();
      // Settled once: another tick changes nothing.
      await renew();
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`))).toMatchObject({ status });
      expect(await chargesOf(subscription.id)).toBe(2);
    });

    /** A subscription whose renewal the rail has not decided (`fault` on every authorize of the tick), and its period's start. */
    const withOutstandingRenewal = async (fault: 'throw_before_accept' | 'throw_after_accept') => {
      const subscription = await subscribe();
      b.clock.advance(30 * DAY_MS);
      const periodStart = b.clock.now();
      // Every renewal of this tick (the harness's other subscriptions fall due too).
      b.faults.inject(fault, { call: 'authorize', rail: 'upi', times: 1000 });
      try {
        await renew();
      } finally {
        b.faults.clear();
      }
      return { subscription, periodStart };
    };
    const renewalPaymentOf = async (subscriptionId: string) =>
      (await b.db.selectFrom('subscriptions').select('renewal_payment_id').where('subscription_id', '=', subscriptionId).executeTakeFirstOrThrow()).renewal_payment_id;
    /** The payment recovery settles the payments the rail has not decided (rail_not_reached, or the rail's answer). */
    const recoverPayments = async () => {
      b.clock.advance(DEFAULT_RECOVERY_POLICY.recoverAfterMs + 1);
      const recovery = new StuckObjectRecovery(b.core, { batchSize: 100, onError: (_object, error) => { throw error; } });
      for (let step = await recovery.step(); step.checked > 0; step = await recovery.step());
    };

    test.each([
      ['paused', 'throw_after_accept', 'succeeded', 'invoice_paid'],
      ['paused', 'throw_before_accept', 'failed', 'invoice_payment_failed'],
      ['cancelled', 'throw_after_accept', 'succeeded', 'invoice_paid'],
      ['cancelled', 'throw_before_accept', 'failed', 'invoice_payment_failed'],
    ] as const)('a renewal outstanding when the subscription was %s is settled by a later tick (%s): its payment %s, %s', async (status, fault, paymentStatus, eventType) => {
      const { subscription, periodStart } = await withOutstandingRenewal(fault);
      const renewalPaymentId = await renewalPaymentOf(subscription.id);
      expect(renewalPaymentId).not.toBeNull();
      await expectOk(await on('POST', `/subscriptions/${subscription.id}/pause`, {}));
      if (status === 'cancelled') await expectOk(await on('POST', `/subscriptions/${subscription.id}/cancel`, {}));
      await recoverPayments();
      await renew();
      expect(await renewalPaymentOf(subscription.id)).toBeNull();
      const settled = await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`));
      expect(settled).toMatchObject({ status, payment: { payment_id: renewalPaymentId, status: paymentStatus } });
      expect((await eventsOf(subscription.id))[0]).toBe(eventType);
      // Settled once: another tick changes nothing.
      await renew();
      expect((await eventsOf(subscription.id)).filter((type) => type === eventType)).toHaveLength(1);
      if (status === 'cancelled') {
        expect(settled.invoice?.next_billing_at).toBeNull();
      } else if (paymentStatus === 'failed') {
        // The refused period is due again: the resume bills it.
        expect(settled.invoice?.next_billing_at).toBe(periodStart.toISOString());
        await expectOk(await on('POST', `/subscriptions/${subscription.id}/resume`, {}));
        await renew();
        expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`))).toMatchObject({ status: 'active', payment: { status: 'succeeded' } });
      }
    });

    test.each([
      ['a change to a yearly price', 'throw_before_accept', 'unpaid', 0],
      ['a change to a yearly price', 'throw_after_accept', 'active', 30],
      ['a pause and a resume to invoice at once', 'throw_before_accept', 'unpaid', 0],
    ] as const)('a renewal settled after %s since its claim (%s) dates the period it claimed', async (change, fault, status, nextBillingAfterDays) => {
      const { subscription, periodStart } = await withOutstandingRenewal(fault);
      expect(await renewalPaymentOf(subscription.id)).not.toBeNull();
      if (change === 'a change to a yearly price') {
        // Billed from the next renewal: the period claimed is still a monthly one.
        await expectOk(await on('PUT', `/subscriptions/${subscription.id}/update`, { plan_id: 'plan_basic', item_price_id: 'price_basic_yearly' }));
      } else {
        await expectOk(await on('POST', `/subscriptions/${subscription.id}/pause`, {}));
        await expectOk(await on('POST', `/subscriptions/${subscription.id}/resume`, { charges_handling: 'invoice_immediately' }));
      }
      await recoverPayments();
      await renew();
      expect(await renewalPaymentOf(subscription.id)).toBeNull();
      // Refused: the claimed period is due again from its own start; paid: the next one starts where it ends.
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`))).toMatchObject({
        status,
        invoice: { next_billing_at: new Date(periodStart.getTime() + nextBillingAfterDays * DAY_MS).toISOString() },
      });
    });

    test('a renewal outstanding when a paused subscription is resumed to invoice at once is settled before the next period is charged', async () => {
      const { subscription } = await withOutstandingRenewal('throw_after_accept');
      const renewalPaymentId = await renewalPaymentOf(subscription.id);
      await expectOk(await on('POST', `/subscriptions/${subscription.id}/pause`, {}));
      await expectOk(await on('POST', `/subscriptions/${subscription.id}/resume`, { charges_handling: 'invoice_immediately' }));
      // Its payment still processing, the tick leaves the subscription to a later one: a new claim would lose the renewal.
      await renew();
      expect(await renewalPaymentOf(subscription.id)).toBe(renewalPaymentId);
      expect(await chargesOf(subscription.id)).toBe(2);
      await recoverPayments();
      await renew();
      const paid = (await expectOk<{ data: { event_type: string; object_id: string }[] }>(await apiRequest(b, 'GET', '/events?limit=100'))).data.filter(
        (event) => event.event_type === 'invoice_paid' && event.object_id === subscription.id,
      );
      // The outstanding renewal, then the period the resume invoiced at once.
      expect(paid).toHaveLength(2);
      expect(await chargesOf(subscription.id)).toBe(3);
      expect(await renewalPaymentOf(subscription.id)).toBeNull();
    });

    test('a renewal tick stalled past its lease before storing its payment charges nothing once a later tick made the period unpaid', async () => {
      const subscription = await subscribe();
      b.clock.advance(30 * DAY_MS);
      // The tick stalls once its claim of the period landed; the claim's lease runs out and another tick comes.
      let tickMeanwhile = false;
      const store = withMembers(b.core.store, {
        subscriptions: (target) =>
          withMembers(target.subscriptions, {
            updateSubscriptionIf: (subscriptions) =>
              async (...args: Parameters<typeof subscriptions.updateSubscriptionIf>) => {
                const updated = await subscriptions.updateSubscriptionIf(...args);
                if (!tickMeanwhile && args[1] === subscription.id && updated?.renewalPaymentId != null) {
                  tickMeanwhile = true;
                  b.clock.advance(60_000);
                  await renew();
                }
                return updated;
              },
          }),
      });
      await renewDueSubscriptions({ ...b.core, store }, secretAuth());
      expect(tickMeanwhile).toBe(true);
      // The later tick took the renewal's payment id (a cancelled payment): the stalled tick's charge was refused.
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`))).toMatchObject({ status: 'unpaid', payment: { status: 'cancelled' } });
      expect(await chargesOf(subscription.id)).toBe(1);
    });

    test('a renewal tick stalled past its lease after storing its payment, before charging it, charges nothing once a later tick made the period unpaid', async () => {
      const subscription = await subscribe();
      b.clock.advance(30 * DAY_MS);
      // The tick stalls once the renewal's payment is stored, before its confirm claims it (a charge under a mandate
      // claims in a transaction of its own, with the mandate held); the claim's lease runs out and another tick comes.
      let tickMeanwhile = false;
      const store = withMembers(b.core.store, {
        transactionDurableLater: (target) =>
          async (...args: Parameters<typeof target.transactionDurableLater>) => {
            const stored = (await paymentsOf(subscription.id)).some((payment) => payment.status === 'requires_payment_method');
            if (!tickMeanwhile && stored) {
              tickMeanwhile = true;
              b.clock.advance(60_000);
              await renew();
            }
            return target.transactionDurableLater(...args);
          },
      });
      await renewDueSubscriptions({ ...b.core, store }, secretAuth());
      expect(tickMeanwhile).toBe(true);
      // The later tick cancelled the stored payment first, so the stalled tick could not charge it.
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`))).toMatchObject({ status: 'unpaid', payment: { status: 'cancelled' } });
      expect(await chargesOf(subscription.id)).toBe(1);
    });

    test('an immediate cancel while a renewal tick charges the period is refused, then applies once the renewal settled', async () => {
      const subscription = await subscribe();
      b.clock.advance(30 * DAY_MS);
      // The cancel comes once the tick's claim of the period landed, before the period is charged.
      let cancelMeanwhile: Response | undefined;
      const store = withMembers(b.core.store, {
        subscriptions: (target) =>
          withMembers(target.subscriptions, {
            updateSubscriptionIf: (subscriptions) =>
              async (...args: Parameters<typeof subscriptions.updateSubscriptionIf>) => {
                const updated = await subscriptions.updateSubscriptionIf(...args);
                if (cancelMeanwhile === undefined && args[1] === subscription.id && updated?.renewalPaymentId != null) {
                  cancelMeanwhile = await on('POST', `/subscriptions/${subscription.id}/cancel`, { cancel_option: 'immediately' });
                }
                return updated;
              },
          }),
      });
      await renewDueSubscriptions({ ...b.core, store }, secretAuth());
      const refusal = await expectApiError(cancelMeanwhile!, 'ERR_4111');
      expect(String(refusal['message'])).toContain('renewal payment');
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`))).toMatchObject({ status: 'active' });
      expect(await chargesOf(subscription.id)).toBe(2);
      expect(await expectOk(await on('POST', `/subscriptions/${subscription.id}/cancel`, { cancel_option: 'immediately' }))).toMatchObject({ status: 'cancelled' });
    });

    test('a publishable-key confirm may not charge an existing mandate (payment_details.mandate_id)', async () => {
      const first = await subscribe();
      const created = await createdSubscription();
      const answer = await on('POST', `/subscriptions/${created.id}/confirm`, { client_secret: created.client_secret, payment_details: { mandate_id: first.payment?.['mandate_id'] } }, b.publishableKey);
      await expectApiError(answer, 'ERR_4088', 'payment_details.mandate_id');
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${created.id}`))).toMatchObject({ status: 'created', payment: null });
      expect(await chargesOf(created.id)).toBe(0);
      // The secret key may (the merchant's server charges its customer's mandate).
      expect(await expectOk<SubscriptionResponse>(await on('POST', `/subscriptions/${created.id}/confirm`, { payment_details: { mandate_id: first.payment?.['mandate_id'] } }))).toMatchObject({ status: 'active' });
    });

    test("the subscription's client_secret expires as a payment's does (15 minutes after creation)", async () => {
      const created = await createdSubscription();
      b.clock.advance(DEFAULT_SESSION_EXPIRY_SECONDS * 1000);
      const confirm = (clientSecret: string) => on('POST', `/subscriptions/${created.id}/confirm`, { client_secret: clientSecret, payment_details: UPI('success@upi') }, b.publishableKey);
      // Expiry is told only to the holder of the right secret.
      await expectApiError(await confirm(`${created.id}_secret_${'W'.repeat(20)}`), 'ERR_1005', 'client_secret');
      await expectApiError(await confirm(created.client_secret!), 'ERR_1006', 'client_secret');
      expect(await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${created.id}`))).toMatchObject({ status: 'created', payment: null });
      // The merchant's server is not bound to the browser session.
      expect(await expectOk<SubscriptionResponse>(await on('POST', `/subscriptions/${created.id}/confirm`, { payment_details: UPI('success@upi') }))).toMatchObject({ status: 'active' });
    });

    test('a first invoice that waits for the customer leaves the subscription pending until it is paid', async () => {
      // Created after every other subscription of the suite, so that it comes first in the list below.
      b.clock.advance(1000);
      const subscription = await subscribe('pending@upi');
      expect(subscription).toMatchObject({ status: 'pending', payment: { status: 'requires_customer_action' } });
      b.clock.advance(PENDING_RESOLVE_AFTER_MS);
      const active = await expectOk<SubscriptionResponse>(await on('GET', `/subscriptions/${subscription.id}`));
      expect(active.status).toBe('active');
      expect(active.payment?.['mandate_id']).toMatch(/^man_/);
      const listed = await expectOk<SubscriptionResponse[]>(await on('GET', '/subscriptions/list?limit=100'));
      expect(listed[0]?.id).toBe(subscription.id);
      await expectApiError(await on('GET', '/subscriptions/sub_unknown'), 'ERR_4110');
    });
  });


  describe(`[${engine}] a renewal tick with more outstanding renewals than one listing`, () => {
    // An account of its own, so the tick's listing holds only these: the 100 oldest wait on the rail (their payments
    // processing, their answers lost) for good.
    let c: Harness;
    const vaultKey = randomBytes(32);
    let customer: string;
    let auth: AuthContext;
    const profiled = { 'X-Profile-Id': '' };
    const subscribe = async () =>
      (
        await expectOk<SubscriptionResponse>(
          await apiRequest(c, 'POST', '/subscriptions', {
            body: { item_price_id: 'price_basic_monthly', plan_id: 'plan_basic', customer_id: customer, payment_details: UPI('success@upi') },
            headers: profiled,
          }),
        )
      ).id;
    const outstanding = async () =>
      (await c.db.selectFrom('subscriptions').select('subscription_id').where('renewal_payment_id', 'is not', null).execute()).map((row) => row.subscription_id);
    beforeAll(async () => {
      c = await createHarness(engine, { settings: BILLING_SETTINGS, vaultKey });
      profiled['X-Profile-Id'] = c.boot.profile.profileId;
      customer = (await expectOk<{ customer_id: string }>(await apiRequest(c, 'POST', '/customers', { body: { name: 'Subscriber' } }))).customer_id;
      auth = { accountId: c.boot.account.accountId, mode: 'test', keyId: 'key_test', keyKind: 'secret', account: c.boot.account };
      for (let i = 0; i < 100; i += 1) await subscribe();
      c.clock.advance(30 * DAY_MS);
      c.faults.inject('throw_after_accept', { call: 'authorize', rail: 'upi', times: 1000 });
      try {
        await renewDueSubscriptions(c.core, auth);
      } finally {
        c.faults.clear();
      }
      expect(await outstanding()).toHaveLength(100);
    }, 120_000);
    afterAll(async () => c?.close());

    /**
     * `count` subscriptions whose renewal is outstanding behind the 100 waiting ones: the ticks that claimed their
     * periods died before storing a payment, so they are unpaid once the claims' lease ran out. Answers them and the
     * start of their period.
     */
    const withLateRenewals = async (count: number) => {
      const lateIds: string[] = [];
      for (let i = 0; i < count; i += 1) lateIds.push(await subscribe());
      c.clock.advance(30 * DAY_MS);
      const periodStart = c.clock.now();
      // Each of these ticks dies once its first claim landed.
      const dying = withMembers(c.core.store, {
        subscriptions: (target) =>
          withMembers(target.subscriptions, {
            updateSubscriptionIf: (subscriptions) =>
              async (...args: Parameters<typeof subscriptions.updateSubscriptionIf>) => {
                const updated = await subscriptions.updateSubscriptionIf(...args);
                if (updated !== undefined && args[3].renewalPaymentId != null && lateIds.includes(args[1])) throw new Error('the tick died');
                return updated;
              },
          }),
      });
      for (let i = 0; i < count; i += 1) await expect(renewDueSubscriptions({ ...c.core, store: dying }, auth)).rejects.toThrow('the tick died');
      c.clock.advance(IDEMPOTENCY_LEASE_MS + 1);
      expect(await outstanding()).toHaveLength(100 + count);
      return { lateIds, periodStart };
    };

    test('settles the renewals behind a first page that cannot settle', async () => {
      const { lateIds, periodStart } = await withLateRenewals(3);
      expect(await expectOk(await apiRequest(c, 'POST', '/simulator/subscriptions/renew', { body: {}, headers: profiled }))).toMatchObject({ renewed: 0, failed: 3 });
      for (const id of lateIds) {
        expect(await expectOk<SubscriptionResponse>(await apiRequest(c, 'GET', `/subscriptions/${id}`, { headers: profiled }))).toMatchObject({
          status: 'unpaid',
          payment: { status: 'cancelled' },
          invoice: { next_billing_at: periodStart.toISOString() },
        });
      }
      // The first page still waits on the rail.
      expect(await outstanding()).toHaveLength(100);
    }, 60_000);

    test('charges a due subscription behind a first page of due ones whose renewal is still outstanding', async () => {
      const id = await subscribe();
      c.clock.advance(30 * DAY_MS);
      // The 100 waiting ones are due again too, and come first: each is left until its renewal settles.
      expect(await expectOk(await apiRequest(c, 'POST', '/simulator/subscriptions/renew', { body: {}, headers: profiled }))).toMatchObject({ renewed: 1, failed: 0 });
      expect(await expectOk<SubscriptionResponse>(await apiRequest(c, 'GET', `/subscriptions/${id}`, { headers: profiled }))).toMatchObject({
        status: 'active',
        payment: { status: 'succeeded' },
        invoice: { next_billing_at: new Date(c.clock.now().getTime() + 30 * DAY_MS).toISOString() },
      });
      expect(await outstanding()).toHaveLength(100);
    }, 60_000);

    test('looks at a bounded number a tick, the next tick going on after the last, then from the oldest again', async () => {
      const { lateIds } = await withLateRenewals(3);
      const limits = { batch: 10, perTick: 40 };
      // The 1st to 40th, then the 41st to 80th: all waiting on the rail.
      for (let tick = 0; tick < 2; tick += 1) expect(await renewDueSubscriptions(c.core, auth, limits)).toMatchObject({ failed: 0 });
      // The 81st to 103rd: the late ones are settled, and this tick reached the end.
      expect(await renewDueSubscriptions(c.core, auth, limits)).toMatchObject({ failed: 3 });
      expect((await outstanding()).filter((id) => lateIds.includes(id))).toEqual([]);
      const cursors: unknown[] = [];
      const counting = withMembers(c.core.store, {
        subscriptions: (target) =>
          withMembers(target.subscriptions, {
            listOutstandingRenewals: (subscriptions) =>
              async (...args: Parameters<typeof subscriptions.listOutstandingRenewals>) => {
                cursors.push(args[2]?.subscriptionId);
                return subscriptions.listOutstandingRenewals(...args);
              },
          }),
      });
      await renewDueSubscriptions({ ...c.core, store: counting }, auth, limits);
      // From the oldest again, four listings of ten.
      expect(cursors).toHaveLength(4);
      expect(cursors[0]).toBeUndefined();
      expect(new Set(cursors.slice(1)).size).toBe(3);
    }, 60_000);

    test("each composed core resumes its own ticks: another instance's tick in the process neither resumes nor moves them", async () => {
      const second = await createSecondInstance(c, { settings: BILLING_SETTINGS, vaultKey });
      try {
        const limits = { batch: 10, perTick: 40 };
        /** The cursor of each listing of outstanding renewals through the core's store, and the last row listed. */
        const watched = (core: Harness['core']) => {
          const seen = { cursors: [] as (string | undefined)[], last: undefined as string | undefined };
          const store = withMembers(core.store, {
            subscriptions: (target) =>
              withMembers(target.subscriptions, {
                listOutstandingRenewals: (subscriptions) =>
                  async (...args: Parameters<typeof subscriptions.listOutstandingRenewals>) => {
                    seen.cursors.push(args[2]?.subscriptionId);
                    const listed = await subscriptions.listOutstandingRenewals(...args);
                    seen.last = listed[listed.length - 1]?.subscriptionId ?? seen.last;
                    return listed;
                  },
              }),
          });
          return { deps: { ...core, store }, seen };
        };
        // A tick to the end: this core's next one starts from the oldest.
        await renewDueSubscriptions(c.core, auth);
        const first = watched(c.core);
        await renewDueSubscriptions(first.deps, auth, limits);
        expect(first.seen.cursors[0]).toBeUndefined();
        expect(first.seen.cursors).toHaveLength(4);
        const other = watched(second.core);
        await renewDueSubscriptions(other.deps, auth, limits);
        expect(other.seen.cursors[0]).toBeUndefined();
        const again = watched(c.core);
        await renewDueSubscriptions(again.deps, auth, limits);
        expect(again.seen.cursors[0]).toBe(first.seen.last);
      } finally {
        await second.close();
      }
    }, 60_000);
  });
});
