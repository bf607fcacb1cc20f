/**
 * API suite of the payments operations (issue 3): list, update, retrieve options, cancel, confirm session rules,
 * update_metadata, eligibility, poll status, recurring today-behaviour and the manual-capture family. Runs on SQLite
 * and PostgreSQL (forEachEngine).
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { ErrorCode } from '../../../../../protocol/errors';
import type { PaymentResponse } from '../../../../../protocol/api/payments';
import type { AccountSettings } from '../../../kernel/account-settings-types';
import { PENDING_RESOLVE_AFTER_MS } from '../../../rails/simulator/upi-simulator';
import type { Engine } from '../../../storage/database';
import { EMBEDDED_REFUNDS_LIMIT } from '../../../core/refunds/list-refunds-of-payment';
import { apiRequest, type ApiRequestOptions, expectApiError, expectOk } from '../../../test-support/api-assertions';
import { createHarness, type Harness } from '../../../test-support/harness';
import { forEachEngine } from '../../../test-support/engines';

type Json = Record<string, unknown>;

const UPI = (vpa: string) => ({ upi: { upi_collect: { vpa_id: vpa } } });

/** The spec's "Payment: response fields", each present on every payment response. */
const SPEC_RESPONSE_FIELDS = [
  'payment_id', 'status', 'amount', 'net_amount', 'shipping_cost', 'amount_capturable', 'amount_received', 'client_secret',
  'created', 'modified_at', 'expires_on', 'currency', 'customer_id', 'customer', 'description', 'mandate_id',
  'setup_future_usage', 'capture_method', 'payment_method', 'return_url', 'next_action', 'error_code', 'error_message',
  'error_reason', 'payment_method_type', 'metadata', 'reference_id', 'payment_link', 'payment_method_id',
  'merchant_order_reference_id', 'order_tax_amount',
];

forEachEngine('Payment operations API', (engine) => {
  let h: Harness;
  let counter = 0;
  const unique = (prefix: string) => `${prefix}_${engine}_${(counter += 1)}`;

  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => {
    await h?.close();
  });

  const request = (method: string, path: string, options: ApiRequestOptions = {}) => apiRequest(h, method, path, options);
  const ok = <T = PaymentResponse>(response: Response): Promise<T> => expectOk<T>(response);
  const expectError = expectApiError;
  const create = async (body: Json = {}) => ok(await request('POST', '/payments', { body: { amount: 10_000, currency: 'INR', ...body } }));
  const confirmed = (vpa: string, body: Json = {}) => create({ confirm: true, payment_method_data: UPI(vpa), ...body });
  const retrieve = (id: string, query = '') => request('GET', `/payments/${id}${query}`);
  const scope = () => ({ accountId: h.boot.account.accountId, mode: 'test' as const });
  const withSettings = async (change: (settings: AccountSettings) => AccountSettings, work: () => Promise<void>) => {
    const original = h.boot.account.settings;
    await h.store.accounts.updateAccountSettings(h.boot.account.accountId, change(original));
    try {
      await work();
    } finally {
      await h.store.accounts.updateAccountSettings(h.boot.account.accountId, original);
    }
  };
  const withUpiCapabilities = (capabilities: Partial<AccountSettings['rails'][number]['capabilities']['test']>) => (settings: AccountSettings) => ({
    ...settings,
    rails: settings.rails.map((rail) =>
      rail.rail === 'upi' ? { ...rail, capabilities: { ...rail.capabilities, test: { ...rail.capabilities.test, ...capabilities } } } : rail,
    ),
  });

  describe(`[${engine}] what Hyperswitch clients read back`, () => {
    test('setup_future_usage is on_session when omitted (the spec default), as sent otherwise', async () => {
      expect((await create()).setup_future_usage).toBe('on_session');
      expect((await create({ setup_future_usage: 'off_session' })).setup_future_usage).toBe('off_session');
    });

    test('billing, shipping and payment_method_data.billing come back as sent, on create and retrieve', async () => {
      const billing = { address: { line1: '1 MG Road', city: 'Bengaluru', country: 'IN' }, email: 'a@example.com' };
      const shipping = { address: { line1: '2 Park St', city: 'Kolkata', country: 'IN' } };
      const pmBilling = { address: { first_name: 'Asha', country: 'IN' } };
      const created = await create({ billing, shipping, payment_method_data: { ...UPI('success@upi'), billing: pmBilling } });
      for (const payment of [created, await ok(await request('GET', `/payments/${created.payment_id}`))]) {
        expect(payment).toMatchObject({ billing, shipping, payment_method_data: { billing: pmBilling } });
      }
      const plain = await create();
      expect(plain).toMatchObject({ billing: null, shipping: null, payment_method_data: null });
    });

    test('retrieve lists the payment refunds once it has any, oldest first', async () => {
      const payment = await confirmed('success@upi');
      expect(await ok(await request('GET', `/payments/${payment.payment_id}`))).not.toHaveProperty('refunds');
      const first = await ok<{ refund_id: string }>(await request('POST', '/refunds', { body: { payment_id: payment.payment_id, amount: 1_000 } }));
      h.clock.advance(1_000);
      const second = await ok<{ refund_id: string }>(await request('POST', '/refunds', { body: { payment_id: payment.payment_id, amount: 2_000 } }));
      const retrieved = await ok<PaymentResponse & { refunds: { refund_id: string; amount: number }[] }>(await request('GET', `/payments/${payment.payment_id}`));
      expect(retrieved.refunds.map((refund) => [refund.refund_id, refund.amount])).toEqual([
        [first.refund_id, 1_000],
        [second.refund_id, 2_000],
      ]);
    });

    test('retrieve embeds at most EMBEDDED_REFUNDS_LIMIT refunds: the latest, oldest first (the refund list has the rest)', async () => {
      const payment = await confirmed('success@upi', { amount: 1_000_000 });
      const stored = await h.store.payments.findPayment(scope(), payment.payment_id);
      const count = EMBEDDED_REFUNDS_LIMIT + 3;
      const start = h.clock.now().getTime();
      for (let n = 0; n < count; n += 1) {
        await h.store.refunds.insertRefund({
          ...scope(),
          refundId: `ref_many_${engine}_${String(n).padStart(4, '0')}`,
          paymentId: payment.payment_id,
          profileId: stored!.profileId,
          status: 'succeeded',
          amount: 100,
          currency: 'INR',
          reason: null,
          metadata: null,
          refundType: 'instant',
          rail: 'upi',
          connector: null,
          railReference: null,
          errorCode: null,
          errorMessage: null,
          unifiedCode: null,
          unifiedMessage: null,
          requestFingerprint: 'many',
          createdAt: new Date(start + n * 1_000),
          updatedAt: new Date(start + n * 1_000),
        });
      }
      const retrieved = await ok<PaymentResponse & { refunds: { refund_id: string }[] }>(await request('GET', `/payments/${payment.payment_id}`));
      expect(retrieved.refunds.map((refund) => refund.refund_id)).toEqual(
        Array.from({ length: EMBEDDED_REFUNDS_LIMIT }, (_, n) => `ref_many_${engine}_${String(n + 3).padStart(4, '0')}`),
      );
      const listed = await ok<{ total_count: number }>(
        await request('POST', '/refunds/list', { body: { payment_id: payment.payment_id, start_time: new Date(start).toISOString(), end_time: new Date(start + count * 1_000).toISOString() } }),
      );
      expect(listed.total_count).toBe(count);
    });
  });

  describe(`[${engine}] list`, () => {
    test('newest first, ties on created broken by payment_id; cursors page through without gaps or repeats', async () => {
      const customer = unique('cus_list');
      // Three payments at the same instant, then two later ones.
      const same = [await create({ customer_id: customer }), await create({ customer_id: customer }), await create({ customer_id: customer })];
      h.clock.advance(1000);
      const later = [await create({ customer_id: customer })];
      h.clock.advance(1000);
      later.push(await create({ customer_id: customer }));
      const all = await ok<{ size: number; data: PaymentResponse[] }>(await request('GET', `/payments/list?customer_id=${customer}`));
      expect(all.size).toBe(5);
      const expected = all.data.map((p) => p.payment_id);
      expect(expected.slice(0, 2)).toEqual([later[1]!.payment_id, later[0]!.payment_id]);
      // The three with equal created come in payment_id order (descending, in the database's collation).
      expect([...expected.slice(2)].sort()).toEqual(same.map((p) => p.payment_id).sort());
      if (engine === 'sqlite') expect(expected.slice(2)).toEqual(same.map((p) => p.payment_id).sort().reverse());
      // The same order on every call.
      expect((await ok<{ data: PaymentResponse[] }>(await request('GET', `/payments/list?customer_id=${customer}`))).data.map((p) => p.payment_id)).toEqual(expected);

      const seen: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await ok<{ size: number; data: PaymentResponse[] }>(
          await request('GET', `/payments/list?customer_id=${customer}&limit=2${cursor ? `&starting_after=${cursor}` : ''}`),
        );
        expect(page.size).toBe(page.data.length);
        if (page.size === 0) break;
        seen.push(...page.data.map((p) => p.payment_id));
        cursor = page.data[page.data.length - 1]!.payment_id;
      }
      expect(seen).toEqual(expected);

      const before = await ok<{ size: number; data: PaymentResponse[] }>(
        await request('GET', `/payments/list?customer_id=${customer}&limit=2&ending_before=${expected[3]}`),
      );
      expect(before.data.map((p) => p.payment_id)).toEqual([expected[1], expected[2]]);
    });

    test('limit defaults to 10 and accepts 100; created and created.lt/gt/lte/gte filter by RFC 3339 instants', async () => {
      const customer = unique('cus_limit');
      h.clock.advance(60_000);
      const start = h.clock.now();
      const payments: PaymentResponse[] = [];
      for (let i = 0; i < 12; i += 1) {
        payments.push(await create({ customer_id: customer }));
        h.clock.advance(1000);
      }
      const list = async (query: string) =>
        (await ok<{ size: number; data: PaymentResponse[] }>(await request('GET', `/payments/list?customer_id=${customer}${query}`))).data.map(
          (p) => p.payment_id,
        );
      expect(await list('')).toHaveLength(10);
      expect(await list('&limit=100')).toHaveLength(12);
      const at = (i: number) => new Date(start.getTime() + i * 1000).toISOString();
      expect(await list(`&created=${at(3)}`)).toEqual([payments[3]!.payment_id]);
      expect(await list(`&created.gte=${at(10)}`)).toEqual([payments[11]!.payment_id, payments[10]!.payment_id]);
      expect(await list(`&created.gt=${at(10)}`)).toEqual([payments[11]!.payment_id]);
      expect(await list(`&created.lt=${at(1)}`)).toEqual([payments[0]!.payment_id]);
      expect(await list(`&created.lte=${at(1)}`)).toEqual([payments[1]!.payment_id, payments[0]!.payment_id]);
      // An offset other than Z names the same instant.
      const shifted = new Date(start.getTime() + 2000).toISOString().replace('Z', '+00:00');
      expect(await list(`&created.gte=${encodeURIComponent(shifted)}&created.lte=${encodeURIComponent(shifted)}`)).toEqual([payments[2]!.payment_id]);
    });

    test.each(['0', '101', 'abc', '-1', '2.5'])('limit=%s: ERR_2003 naming limit', async (limit) => {
      await expectError(await request('GET', `/payments/list?limit=${limit}`), 'ERR_2003', 'limit');
    });

    test.each(['created', 'created.lt', 'created.gt', 'created.lte', 'created.gte'])('%s that is not RFC 3339: ERR_2003', async (field) => {
      await expectError(await request('GET', `/payments/list?${field}=yesterday`), 'ERR_2003', field);
    });

    test('a cursor naming no payment: ERR_4013; both cursors at once: ERR_2003', async () => {
      await expectError(await request('GET', '/payments/list?starting_after=pay_nope'), 'ERR_4013', 'starting_after');
      await expectError(await request('GET', '/payments/list?ending_before=pay_nope'), 'ERR_4013', 'ending_before');
      await expectError(await request('GET', '/payments/list?starting_after=a&ending_before=b'), 'ERR_2003', 'ending_before');
    });

    test('secret key only: a publishable key gets ERR_1003; an unknown query parameter ERR_2004', async () => {
      await expectError(await request('GET', '/payments/list', { key: h.publishableKey }), 'ERR_1003');
      await expectError(await request('GET', '/payments/list?colour=red'), 'ERR_2004', 'colour');
    });

    test('every listed payment carries every response field', async () => {
      const customer = unique('cus_fields');
      await create({ customer_id: customer });
      const list = await ok<{ data: Json[] }>(await request('GET', `/payments/list?customer_id=${customer}`));
      for (const field of SPEC_RESPONSE_FIELDS) expect(list.data[0]).toHaveProperty(field);
    });
  });

  describe(`[${engine}] update`, () => {
    test('secret key: changes the payment; retrieve shows the stored values', async () => {
      const payment = await create({ metadata: { a: '1' } });
      const updated = await ok(
        await request('POST', `/payments/${payment.payment_id}`, {
          body: {
            amount: 20_000,
            currency: 'INR',
            description: 'updated',
            customer_id: 'cus_upd',
            shipping_cost: 300,
            order_tax_amount: 200,
            metadata: { b: '2' },
            merchant_order_reference_id: 'ord-9',
            return_url: 'https://shop.example.com/back',
            setup_future_usage: 'on_session',
          },
        }),
      );
      expect(updated).toMatchObject({
        status: 'requires_payment_method',
        amount: 20_000,
        amount_capturable: 20_000,
        net_amount: 20_500,
        description: 'updated',
        customer_id: 'cus_upd',
        customer: { id: 'cus_upd' },
        metadata: { b: '2' },
        merchant_order_reference_id: 'ord-9',
        return_url: 'https://shop.example.com/back',
      });
      for (const field of SPEC_RESPONSE_FIELDS) expect(updated).toHaveProperty(field);
      expect(await ok(await retrieve(payment.payment_id))).toMatchObject({ amount: 20_000, metadata: { b: '2' }, description: 'updated' });
    });

    test('every field of the request table except the create-only ones is accepted', async () => {
      const payment = await create();
      const body = {
        amount: 12_000, currency: 'INR', order_tax_amount: 100, amount_to_capture: 12_000, shipping_cost: 500,
        payment_id: payment.payment_id, connector: ['upi_simulator'], capture_method: 'automatic', authentication_type: 'no_three_ds',
        confirm: false, customer_id: 'cus_all', off_session: false, description: 'All fields', return_url: 'https://shop.example.com/r',
        setup_future_usage: 'on_session', payment_method_data: UPI('success@upi'), payment_method: 'upi', payment_method_type: 'upi_collect',
        payment_token: 'token_1', payment_experience: 'display_wait_screen', statement_descriptor_name: 'SHOP',
        statement_descriptor_suffix: 'ORDER', customer_acceptance: { acceptance_type: 'online', online: { user_agent: 'checkout' } }, allowed_payment_method_types: ['upi_collect'],
        metadata: { order: '42' }, payment_link: false, payment_link_config_id: 'plc_1', payment_type: 'normal',
        request_incremental_authorization: false, session_expiry: 900, frm_metadata: { score: 1 },
        request_external_three_ds_authentication: false, request_extended_authorization: false, merchant_order_reference_id: 'order-42',
        skip_external_tax_calculation: true, psd2_sca_exemption_type: 'low_value', force_3ds_challenge: false, threeds_method_comp_ind: 'N',
        is_iframe_redirection_enabled: false, all_keys_required: false, tax_status: 'taxable', discount_amount: 0, shipping_amount_tax: 0,
        duty_amount: 0, order_date: '2025-01-01T10:00:00Z', enable_partial_authorization: false, is_stored_credential: false,
        mit_category: 'unscheduled', tokenization: 'skip_psp', retry_action: 'manual_retry', billing: { address: { city: 'Pune' } },
        shipping: { address: { city: 'Pune' } }, order_details: [{ product_name: 'Tea', quantity: 2, amount: 6000 }],
        browser_info: { user_agent: 'test' },
      };
      const updated = await ok(await request('POST', `/payments/${payment.payment_id}`, { body }));
      expect(updated).toMatchObject({ status: 'requires_confirmation', amount: 12_000, net_amount: 12_600, payment_method: 'upi', payment_method_type: 'upi_collect' });
    });

    test.each([
      ['business_country', 'IN'],
      ['business_label', 'x'],
      ['profile_id', 'pro_x'],
      ['enable_overcapture', true],
      ['mandate_id', 'man_x'],
    ])('create-only field %s is refused on update: ERR_2003 naming it', async (field, value) => {
      const payment = await create();
      await expectError(await request('POST', `/payments/${payment.payment_id}`, { body: { [field]: value } }), 'ERR_2003', field);
    });

    test.each<[Json, string]>([
      [{ amount: -1 }, 'amount'],
      [{ currency: 'XXX' }, 'currency'],
      [{ customer_id: 'c'.repeat(65) }, 'customer_id'],
      [{ return_url: 'ftp://x' }, 'return_url'],
      [{ session_expiry: -1 }, 'session_expiry'],
      [{ merchant_order_reference_id: 'r'.repeat(256) }, 'merchant_order_reference_id'],
      [{ metadata: { note: 'v'.repeat(501) } }, 'metadata.note'],
      [{ amount_to_capture: 10_001 }, 'amount_to_capture'],
      [{ amount_to_capture: 5_000 }, 'amount_to_capture'],
      [{ statement_descriptor_name: '12345' }, 'statement_descriptor_name'],
      [{ statement_descriptor_name: 'A'.repeat(23) }, 'statement_descriptor_name'],
      [{ statement_descriptor_name: 'SHOP NAME', statement_descriptor_suffix: 'ORDER 123456789' }, 'statement_descriptor_suffix'],
      [{ request_extended_authorization: true }, 'request_extended_authorization'],
      [{ order_details: [{ product_name: 'a', quantity: 1, amount: 1 }] }, 'order_details'],
      [{ payment_id: 'another_one' }, 'payment_id'],
      [{ payment_method_data: UPI('success@upi'), payment_method: 'crypto' }, 'payment_method'],
    ])('an invalid value on update #%$: ERR_2003 naming the field', async (body, field) => {
      const payment = await create();
      await expectError(await request('POST', `/payments/${payment.payment_id}`, { body }), 'ERR_2003', field);
    });

    test('the request-table rules hold on the values after the update', async () => {
      const payment = await create({ order_details: [{ product_name: 'Tea', quantity: 1, amount: 10_000 }], statement_descriptor_name: 'SHOP NAME' });
      // Changing the amount alone breaks the stored order_details sum.
      await expectError(await request('POST', `/payments/${payment.payment_id}`, { body: { amount: 9000 } }), 'ERR_2003', 'order_details');
      // The suffix is measured together with the stored name.
      await expectError(
        await request('POST', `/payments/${payment.payment_id}`, { body: { statement_descriptor_suffix: 'ABCDEFGHIJKLMN' } }),
        'ERR_2003',
        'statement_descriptor_suffix',
      );
      // Extended authorization with a manual capture method is accepted.
      const manual = await ok(await request('POST', `/payments/${payment.payment_id}`, { body: { capture_method: 'manual', request_extended_authorization: true } }));
      expect(manual.capture_method).toBe('manual');
      await ok(
        await request('POST', `/payments/${payment.payment_id}`, {
          body: { amount: 9000, order_details: [{ product_name: 'Tea', quantity: 3, amount: 3000 }] },
        }),
      );
    });

    test('statement descriptor rules on create', async () => {
      await expectError(await request('POST', '/payments', { body: { amount: 1, currency: 'INR', statement_descriptor_name: '1234' } }), 'ERR_2003', 'statement_descriptor_name');
      await expectError(
        await request('POST', '/payments', { body: { amount: 1, currency: 'INR', statement_descriptor_name: 'SHOP', statement_descriptor_suffix: 'S'.repeat(19) } }),
        'ERR_2003',
        'statement_descriptor_suffix',
      );
      await create({ statement_descriptor_name: 'SHOP', statement_descriptor_suffix: 'S'.repeat(18) });
    });

    test('only in requires_payment_method and requires_confirmation: else ERR_4003', async () => {
      const succeeded = await confirmed('success@upi');
      await expectError(await request('POST', `/payments/${succeeded.payment_id}`, { body: { description: 'x' } }), 'ERR_4003');
      const failed = await confirmed('failure@upi');
      await expectError(await request('POST', `/payments/${failed.payment_id}`, { body: { description: 'x' } }), 'ERR_4003');
      const waiting = await confirmed('pending@upi');
      await expectError(await request('POST', `/payments/${waiting.payment_id}`, { body: { description: 'x' } }), 'ERR_4003');
    });

    test('an unknown payment: 404 ERR_4001', async () => {
      await expectError(await request('POST', '/payments/pay_nope_update', { body: { description: 'x' } }), 'ERR_4001');
    });

    test('publishable key: needs the client_secret (ERR_2001, ERR_1005); may set the payment method, not the amount', async () => {
      const payment = await create();
      const path = `/payments/${payment.payment_id}`;
      await expectError(await request('POST', path, { key: h.publishableKey, body: { payment_method_data: UPI('success@upi') } }), 'ERR_2001', 'client_secret');
      const other = await create();
      await expectError(
        await request('POST', path, { key: h.publishableKey, body: { client_secret: other.client_secret, payment_method_data: UPI('success@upi') } }),
        'ERR_1005',
      );
      await expectError(
        await request('POST', path, { key: h.publishableKey, body: { client_secret: payment.client_secret, amount: 1 } }),
        'ERR_2003',
        'amount',
      );
      const updated = await ok(
        await request('POST', path, { key: h.publishableKey, body: { client_secret: payment.client_secret, payment_method_data: UPI('success@upi') } }),
      );
      expect(updated).toMatchObject({ status: 'requires_confirmation', amount: 10_000, payment_method: 'upi' });
      // A payment_method that disagrees with the stored method data is refused.
      await expectError(await request('POST', path, { body: { payment_method: 'crypto' } }), 'ERR_2003', 'payment_method');
    });

    test('secret key with a client_secret, its own or another: refused as on confirm (ERR_1007), nothing changed', async () => {
      const payment = await create();
      const other = await create();
      for (const clientSecret of [other.client_secret, payment.client_secret]) {
        await expectError(
          await request('POST', `/payments/${payment.payment_id}`, { body: { client_secret: clientSecret, description: 'changed' } }),
          'ERR_1007',
          'client_secret',
        );
      }
      expect((await ok(await request('GET', `/payments/${payment.payment_id}`))).description).toBe(payment.description);
    });

    test('confirm: true confirms right after the update', async () => {
      const payment = await create();
      const updated = await ok(await request('POST', `/payments/${payment.payment_id}`, { body: { payment_method_data: UPI('success@upi'), confirm: true } }));
      expect(updated).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
    });

    test.each<[string, Json, Json, ErrorCode, string?]>([
      ['no payment_method_data to confirm with', {}, { description: 'changed', amount: 20_000 }, 'ERR_4005', 'payment_method_data'],
      ['an off-session charge without a mandate', { payment_method_data: UPI('success@upi') }, { description: 'changed', off_session: true }, 'ERR_4088', 'off_session'],
      ['a currency no rail of the account takes for the method', { payment_method_data: UPI('success@upi') }, { description: 'changed', currency: 'USD' }, 'ERR_4004', 'payment_method_data'],
    ])('confirm: true refused (%s): the update is not kept either', async (_name, created, update, code, field) => {
      const payment = await create({ description: 'as created', ...created });
      const customerId = unique('cus_update_confirm');
      await expectError(
        await request('POST', `/payments/${payment.payment_id}`, { body: { ...update, customer_id: customerId, confirm: true } }),
        code,
        field,
      );
      const after = await ok(await retrieve(payment.payment_id));
      expect(after).toMatchObject({ status: payment.status, description: 'as created', amount: 10_000, currency: 'INR', customer_id: null });
      expect(after.modified_at).toBe(payment.modified_at);
      // Nor is the customer the update named created.
      await expectError(await request('GET', `/customers/${customerId}`), 'ERR_4006');
      // The payment confirms as it was.
      if (created['payment_method_data'] !== undefined) {
        expect(await ok(await request('POST', `/payments/${payment.payment_id}/confirm`, { body: {} }))).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
      }
    });

    test('confirm: true with a customer_id naming no customer creates it with the confirmed payment', async () => {
      const payment = await create();
      const customerId = unique('cus_update_confirm_ok');
      const updated = await ok(
        await request('POST', `/payments/${payment.payment_id}`, {
          body: { customer_id: customerId, customer: { name: 'Asha' }, description: 'changed', payment_method_data: UPI('success@upi'), confirm: true },
        }),
      );
      expect(updated).toMatchObject({ status: 'succeeded', customer_id: customerId, description: 'changed', amount_received: 10_000 });
      expect(await ok<Json>(await request('GET', `/customers/${customerId}`))).toMatchObject({ customer_id: customerId, name: 'Asha' });
    });

    test('session_expiry on update moves expires_on', async () => {
      const payment = await create();
      const updated = await ok(await request('POST', `/payments/${payment.payment_id}`, { body: { session_expiry: 120 } }));
      expect(new Date(updated.expires_on).getTime()).toBe(h.clock.now().getTime() + 120_000);
    });

    test('a raw card number is refused on update too (ERR_2029)', async () => {
      const payment = await create();
      await expectError(
        await request('POST', `/payments/${payment.payment_id}`, { body: { payment_method_data: { card: { card_number: '4242424242424242' } } } }),
        'ERR_2029',
      );
    });
  });

  describe(`[${engine}] retrieve options`, () => {
    test('the store numbers each new attempt after the ones before it (count + 1, id <payment_id>_<number>)', async () => {
      const payment = await confirmed('success@upi');
      const now = new Date();
      const second = await h.store.transaction((tx) =>
        tx.attempts.insertNextAttempt({
          ...scope(),
          paymentId: payment.payment_id,
          status: 'pending',
          amount: 10_000,
          currency: 'INR',
          paymentMethod: 'upi',
          paymentMethodType: 'upi_collect',
          captureMethod: 'automatic',
          connector: null,
          referenceId: null,
          errorCode: null,
          errorMessage: null,
          errorReason: null,
          pollId: null,
          cancellationReason: null,
          createdAt: now,
          updatedAt: now,
        }),
      );
      expect(second).toMatchObject({ attemptId: `${payment.payment_id}_2`, attemptNumber: 2, status: 'pending' });
      const attempts = await h.store.attempts.listAttempts(scope(), payment.payment_id);
      expect(attempts.map((attempt) => [attempt.attemptId, attempt.attemptNumber])).toEqual([
        [`${payment.payment_id}_1`, 1],
        [`${payment.payment_id}_2`, 2],
      ]);
    });

    test('expand_attempts: one attempt per confirm with its outcome', async () => {
      const payment = await confirmed('success@upi');
      const plain = await ok<Json>(await retrieve(payment.payment_id));
      expect(plain).not.toHaveProperty('attempts');
      const expanded = await ok(await retrieve(payment.payment_id, '?expand_attempts=true'));
      expect(expanded.attempts).toEqual([
        expect.objectContaining({
          attempt_id: `${payment.payment_id}_1`,
          status: 'charged',
          amount: 10_000,
          payment_method: 'upi',
          payment_method_type: 'upi_collect',
          error_code: null,
          error_message: null,
          created_at: expect.any(String),
        }),
      ]);
      const failed = await confirmed('failure@upi');
      const failedView = await ok(await retrieve(failed.payment_id, '?expand_attempts=true'));
      expect(failedView.attempts).toEqual([
        expect.objectContaining({ status: 'failure', error_code: 'DC_06', error_message: 'Payment is not successful' }),
      ]);
      const unconfirmed = await create();
      expect((await ok(await retrieve(unconfirmed.payment_id, '?expand_attempts=true'))).attempts).toEqual([]);
    });

    test('expand_captures: automatic capture makes one capture per charged attempt', async () => {
      const payment = await confirmed('success@upi');
      const view = await ok(await retrieve(payment.payment_id, '?expand_captures=true'));
      expect(view.captures).toEqual([
        expect.objectContaining({ status: 'charged', amount: 10_000, currency: 'INR', authorized_attempt_id: `${payment.payment_id}_1`, capture_sequence: 1 }),
      ]);
      expect(view).not.toHaveProperty('attempts');
      const failed = await confirmed('failure@upi');
      expect((await ok(await retrieve(failed.payment_id, '?expand_captures=true'))).captures).toEqual([]);
    });

    test('force_sync asks the rail; without it a settled payment is not synced', async () => {
      const payment = await confirmed('success@upi');
      const adapter = h.rails.adapterFor('test', 'upi')!;
      const spy = vi.spyOn(adapter, 'sync');
      try {
        await ok(await retrieve(payment.payment_id));
        expect(spy).not.toHaveBeenCalled();
        const synced = await ok(await retrieve(payment.payment_id, '?force_sync=true'));
        expect(spy).toHaveBeenCalledTimes(1);
        expect(synced.status).toBe('succeeded');
      } finally {
        spy.mockRestore();
      }
    });

    test('a publishable key asks the rail about a payment at most once a second; a secret key every time', async () => {
      const payment = await confirmed('success@upi');
      const waiting = await confirmed('pending@upi');
      const spy = vi.spyOn(h.rails.adapterFor('test', 'upi')!, 'sync');
      const asClient = (target: { payment_id: string; client_secret?: string | null }, query = '') =>
        request('GET', `/payments/${target.payment_id}?client_secret=${target.client_secret}${query}`, { key: h.publishableKey });
      try {
        for (let i = 0; i < 5; i += 1) expect((await ok(await asClient(payment, '&force_sync=true'))).status).toBe('succeeded');
        expect(spy).toHaveBeenCalledTimes(1);
        for (let i = 0; i < 3; i += 1) await ok(await retrieve(payment.payment_id, '?force_sync=true'));
        expect(spy).toHaveBeenCalledTimes(4);
        // A waiting payment's reads ask too, and its poll: one ask a second between them.
        await ok(await asClient(waiting));
        await ok(await asClient(waiting, '&force_sync=true'));
        expect((await ok(await request('GET', `/poll/status/poll_${waiting.payment_id}?client_secret=${waiting.client_secret}`, { key: h.publishableKey }))).status).toBe('pending');
        expect(spy).toHaveBeenCalledTimes(5);
        h.clock.advance(PENDING_RESOLVE_AFTER_MS);
        expect((await ok(await asClient(waiting))).status).toBe('succeeded');
        await ok(await asClient(payment, '&force_sync=true'));
        expect(spy).toHaveBeenCalledTimes(7);
      } finally {
        spy.mockRestore();
      }
    });

    test('force_sync resolves a waiting payment once the rail has an answer', async () => {
      const payment = await confirmed('pending@upi');
      expect((await ok(await retrieve(payment.payment_id, '?force_sync=true'))).status).toBe('requires_customer_action');
      h.clock.advance(PENDING_RESOLVE_AFTER_MS);
      expect((await ok(await retrieve(payment.payment_id, '?force_sync=true'))).status).toBe('succeeded');
    });

    test('customer object on retrieve; every response field on every payment response', async () => {
      const payment = await create({ customer_id: 'cus_obj', customer: { name: 'Asha', email: 'asha@example.com' } });
      const view = await ok(await retrieve(payment.payment_id));
      expect(view.customer).toEqual({ id: 'cus_obj', name: 'Asha', email: 'asha@example.com', phone: null, phone_country_code: null });
      for (const field of SPEC_RESPONSE_FIELDS) expect(view).toHaveProperty(field);
      const bare = await create();
      expect((await ok(await retrieve(bare.payment_id))).customer).toBeNull();
      const viaPublishable = await ok(await request('GET', `/payments/${payment.payment_id}?client_secret=${payment.client_secret}&expand_attempts=true`, { key: h.publishableKey }));
      expect(viaPublishable.attempts).toEqual([]);
    });

    test('an expand or force_sync value other than true/false: ERR_2003', async () => {
      const payment = await create();
      await expectError(await retrieve(payment.payment_id, '?expand_attempts=yes'), 'ERR_2003', 'expand_attempts');
      await expectError(await retrieve(payment.payment_id, '?force_sync=1'), 'ERR_2003', 'force_sync');
    });
  });

  describe(`[${engine}] cancel`, () => {
    const cancel = (id: string, body: unknown = { cancellation_reason: 'requested_by_customer' }, key?: string) =>
      request('POST', `/payments/${id}/cancel`, { body, ...(key ? { key } : {}) });

    test('from requires_payment_method: cancelled, with the reason, and a payment_cancelled outbox event', async () => {
      const payment = await create();
      const cancelled = await ok(await cancel(payment.payment_id, { cancellation_reason: 'duplicate', merchant_connector_details: { a: 1 }, all_keys_required: false }));
      expect(cancelled).toMatchObject({ status: 'cancelled', cancellation_reason: 'duplicate', amount_capturable: 0 });
      for (const field of SPEC_RESPONSE_FIELDS) expect(cancelled).toHaveProperty(field);
      const events = await h.store.outbox.listEventsForObject(scope(), payment.payment_id);
      expect(events.map((event) => event.eventType)).toEqual(['payment_cancelled']);
      expect((events[0]!.payload['content'] as Json)['object']).toMatchObject({ status: 'cancelled' });
    });

    test('from requires_confirmation and requires_customer_action (the attempt is voided)', async () => {
      const ready = await create({ payment_method_data: UPI('success@upi') });
      expect((await ok(await cancel(ready.payment_id))).status).toBe('cancelled');
      const waiting = await confirmed('pending@upi');
      expect((await ok(await cancel(waiting.payment_id))).status).toBe('cancelled');
      const view = await ok(await retrieve(waiting.payment_id, '?expand_attempts=true'));
      expect(view.attempts).toEqual([expect.objectContaining({ status: 'voided', cancellation_reason: 'requested_by_customer' })]);
      // The customer answering later changes nothing.
      h.clock.advance(PENDING_RESOLVE_AFTER_MS);
      expect((await ok(await retrieve(waiting.payment_id, '?force_sync=true'))).status).toBe('cancelled');
    });

    test('from requires_capture', async () => {
      const payment = await create({ payment_method_data: UPI('success@upi') });
      await h.store.payments.updatePaymentIfStatus(scope(), payment.payment_id, ['requires_confirmation'], { status: 'requires_capture', updatedAt: h.clock.now() });
      expect((await ok(await cancel(payment.payment_id))).status).toBe('cancelled');
    });

    test('from any other status: ERR_4003, nothing written', async () => {
      const succeeded = await confirmed('success@upi');
      await expectError(await cancel(succeeded.payment_id), 'ERR_4003');
      const failed = await confirmed('failure@upi');
      await expectError(await cancel(failed.payment_id), 'ERR_4003');
      const cancelled = await create();
      await ok(await cancel(cancelled.payment_id));
      await expectError(await cancel(cancelled.payment_id), 'ERR_4003');
      const events = await h.store.outbox.listEventsForObject(scope(), succeeded.payment_id);
      expect(events.map((event) => event.eventType)).toEqual(['payment_succeeded']);
    });

    test('the body is required: cancellation_reason missing is ERR_2001; an unknown payment ERR_4001; a publishable key ERR_1003', async () => {
      const payment = await create();
      await expectError(await cancel(payment.payment_id, {}), 'ERR_2001', 'cancellation_reason');
      await expectError(await request('POST', `/payments/${payment.payment_id}/cancel`), 'ERR_2001', 'cancellation_reason');
      await expectError(await cancel(payment.payment_id, { cancellation_reason: 'r'.repeat(256) }), 'ERR_2003', 'cancellation_reason');
      await expectError(await cancel(payment.payment_id, { cancellation_reason: 'x', extra: 1 }), 'ERR_2004', 'extra');
      await expectError(await cancel('pay_nope_cancel'), 'ERR_4001');
      await expectError(await cancel(payment.payment_id, undefined, h.publishableKey), 'ERR_1003');
    });
  });

  describe(`[${engine}] confirm session rules`, () => {
    test('session_expiry sets the client_secret lifetime (default 900 s); once expired, confirm answers ERR_1006', async () => {
      const standard = await create();
      expect(new Date(standard.expires_on).getTime() - new Date(standard.created).getTime()).toBe(900_000);
      const payment = await create({ session_expiry: 60, payment_method_data: UPI('success@upi') });
      expect(new Date(payment.expires_on).getTime() - new Date(payment.created).getTime()).toBe(60_000);
      h.clock.advance(61_000);
      const path = `/payments/${payment.payment_id}/confirm`;
      await expectError(await request('POST', path, { key: h.publishableKey, body: { client_secret: payment.client_secret } }), 'ERR_1006', 'client_secret');
      await expectError(await request('POST', path, { key: h.publishableKey, body: {} }), 'ERR_2001', 'client_secret');
      await expectError(await request('GET', `/payments/${payment.payment_id}?client_secret=${payment.client_secret}`, { key: h.publishableKey }), 'ERR_1006');
    });

    test('publishable key with its client_secret confirms; a secret key with client_secret is refused (ERR_1007)', async () => {
      const payment = await create({ payment_method_data: UPI('success@upi') });
      const path = `/payments/${payment.payment_id}/confirm`;
      await expectError(await request('POST', path, { body: { client_secret: payment.client_secret } }), 'ERR_1007', 'client_secret');
      expect((await ok(await request('POST', path, { key: h.publishableKey, body: { client_secret: payment.client_secret } }))).status).toBe('succeeded');
    });
  });

  describe(`[${engine}] update_metadata`, () => {
    const updateMetadata = (id: string, body: unknown, key?: string) => request('POST', `/payments/${id}/update_metadata`, { body, ...(key ? { key } : {}) });

    test.each(['success@upi', 'failure@upi', 'pending@upi'])('default account, already-sent payment (%s): ERR_4094, metadata unchanged', async (vpa) => {
      const payment = await confirmed(vpa, { metadata: { order: '1' } });
      await expectError(await updateMetadata(payment.payment_id, { metadata: { order: '2' } }), 'ERR_4094');
      expect((await ok(await retrieve(payment.payment_id))).metadata).toEqual({ order: '1' });
    });

    test('a payment not yet sent: ERR_4003 (use update), metadata unchanged', async () => {
      const payment = await create({ metadata: { order: '1' } });
      await expectError(await updateMetadata(payment.payment_id, { metadata: { order: '2' } }), 'ERR_4003');
      expect((await ok(await retrieve(payment.payment_id))).metadata).toEqual({ order: '1' });
    });

    test('metadata set on create, or on update while modifiable, is stored and returned', async () => {
      const payment = await create({ metadata: { a: '1' } });
      expect(payment.metadata).toEqual({ a: '1' });
      expect((await ok(await request('POST', `/payments/${payment.payment_id}`, { body: { metadata: { a: '2', b: '3' } } }))).metadata).toEqual({ a: '2', b: '3' });
      const done = await ok(await request('POST', `/payments/${payment.payment_id}/confirm`, { body: { payment_method_data: UPI('success@upi') } }));
      expect(done.metadata).toEqual({ a: '2', b: '3' });
      expect((await ok(await retrieve(payment.payment_id))).metadata).toEqual({ a: '2', b: '3' });
    });

    test('with metadata updates switched on for the rail (test account): updates and answers {payment_id, metadata, status, feature_metadata}', async () => {
      const payment = await confirmed('success@upi', { metadata: { order: '1' } });
      await withSettings(withUpiCapabilities({ metadataUpdates: true }), async () => {
        const body = await ok<Json>(await updateMetadata(payment.payment_id, { metadata: { order: '2' }, feature_metadata: { search_tags: ['a'] } }));
        expect(body).toEqual({ payment_id: payment.payment_id, metadata: { order: '2' }, status: 'succeeded', feature_metadata: { search_tags: ['a'] } });
        // Still ERR_4003 before the payment is sent, capability or not.
        const fresh = await create();
        await expectError(await updateMetadata(fresh.payment_id, { metadata: { x: '1' } }), 'ERR_4003');
      });
      expect((await ok(await retrieve(payment.payment_id))).metadata).toEqual({ order: '2' });
    });

    test('metadata is required and keeps its limits; secret key only; unknown payment ERR_4001', async () => {
      const payment = await confirmed('success@upi');
      await expectError(await updateMetadata(payment.payment_id, {}), 'ERR_2001', 'metadata');
      await expectError(await updateMetadata(payment.payment_id, { metadata: { ['k'.repeat(41)]: 'v' } }), 'ERR_2003', `metadata.${'k'.repeat(41)}`);
      await expectError(await updateMetadata(payment.payment_id, { metadata: {}, feature_metadata: 'x' }), 'ERR_2003', 'feature_metadata');
      await expectError(await updateMetadata(payment.payment_id, { metadata: {} }, h.publishableKey), 'ERR_1003');
      await expectError(await updateMetadata('pay_nope_meta', { metadata: {} }), 'ERR_4001');
    });
  });

  describe(`[${engine}] eligibility`, () => {
    const eligibility = (id: string, body: Json, key?: string) => request('POST', `/payments/${id}/eligibility`, { key: key ?? h.publishableKey, body });
    const valid = (payment: PaymentResponse): Json => ({
      client_secret: payment.client_secret,
      payment_method_type: 'upi',
      payment_method_subtype: 'upi_collect',
      payment_method_data: UPI('success@upi'),
      browser_info: { user_agent: 'test' },
    });

    test('a method that can take the payment: sdk_next_action confirm', async () => {
      const payment = await create();
      expect(await ok<Json>(await eligibility(payment.payment_id, valid(payment)))).toEqual({
        payment_id: payment.payment_id,
        sdk_next_action: { next_action: 'confirm' },
      });
    });

    test('a method no rail of the account takes for this payment: deny with a message', async () => {
      const payment = await create();
      const body = await ok<Json>(
        await eligibility(payment.payment_id, { client_secret: payment.client_secret, payment_method_type: 'crypto', payment_method_data: { crypto: {} } }),
      );
      expect(body).toEqual({ payment_id: payment.payment_id, sdk_next_action: { next_action: { deny: { message: expect.any(String) } } } });
    });

    test('errors: secret key ERR_1003, client_secret missing ERR_2001 / wrong ERR_1005, required fields ERR_2001, bad enum ERR_2003', async () => {
      const payment = await create();
      const other = await create();
      const { client_secret: _cs, ...withoutSecret } = valid(payment);
      await expectError(await eligibility(payment.payment_id, valid(payment), h.secretKey), 'ERR_1003');
      await expectError(await eligibility(payment.payment_id, withoutSecret), 'ERR_2001', 'client_secret');
      await expectError(await eligibility(payment.payment_id, { ...valid(payment), client_secret: other.client_secret }), 'ERR_1005');
      const { payment_method_type: _t, ...withoutType } = valid(payment);
      await expectError(await eligibility(payment.payment_id, withoutType), 'ERR_2001', 'payment_method_type');
      const { payment_method_data: _d, ...withoutData } = valid(payment);
      await expectError(await eligibility(payment.payment_id, withoutData), 'ERR_2001', 'payment_method_data');
      await expectError(await eligibility(payment.payment_id, { ...valid(payment), payment_method_type: 'upi_collect' }), 'ERR_2003', 'payment_method_type');
      await expectError(await eligibility(payment.payment_id, { ...valid(payment), payment_method_type: 'crypto' }), 'ERR_2003', 'payment_method_type');
      await expectError(await eligibility(payment.payment_id, { ...valid(payment), browser_info: 'x' }), 'ERR_2003', 'browser_info');
      await expectError(
        await eligibility(payment.payment_id, { ...valid(payment), payment_method_data: { card: { card_number: '4242424242424242' } } }),
        'ERR_2029',
      );
      // A publishable key cannot tell an unknown payment from another payment's client_secret.
      await expectError(await eligibility('pay_nope_elig', valid(payment)), 'ERR_1005', 'client_secret');
    });

    test('after confirm: ERR_4003', async () => {
      const payment = await confirmed('success@upi');
      await expectError(await eligibility(payment.payment_id, valid(payment)), 'ERR_4003');
    });
  });

  describe(`[${engine}] poll status`, () => {
    const poll = (id: string, clientSecret: string | undefined, key?: string) =>
      request('GET', `/poll/status/${id}${clientSecret === undefined ? '' : `?client_secret=${clientSecret}`}`, { key: key ?? h.publishableKey });

    test('a payment waiting for the customer: pending, then completed once it resolves', async () => {
      const payment = await confirmed('pending@upi');
      const pollId = `poll_${payment.payment_id}`;
      expect(await ok<Json>(await poll(pollId, payment.client_secret))).toEqual({ poll_id: pollId, status: 'pending' });
      h.clock.advance(PENDING_RESOLVE_AFTER_MS);
      expect(await ok<Json>(await poll(pollId, payment.client_secret))).toEqual({ poll_id: pollId, status: 'completed' });
      expect((await ok(await retrieve(payment.payment_id))).status).toBe('succeeded');
      expect(await ok<Json>(await poll(pollId, payment.client_secret))).toEqual({ poll_id: pollId, status: 'completed' });
    });

    test('no poll for a payment that never waited or another id shape: not_found; an unknown payment is ERR_1005, as another payment is', async () => {
      const payment = await confirmed('success@upi');
      for (const id of [`poll_${payment.payment_id}`, 'something']) {
        expect(await ok<Json>(await poll(id, payment.client_secret))).toEqual({ poll_id: id, status: 'not_found' });
      }
      await expectError(await poll('poll_pay_nope', payment.client_secret), 'ERR_1005', 'client_secret');
    });

    test("the payment's client_secret is required (ERR_2001), another payment's is refused (ERR_1005)", async () => {
      const payment = await confirmed('pending@upi');
      const other = await create();
      const pollId = `poll_${payment.payment_id}`;
      await expectError(await poll(pollId, undefined), 'ERR_2001', 'client_secret');
      await expectError(await poll(pollId, other.client_secret), 'ERR_1005', 'client_secret');
    });

    test('publishable key only: a secret key gets ERR_1003; no key ERR_1001', async () => {
      await expectError(await poll('poll_x', undefined, h.secretKey), 'ERR_1003');
      await expectError(await request('GET', '/poll/status/poll_x', { key: null }), 'ERR_1001');
    });
  });

  describe(`[${engine}] recurring today`, () => {
    test.each<[string, Json]>([
      ['setup_future_usage off_session', { setup_future_usage: 'off_session' }],
      ['an explicit mandate_data block', { mandate_data: { customer_acceptance: { acceptance_type: 'online', online: { user_agent: 'checkout' } }, mandate_type: { multi_use: null } } }],
      ['a zero-amount setup', { amount: 0, payment_type: 'setup_mandate', setup_future_usage: 'off_session' }],
    ])('%s: 200, succeeded, mandate_id null', async (_name, body) => {
      const payment = await confirmed('success@upi', body);
      expect(payment).toMatchObject({ status: 'succeeded', mandate_id: null });
      expect((await ok(await retrieve(payment.payment_id))).mandate_id).toBeNull();
    });

    test.each<[Json, string]>([
      [{ off_session: true, mandate_id: 'man_123' }, 'mandate_id'],
      [{ off_session: true }, 'off_session'],
      [{ recurring_details: { type: 'mandate_id', data: 'man_123' } }, 'recurring_details'],
    ])('an off-session charge #%$ is refused with ERR_4088 at create and at confirm', async (fields, field) => {
      await expectError(
        await request('POST', '/payments', { body: { amount: 100, currency: 'INR', confirm: true, payment_method_data: UPI('success@upi'), ...fields } }),
        'ERR_4088',
        field,
      );
      // Without payment_method_data too: a mandate charge carries none.
      await expectError(await request('POST', '/payments', { body: { amount: 100, currency: 'INR', confirm: true, ...fields } }), 'ERR_4088', field);
      const payment = await create({ payment_method_data: UPI('success@upi') });
      await expectError(await request('POST', `/payments/${payment.payment_id}/confirm`, { body: fields }), 'ERR_4088', field);
      expect((await ok(await retrieve(payment.payment_id))).status).toBe('requires_confirmation');
    });
  });

  describe(`[${engine}] manual-capture family (automatic-capture rails)`, () => {
    test('capture: nothing is capturable (ERR_4003), whatever the status', async () => {
      const succeeded = await confirmed('success@upi');
      const error = await expectError(await request('POST', `/payments/${succeeded.payment_id}/capture`, { body: { amount_to_capture: 100 } }), 'ERR_4003');
      expect(String(error['message'])).toMatch(/capture as they authorize/);
      const fresh = await create();
      await expectError(await request('POST', `/payments/${fresh.payment_id}/capture`, { body: {} }), 'ERR_4003');
    });

    test('cancel_post_capture of a succeeded payment: ERR_4003 (the rail captures as it authorizes)', async () => {
      const succeeded = await confirmed('success@upi');
      const error = await expectError(
        await request('POST', `/payments/${succeeded.payment_id}/cancel_post_capture`, { body: { cancellation_reason: 'x' } }),
        'ERR_4003',
      );
      expect(String(error['message'])).toMatch(/no manual capture/);
    });

    test('incremental and extended authorization: ERR_4003', async () => {
      const succeeded = await confirmed('success@upi');
      await expectError(await request('POST', `/payments/${succeeded.payment_id}/incremental_authorization`, { body: { amount: 20_000 } }), 'ERR_4003');
      await expectError(await request('POST', `/payments/${succeeded.payment_id}/extend_authorization`), 'ERR_4003');
    });

    test('request errors: unknown payment ERR_4001, publishable key ERR_1003, bad body ERR_2001 / ERR_2003 / ERR_2004', async () => {
      const payment = await create();
      await expectError(await request('POST', '/payments/pay_nope_cap/capture', { body: {} }), 'ERR_4001');
      await expectError(await request('POST', `/payments/${payment.payment_id}/capture`, { key: h.publishableKey, body: {} }), 'ERR_1003');
      await expectError(await request('POST', `/payments/${payment.payment_id}/capture`, { body: { amount_to_capture: -1 } }), 'ERR_2003', 'amount_to_capture');
      await expectError(await request('POST', `/payments/${payment.payment_id}/capture`, { body: { colour: 'red' } }), 'ERR_2004', 'colour');
      await expectError(await request('POST', `/payments/${payment.payment_id}/incremental_authorization`, { body: {} }), 'ERR_2001', 'amount');
      await expectError(await request('POST', '/payments/pay_nope_ext/extend_authorization'), 'ERR_4001');
    });
  });

  describe(`[${engine}] openapi`, () => {
    test('documents the payments operations', async () => {
      const doc = (await (await request('GET', '/openapi.json', { key: null })).json()) as { paths: Record<string, Json> };
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining([
          '/payments/list',
          '/payments/{payment_id}/cancel',
          '/payments/{payment_id}/update_metadata',
          '/payments/{payment_id}/eligibility',
          '/poll/status/{poll_id}',
          '/payments/{payment_id}/capture',
          '/payments/{payment_id}/cancel_post_capture',
          '/payments/{payment_id}/incremental_authorization',
          '/payments/{payment_id}/extend_authorization',
        ]),
      );
      expect(doc.paths['/payments/{payment_id}']).toHaveProperty('post');
      expect(doc.paths['/payments/{payment_id}']).toHaveProperty('get');
    });
  });
});
