/**
 * Subscriptions today (spec "not live today" 4), on SQLite and PostgreSQL: no billing processor is connected, so
 * every creation is refused for the missing billing_processor_id (naming it), nothing exists to read or change, and
 * every call needs the X-Profile-Id header of one of the account's business profiles.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiRequest, expectApiError, expectOk } from '../../../test-support/api-assertions';
import { forEachEngine } from '../../../test-support/engines';
import { createHarness, type Harness } from '../../../test-support/harness';

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
});
