/**
 * Customers, ephemeral keys, the customer side of payments and GET /account/payment_methods, through app.request().
 * Runs on SQLite and PostgreSQL (forEachEngine).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CustomerResponse, EphemeralKeyResponse } from '../../../../../protocol/api/customers';
import type { PaymentResponse } from '../../../../../protocol/api/payments';
import { EPHEMERAL_KEY_TTL_SECONDS } from '../../../core/customers/ephemeral-keys';
import { hashSecret } from '../../../core/auth/secrets';
import type { Engine } from '../../../storage/database';
import type { AccountSettings, RailCapabilities } from '../../../kernel/account-settings-types';
import type { RailAdapter } from '../../../rails/rail-adapter';
import type { Currency } from '../../../../../protocol/currency';
import type { PaymentMethod, PaymentMethodType } from '../../../../../protocol/api/enums';
import { apiRequest, expectApiError, insertLiveSecretKey, expectOk } from '../../../test-support/api-assertions';
import { createHarness, type Harness } from '../../../test-support/harness';
import { forEachEngine } from '../../../test-support/engines';
import { DEFAULT_ACCOUNT_SETTINGS } from '../../../core/accounts/account-settings';

type Json = Record<string, unknown>;

forEachEngine('Customers API', (engine) => {
  let h: Harness;
  let liveSecretKey: string;
  let counter = 0;
  const uniqueId = (prefix: string) => `${prefix}_${engine}_${(counter += 1)}_${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    h = await createHarness(engine);
    liveSecretKey = await insertLiveSecretKey(h, { fill: 'C', keyId: 'key_live_customers_000' });
  });

  afterAll(async () => {
    await h?.close();
  });

  const request = (method: string, path: string, options: { key?: string | null; body?: unknown; raw?: string } = {}) => apiRequest(h, method, path, options);
  const expectError = expectApiError;
  const ok = expectOk;
  const createCustomer = (body: Json = {}, key?: string) => request('POST', '/customers', { key, body }).then(ok<CustomerResponse>);
  const createKey = (customerId: string) =>
    request('POST', '/ephemeral_keys', { body: { customer_id: customerId } }).then(ok<EphemeralKeyResponse>);
  const createPayment = (body: Json = {}) =>
    request('POST', '/payments', { body: { amount: 10_000, currency: 'INR', ...body } }).then(ok<PaymentResponse>);

  describe(`[${engine}] customers: OpenAPI`, () => {
    test('/openapi.json documents the customer and ephemeral key routes', async () => {
      const doc = await request('GET', '/openapi.json', { key: null }).then(ok<{ paths: Record<string, Json>; components: { schemas: Json } }>);
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining(['/customers', '/customers/list', '/customers/{customer_id}', '/ephemeral_keys', '/ephemeral_keys/{id}']),
      );
      expect(Object.keys(doc.paths['/customers/{customer_id}'] ?? {}).sort()).toEqual(['delete', 'get', 'post']);
      expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Customer', 'CreateCustomerRequest', 'EphemeralKey', 'PaymentMethodList']));
    });
  });

  describe(`[${engine}] customers: create`, () => {
    test('generates cus_ + 20 characters and returns every field', async () => {
      const customer = await createCustomer({
        name: 'Asha Rao',
        email: 'asha@example.com',
        phone: '9876543210',
        phone_country_code: '+91',
        description: 'first customer',
        address: { line1: '1 MG Road', city: 'Bengaluru', country: 'IN', zip: '560001' },
        metadata: { tier: 'gold' },
        tax_registration_id: '29ABCDE1234F1Z5',
        document_details: { document_type: 'pan', document_number: 'ABCDE1234F' },
      });
      expect(customer.customer_id).toMatch(/^cus_[A-Za-z0-9]{20}$/);
      expect(customer).toEqual({
        customer_id: customer.customer_id,
        name: 'Asha Rao',
        email: 'asha@example.com',
        phone: '9876543210',
        phone_country_code: '+91',
        description: 'first customer',
        address: { line1: '1 MG Road', city: 'Bengaluru', country: 'IN', zip: '560001' },
        metadata: { tier: 'gold' },
        tax_registration_id: '29ABCDE1234F1Z5',
        document_details: { document_type: 'pan', document_number: 'ABCDE1234F' },
        created_at: h.clock.now().toISOString(),
        default_payment_method_id: null,
      });
    });

    test('an empty body creates a customer with null fields', async () => {
      const customer = await createCustomer();
      expect(customer).toMatchObject({ name: null, email: null, address: null, metadata: null, document_details: null });
    });

    test('a merchant-chosen customer_id of 64 characters and 255-character fields are accepted', async () => {
      const id = `c${'x'.repeat(63)}`;
      const customer = await createCustomer({ customer_id: id, name: 'n'.repeat(255), description: 'd'.repeat(255) });
      expect(customer.customer_id).toBe(id);
      expect(customer.name).toHaveLength(255);
    });

    test('an existing customer_id returns the stored customer with 200 and ignores the body', async () => {
      const id = uniqueId('cus_existing');
      const first = await createCustomer({ customer_id: id, name: 'Original' });
      const again = await createCustomer({ customer_id: id, name: 'Changed', email: 'new@example.com' });
      expect(again).toEqual(first);
      expect(await request('GET', `/customers/${id}`).then(ok<CustomerResponse>)).toMatchObject({ name: 'Original', email: null });
    });

    test('concurrent creates with one customer_id store one customer', async () => {
      const id = uniqueId('cus_race');
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => createCustomer({ customer_id: id, name: `n${i}` })));
      expect(new Set(results.map((customer) => customer.name)).size).toBe(1);
    });

    test.each<[Json, string]>([
      [{ customer_id: 'c'.repeat(65) }, 'customer_id'],
      [{ customer_id: '' }, 'customer_id'],
      [{ customer_id: 42 }, 'customer_id'],
      [{ name: 'n'.repeat(256) }, 'name'],
      [{ email: 'e'.repeat(256) }, 'email'],
      [{ phone: 'p'.repeat(256) }, 'phone'],
      [{ phone_country_code: 'p'.repeat(256) }, 'phone_country_code'],
      [{ description: 'd'.repeat(256) }, 'description'],
      [{ tax_registration_id: 't'.repeat(256) }, 'tax_registration_id'],
      [{ address: 'Bengaluru' }, 'address'],
      [{ document_details: [1] }, 'document_details'],
      [{ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
      [{ metadata: { ['k'.repeat(41)]: 'v' } }, `metadata.${'k'.repeat(41)}`],
      [{ metadata: { note: 'v'.repeat(501) } }, 'metadata.note'],
    ])('limit or type #%$: ERR_2003 naming the field', async (body, field) => {
      await expectError(await request('POST', '/customers', { body }), 'ERR_2003', field);
    });

    test('unknown field: ERR_2004', async () => {
      await expectError(await request('POST', '/customers', { body: { nickname: 'x' } }), 'ERR_2004', 'nickname');
    });

    test('malformed JSON: ERR_2005', async () => {
      await expectError(await request('POST', '/customers', { raw: '{"name":' }), 'ERR_2005');
    });

    test('no key: ERR_1001; publishable key: ERR_1003', async () => {
      await expectError(await request('POST', '/customers', { key: null, body: {} }), 'ERR_1001');
      await expectError(await request('POST', '/customers', { key: h.publishableKey, body: {} }), 'ERR_1003');
    });
  });

  describe(`[${engine}] customers: retrieve, update, list`, () => {
    test('retrieve returns the customer', async () => {
      const customer = await createCustomer({ name: 'Ravi' });
      expect(await request('GET', `/customers/${customer.customer_id}`).then(ok<CustomerResponse>)).toEqual(customer);
    });

    test('retrieve an unknown customer: 404 ERR_4006', async () => {
      await expectError(await request('GET', '/customers/cus_nobody'), 'ERR_4006');
    });

    test('live keys do not see test customers: ERR_4006', async () => {
      const customer = await createCustomer();
      await expectError(await request('GET', `/customers/${customer.customer_id}`, { key: liveSecretKey }), 'ERR_4006');
    });

    test('retrieve with a publishable key: ERR_1003', async () => {
      const customer = await createCustomer();
      await expectError(await request('GET', `/customers/${customer.customer_id}`, { key: h.publishableKey }), 'ERR_1003');
    });

    test('update is partial: omitted fields stay, null clears, objects are replaced whole', async () => {
      const customer = await createCustomer({ name: 'Old', email: 'old@example.com', phone: '1', address: { city: 'Pune', zip: '411001' } });
      const updated = await request('POST', `/customers/${customer.customer_id}`, {
        body: { name: 'New', phone: null, address: { city: 'Mumbai' }, metadata: { a: 1 } },
      }).then(ok<CustomerResponse>);
      expect(updated).toEqual({
        ...customer,
        name: 'New',
        phone: null,
        address: { city: 'Mumbai' },
        metadata: { a: 1 },
      });
      expect(await request('GET', `/customers/${customer.customer_id}`).then(ok<CustomerResponse>)).toEqual(updated);
    });

    test('update refuses customer_id: ERR_2004 naming it', async () => {
      const customer = await createCustomer();
      await expectError(
        await request('POST', `/customers/${customer.customer_id}`, { body: { customer_id: 'other' } }),
        'ERR_2004',
        'customer_id',
      );
    });

    test('update checks the limits: ERR_2003', async () => {
      const customer = await createCustomer();
      await expectError(await request('POST', `/customers/${customer.customer_id}`, { body: { email: 'e'.repeat(256) } }), 'ERR_2003', 'email');
    });

    test('update an unknown customer: ERR_4006', async () => {
      await expectError(await request('POST', '/customers/cus_nobody', { body: { name: 'x' } }), 'ERR_4006');
    });

    test('update with a publishable key: ERR_1003', async () => {
      const customer = await createCustomer();
      await expectError(await request('POST', `/customers/${customer.customer_id}`, { key: h.publishableKey, body: {} }), 'ERR_1003');
    });

    test('list is an array, newest first, paged by offset and limit', async () => {
      const made: CustomerResponse[] = [];
      for (let i = 0; i < 3; i += 1) {
        h.clock.advance(1000);
        made.push(await createCustomer({ name: `list-${i}` }));
      }
      const newest = await request('GET', '/customers/list?limit=3').then(ok<CustomerResponse[]>);
      expect(newest.map((customer) => customer.customer_id)).toEqual(made.reverse().map((customer) => customer.customer_id));
      const second = await request('GET', '/customers/list?offset=1&limit=1').then(ok<CustomerResponse[]>);
      expect(second.map((customer) => customer.customer_id)).toEqual([made[1]?.customer_id]);
      expect(await request('GET', '/customers/list?limit=0').then(ok<CustomerResponse[]>)).toEqual([]);
    });

    test('list defaults to 10 and serves at most 100', async () => {
      for (let i = 0; i < 101; i += 1) await createCustomer();
      expect(await request('GET', '/customers/list').then(ok<CustomerResponse[]>)).toHaveLength(10);
      expect(await request('GET', '/customers/list?limit=2147483647').then(ok<CustomerResponse[]>)).toHaveLength(100);
      expect(await request('GET', '/customers/list?offset=2147483647').then(ok<CustomerResponse[]>)).toEqual([]);
    });

    test('list in live mode does not show test customers', async () => {
      const live = await createCustomer({ name: 'live one' }, liveSecretKey);
      const listed = await request('GET', '/customers/list?limit=100', { key: liveSecretKey }).then(ok<CustomerResponse[]>);
      expect(listed.map((customer) => customer.customer_id)).toEqual([live.customer_id]);
    });

    test.each([
      ['offset=-1', 'offset'],
      ['offset=abc', 'offset'],
      ['limit=1.5', 'limit'],
      ['limit=2147483648', 'limit'],
    ])('list with %s: ERR_2003', async (query, field) => {
      await expectError(await request('GET', `/customers/list?${query}`), 'ERR_2003', field);
    });

    test('list with an unknown parameter: ERR_2004; with a publishable key: ERR_1003', async () => {
      await expectError(await request('GET', '/customers/list?page=2'), 'ERR_2004', 'page');
      await expectError(await request('GET', '/customers/list', { key: h.publishableKey }), 'ERR_1003');
    });
  });

  describe(`[${engine}] customers: delete`, () => {
    test('delete answers the deletion object and the customer is gone', async () => {
      const customer = await createCustomer({ name: 'Gone', address: { city: 'Delhi' } });
      const id = customer.customer_id;
      const key = await createKey(id);
      expect(await request('DELETE', `/customers/${id}`).then(ok<Json>)).toEqual({
        customer_id: id,
        customer_deleted: true,
        address_deleted: true,
        payment_methods_deleted: true,
      });
      await expectError(await request('GET', `/customers/${id}`), 'ERR_4006');
      await expectError(await request('POST', `/customers/${id}`, { body: { name: 'x' } }), 'ERR_4006');
      await expectError(await request('DELETE', `/customers/${id}`), 'ERR_4006');
      // Its ephemeral keys were deleted with it.
      await expectError(await request('GET', `/customers/${id}`, { key: key.secret }), 'ERR_1002');
      const listed = await request('GET', '/customers/list?limit=100').then(ok<CustomerResponse[]>);
      expect(listed.map((entry) => entry.customer_id)).not.toContain(id);
      // Personal data is wiped from the tombstone.
      const stored = await h.store.customers.findCustomer({ accountId: h.boot.account.accountId, mode: 'test' }, id);
      expect(stored).toMatchObject({ name: null, address: null, deletedAt: expect.any(Date) });
    });

    test('the id of a deleted customer is not reused: create ERR_4020, payment create ERR_4020 and nothing stored', async () => {
      const id = uniqueId('cus_deleted');
      await createCustomer({ customer_id: id });
      await ok(await request('DELETE', `/customers/${id}`));
      await expectError(await request('POST', '/customers', { body: { customer_id: id } }), 'ERR_4020', 'customer_id');
      const paymentId = uniqueId('pay_for_deleted');
      await expectError(
        await request('POST', '/payments', { body: { amount: 100, currency: 'INR', payment_id: paymentId, customer_id: id } }),
        'ERR_4020',
        'customer_id',
      );
      await expectError(await request('GET', `/payments/${paymentId}`), 'ERR_4001');
    });

    test('a payment update names a customer as the create does: a new id creates it, a deleted one is ERR_4020 and nothing changes', async () => {
      const payment = await ok<{ payment_id: string }>(await request('POST', '/payments', { body: { amount: 100, currency: 'INR' } }));
      const fresh = uniqueId('cus_by_update');
      await ok(await request('POST', `/payments/${payment.payment_id}`, { body: { customer_id: fresh, customer: { name: 'Named by update' } } }));
      expect(await ok<CustomerResponse>(await request('GET', `/customers/${fresh}`))).toMatchObject({ customer_id: fresh, name: 'Named by update' });
      const deleted = uniqueId('cus_deleted_then_named');
      await createCustomer({ customer_id: deleted });
      await ok(await request('DELETE', `/customers/${deleted}`));
      await expectError(await request('POST', `/payments/${payment.payment_id}`, { body: { customer_id: deleted, description: 'not applied' } }), 'ERR_4020', 'customer_id');
      expect(await ok<{ customer_id: string | null; description: string | null }>(await request('GET', `/payments/${payment.payment_id}`))).toMatchObject({
        customer_id: fresh,
        description: null,
      });
    });

    test('delete an unknown customer: ERR_4006; with a publishable key: ERR_1003', async () => {
      await expectError(await request('DELETE', '/customers/cus_nobody'), 'ERR_4006');
      const customer = await createCustomer();
      await expectError(await request('DELETE', `/customers/${customer.customer_id}`, { key: h.publishableKey }), 'ERR_1003');
    });
  });

  describe(`[${engine}] ephemeral keys`, () => {
    test('create answers id, customer_id, epk_ secret, created_at and expires one hour later; only a hash is stored', async () => {
      const customer = await createCustomer();
      const key = await createKey(customer.customer_id);
      expect(key.id).toMatch(/^eki_[A-Za-z0-9]{20}$/);
      expect(key.secret).toMatch(/^epk_[A-Za-z0-9]{40}$/);
      expect(key.customer_id).toBe(customer.customer_id);
      expect(new Date(key.expires).getTime() - new Date(key.created_at).getTime()).toBe(EPHEMERAL_KEY_TTL_SECONDS * 1000);
      const found = await h.store.ephemeralKeys.findEphemeralKeyBySecretHash(hashSecret(key.secret));
      expect(found?.key).toMatchObject({ keyId: key.id, secretHash: hashSecret(key.secret) });
      expect(JSON.stringify(found)).not.toContain(key.secret);
    });

    test('an ephemeral key retrieves its own customer only', async () => {
      const mine = await createCustomer({ name: 'mine' });
      const other = await createCustomer({ name: 'other' });
      const key = await createKey(mine.customer_id);
      expect(await request('GET', `/customers/${mine.customer_id}`, { key: key.secret }).then(ok<CustomerResponse>)).toEqual(mine);
      await expectError(await request('GET', `/customers/${other.customer_id}`, { key: key.secret }), 'ERR_4006');
    });

    test.each([
      ['POST', '/customers', {}],
      ['GET', '/customers/list', undefined],
      ['POST', '/customers/{id}', {}],
      ['DELETE', '/customers/{id}', undefined],
      ['POST', '/ephemeral_keys', { customer_id: '{id}' }],
      ['POST', '/payments', { amount: 1, currency: 'INR' }],
      ['GET', '/account/payment_methods', undefined],
    ])('an ephemeral key cannot call %s %s: ERR_1003', async (method, path, body) => {
      const customer = await createCustomer();
      const key = await createKey(customer.customer_id);
      const fill = (value: string) => value.replace('{id}', customer.customer_id);
      const filledBody = body === undefined ? undefined : JSON.parse(fill(JSON.stringify(body)));
      await expectError(await request(method, fill(path), { key: key.secret, body: filledBody }), 'ERR_1003');
    });

    test('an ephemeral key expires after one hour: ERR_1002', async () => {
      const customer = await createCustomer();
      const key = await createKey(customer.customer_id);
      h.clock.advance(EPHEMERAL_KEY_TTL_SECONDS * 1000 - 1);
      await ok(await request('GET', `/customers/${customer.customer_id}`, { key: key.secret }));
      h.clock.advance(1);
      await expectError(await request('GET', `/customers/${customer.customer_id}`, { key: key.secret }), 'ERR_1002');
    });

    test('unknown or malformed ephemeral keys: ERR_1002', async () => {
      await expectError(await request('GET', '/customers/cus_x', { key: `epk_${'A'.repeat(40)}` }), 'ERR_1002');
      await expectError(await request('GET', '/customers/cus_x', { key: 'epk_short' }), 'ERR_1002');
    });

    test('delete answers the key without its secret, and the key stops working', async () => {
      const customer = await createCustomer();
      const key = await createKey(customer.customer_id);
      const deleted = await request('DELETE', `/ephemeral_keys/${key.id}`).then(ok<Json>);
      expect(deleted).toEqual({ id: key.id, customer_id: customer.customer_id, created_at: key.created_at, expires: key.expires, deleted: true });
      await expectError(await request('GET', `/customers/${customer.customer_id}`, { key: key.secret }), 'ERR_1002');
      await expectError(await request('DELETE', `/ephemeral_keys/${key.id}`), 'ERR_4021');
    });

    test('delete an unknown key, or a test key with a live key: ERR_4021', async () => {
      await expectError(await request('DELETE', '/ephemeral_keys/eki_nothing'), 'ERR_4021');
      const customer = await createCustomer();
      const key = await createKey(customer.customer_id);
      await expectError(await request('DELETE', `/ephemeral_keys/${key.id}`, { key: liveSecretKey }), 'ERR_4021');
    });

    test('create for an unknown customer: ERR_4006; without customer_id: ERR_2001; with a publishable key: ERR_1003', async () => {
      await expectError(await request('POST', '/ephemeral_keys', { body: { customer_id: 'cus_nobody' } }), 'ERR_4006');
      await expectError(await request('POST', '/ephemeral_keys', { body: {} }), 'ERR_2001', 'customer_id');
      await expectError(await request('POST', '/ephemeral_keys', { key: h.publishableKey, body: { customer_id: 'x' } }), 'ERR_1003');
      await expectError(await request('DELETE', '/ephemeral_keys/eki_x', { key: h.publishableKey }), 'ERR_1003');
    });
  });

  describe(`[${engine}] customers on payments`, () => {
    test('a customer_id naming no customer creates it, with the payment customer object details', async () => {
      const id = uniqueId('cus_from_payment');
      const payment = await createPayment({ customer_id: id, customer: { id, name: 'Meera', email: 'meera@example.com', phone: '99', phone_country_code: '+91' } });
      expect(payment.customer_id).toBe(id);
      const customer = await request('GET', `/customers/${id}`).then(ok<CustomerResponse>);
      expect(customer).toMatchObject({ customer_id: id, name: 'Meera', email: 'meera@example.com', phone: '99', phone_country_code: '+91' });
      const retrieved = await request('GET', `/payments/${payment.payment_id}`).then(ok<PaymentResponse>);
      expect(retrieved.customer).toEqual({ id, name: 'Meera', email: 'meera@example.com', phone: '99', phone_country_code: '+91' });
      const viaClient = await request('GET', `/payments/${payment.payment_id}?client_secret=${payment.client_secret}`, { key: h.publishableKey }).then(
        ok<PaymentResponse>,
      );
      expect(viaClient.customer?.id).toBe(id);
    });

    test('an existing customer is attached, not changed', async () => {
      const customer = await createCustomer({ name: 'Kept' });
      await createPayment({ customer_id: customer.customer_id, customer: { name: 'Ignored' } });
      expect(await request('GET', `/customers/${customer.customer_id}`).then(ok<CustomerResponse>)).toEqual(customer);
    });

    test('a payment without customer_id creates no customer and retrieves customer null', async () => {
      const payment = await createPayment();
      expect((await request('GET', `/payments/${payment.payment_id}`).then(ok<PaymentResponse>)).customer).toBeNull();
    });

    test('an idempotent repeat of the create stores one customer', async () => {
      const id = uniqueId('cus_repeat');
      const body = { payment_id: uniqueId('pay_repeat'), customer_id: id };
      const first = await createPayment(body);
      const second = await createPayment(body);
      expect(second.payment_id).toBe(first.payment_id);
      await ok(await request('GET', `/customers/${id}`));
    });

    test.each<[Json, string]>([
      [{ customer: { id: 'someone_else' } }, 'customer.id'],
      [{ customer: { name: 42 } }, 'customer.name'],
      [{ customer: { email: 'e'.repeat(256) } }, 'customer.email'],
    ])('a bad customer object #%$: ERR_2003, and neither payment nor customer is stored', async (extra, field) => {
      const id = uniqueId('cus_bad');
      const paymentId = uniqueId('pay_bad');
      await expectError(
        await request('POST', '/payments', { body: { amount: 100, currency: 'INR', payment_id: paymentId, customer_id: id, ...extra } }),
        'ERR_2003',
        field,
      );
      await expectError(await request('GET', `/payments/${paymentId}`), 'ERR_4001');
      await expectError(await request('GET', `/customers/${id}`), 'ERR_4006');
    });

    test('the retrieved payment shows customer null once its customer is deleted', async () => {
      const id = uniqueId('cus_later_deleted');
      const payment = await createPayment({ customer_id: id });
      await ok(await request('DELETE', `/customers/${id}`));
      const retrieved = await request('GET', `/payments/${payment.payment_id}`).then(ok<PaymentResponse>);
      expect(retrieved.customer_id).toBe(id);
      expect(retrieved.customer).toBeNull();
    });
  });

  describe(`[${engine}] account payment methods`, () => {
    const list = (query = '', key?: string) => request('GET', `/account/payment_methods${query === '' ? '' : `?${query}`}`, { key });
    const methodsOf = (body: Json) =>
      (body['payment_methods'] as { payment_method: string; payment_method_types: { payment_method_type: string }[] }[]).flatMap((entry) =>
        entry.payment_method_types.map((type) => `${entry.payment_method}/${type.payment_method_type}`),
      );
    const UPI_COLLECT = ['upi/upi_collect', 'upi/upi_intent', 'upi/upi_qr'];
    // The spec's test simulator answers crypto on every account (EUR, USD, GBP; no country bound).
    const CRYPTO = ['crypto/crypto_currency'];
    const UPI_AND_CRYPTO = [...UPI_COLLECT, ...CRYPTO];

    test('secret key: the account-wide list, every response field of the spec, Hyperswitch entry shape', async () => {
      const body = await list().then(ok<Json>);
      expect(Object.keys(body).sort()).toEqual(
        [
          'redirect_url', 'currency', 'payment_methods', 'mandate_payment', 'merchant_name', 'checkout_branding', 'payment_method_order',
          'show_surcharge_breakup_screen', 'payment_type', 'request_external_three_ds_authentication', 'collect_shipping_details_from_wallets',
          'collect_billing_details_from_wallets', 'is_tax_calculation_enabled', 'sdk_next_action', 'is_guest_customer', 'intent_data',
          'card_checkout_config',
        ].sort(),
      );
      expect(body).toMatchObject({
        redirect_url: null,
        currency: null,
        payment_type: null,
        sdk_next_action: null,
        is_guest_customer: null,
        merchant_name: 'Rail Demo Merchant',
        payment_methods: [
          {
            payment_method: 'upi',
            payment_method_types: [
              {
                payment_method_type: 'upi_collect',
                payment_experience: [{ payment_experience_type: 'display_wait_screen', eligible_connectors: ['upi_simulator'] }],
                card_networks: null,
                bank_names: null,
                required_fields: { 'payment_method_data.upi.upi_collect.vpa_id': expect.objectContaining({ field_type: 'user_vpa_id' }) },
              },
              {
                payment_method_type: 'upi_intent',
                payment_experience: [{ payment_experience_type: 'invoke_payment_app', eligible_connectors: ['upi_simulator'] }],
                required_fields: null,
              },
              {
                payment_method_type: 'upi_qr',
                payment_experience: [{ payment_experience_type: 'display_qr_code', eligible_connectors: ['upi_simulator'] }],
                required_fields: null,
              },
            ],
          },
          { payment_method: 'crypto', payment_method_types: [{ payment_method_type: 'crypto_currency' }] },
        ],
      });
    });

    test.each([
      ['accepted_currencies=INR', UPI_COLLECT],
      ['accepted_currencies=USD', CRYPTO],
      ['accepted_currencies=USD,INR', UPI_AND_CRYPTO],
      ['accepted_currencies=USD&accepted_currencies=INR', UPI_AND_CRYPTO],
      ['accepted_currencies[]=INR', UPI_COLLECT],
      ['accepted_countries=IN', UPI_AND_CRYPTO],
      ['accepted_countries=KE', CRYPTO],
      ['accepted_countries[]=KE&accepted_countries[]=IN', UPI_AND_CRYPTO],
      ['recurring_enabled=true', []],
      ['recurring_enabled=false', UPI_AND_CRYPTO],
      ['installment_payment_enabled=true', []],
      ['installment_payment_enabled=false', UPI_AND_CRYPTO],
      ['amount=0', UPI_AND_CRYPTO],
      ['amount=9007199254740991', UPI_AND_CRYPTO],
      ['card_networks=Visa', UPI_AND_CRYPTO],
      ['limit=5', UPI_AND_CRYPTO],
    ])('default account, secret key, %s', async (query, expected) => {
      expect(methodsOf(await list(query).then(ok<Json>))).toEqual(expected);
    });

    test.each([
      ['accepted_countries=XX', 'accepted_countries'],
      ['accepted_countries[]=IN,ZZ', 'accepted_countries[]'],
      ['accepted_currencies=XXX', 'accepted_currencies'],
      ['amount=-1', 'amount'],
      ['amount=abc', 'amount'],
      ['amount=9007199254740992', 'amount'],
      ['recurring_enabled=yes', 'recurring_enabled'],
      ['installment_payment_enabled=1', 'installment_payment_enabled'],
      ['limit=1.5', 'limit'],
      ['card_networks=Bogus', 'card_networks'],
    ])('%s: ERR_2003', async (query, field) => {
      await expectError(await list(query), 'ERR_2003', field);
    });

    test('an unknown parameter: ERR_2004', async () => {
      await expectError(await list('colour=red'), 'ERR_2004', 'colour');
    });

    test('publishable key + client_secret: that payment (currency, redirect_url, payment_type, guest, next action)', async () => {
      const payment = await createPayment({ return_url: 'https://shop.example.com/back' });
      const body = await list(`client_secret=${payment.client_secret}`, h.publishableKey).then(ok<Json>);
      expect(body).toMatchObject({
        currency: 'INR',
        redirect_url: 'https://shop.example.com/back',
        payment_type: 'normal',
        is_guest_customer: true,
        sdk_next_action: { next_action: 'confirm' },
        request_external_three_ds_authentication: false,
      });
      expect(methodsOf(body)).toEqual(UPI_COLLECT);
    });

    test('a payment with a customer is not a guest; off-session payments are mandate payment types', async () => {
      const withCustomer = await createPayment({ customer_id: uniqueId('cus_pml'), request_external_three_ds_authentication: true });
      expect(await list(`client_secret=${withCustomer.client_secret}`, h.publishableKey).then(ok<Json>)).toMatchObject({
        is_guest_customer: false,
        request_external_three_ds_authentication: true,
      });
      const offSession = await createPayment({ setup_future_usage: 'off_session' });
      expect((await list(`client_secret=${offSession.client_secret}`, h.publishableKey).then(ok<Json>))['payment_type']).toBe('new_mandate');
      const setup = await createPayment({ amount: 0, setup_future_usage: 'off_session' });
      expect((await list(`client_secret=${setup.client_secret}`, h.publishableKey).then(ok<Json>))['payment_type']).toBe('setup_mandate');
    });

    test('the payment narrows the list: its currency, allowed_payment_method_types, and the query filters on top', async () => {
      const usd = await createPayment({ currency: 'USD' });
      expect(methodsOf(await list(`client_secret=${usd.client_secret}`, h.publishableKey).then(ok<Json>))).toEqual(CRYPTO);
      const jpy = await createPayment({ currency: 'JPY' });
      expect(methodsOf(await list(`client_secret=${jpy.client_secret}`, h.publishableKey).then(ok<Json>))).toEqual([]);
      const intentOnly = await createPayment({ allowed_payment_method_types: ['upi_intent'] });
      expect(methodsOf(await list(`client_secret=${intentOnly.client_secret}`, h.publishableKey).then(ok<Json>))).toEqual(['upi/upi_intent']);
      const inr = await createPayment();
      expect(methodsOf(await list(`client_secret=${inr.client_secret}&accepted_currencies=USD`, h.publishableKey).then(ok<Json>))).toEqual([]);
      expect(methodsOf(await list(`client_secret=${inr.client_secret}&accepted_countries=IN`, h.publishableKey).then(ok<Json>))).toEqual(UPI_COLLECT);
    });

    test('publishable key without client_secret: ERR_2001; unknown client_secret: ERR_1005', async () => {
      await expectError(await list('', h.publishableKey), 'ERR_2001', 'client_secret');
      await expectError(await list(`client_secret=pay_none_secret_${'a'.repeat(20)}`, h.publishableKey), 'ERR_1005', 'client_secret');
    });

    test('an expired client_secret: ERR_1006; a client_secret with a secret key: ERR_1007', async () => {
      const expired = await createPayment({ session_expiry: 0 });
      await expectError(await list(`client_secret=${expired.client_secret}`, h.publishableKey), 'ERR_1006', 'client_secret');
      const payment = await createPayment();
      await expectError(await list(`client_secret=${payment.client_secret}`), 'ERR_1007', 'client_secret');
    });
  });

  describe(`[${engine}] account payment methods on an account with every rail`, () => {
    let full: Harness;
    const NONE: RailCapabilities = { refunds: false, metadataUpdates: false, recurring: false, manualCapture: false, disputes: false };
    const standIn = (rail: RailAdapter['rail'], offers: Partial<Record<Currency, [PaymentMethod, PaymentMethodType][]>>): RailAdapter => ({
      rail,
      connector: `${rail}_stand_in`,
      paymentMethodTypes: (currency) => (offers[currency] ?? []).map(([paymentMethod, paymentMethodType]) => ({ paymentMethod, paymentMethodType })),
      authorize: async () => {
        throw new Error('not used');
      },
      sync: async () => {
        throw new Error('not used');
      },
    });
    const settings: AccountSettings = {
      ...DEFAULT_ACCOUNT_SETTINGS,
      rails: [
        { rail: 'upi', currencies: ['INR'], modes: ['test'], capabilities: { test: NONE, live: NONE }, maximumAmount: 10_000_000 },
        { rail: 'bank_transfer', currencies: ['KES', 'GHS'], modes: ['test'], capabilities: { test: NONE, live: NONE }, minimumAmount: 100 },
        { rail: 'crypto', currencies: ['EUR', 'USD', 'GBP'], modes: ['test'], capabilities: { test: { ...NONE, recurring: true }, live: NONE } },
        { rail: 'card', currencies: ['USD'], modes: ['test'], capabilities: { test: NONE, live: NONE } },
      ],
    };

    beforeAll(async () => {
      full = await createHarness(engine, {
        settings,
        testAdapters: {
          bank_transfer: standIn('bank_transfer', { KES: [['bank_transfer', 'local_bank_transfer']], GHS: [['bank_transfer', 'local_bank_transfer']] }),
          crypto: standIn('crypto', { EUR: [['crypto', 'crypto_currency']], USD: [['crypto', 'crypto_currency']], GBP: [['crypto', 'crypto_currency']] }),
          card: standIn('card', { USD: [['card', 'credit'], ['card', 'debit']] }),
        },
      });
    });
    afterAll(async () => {
      await full?.close();
    });

    const listFull = async (query = '') => {
      const response = await full.app.request(`/account/payment_methods${query === '' ? '' : `?${query}`}`, { headers: { 'api-key': full.secretKey } });
      return ok<Json>(response);
    };
    const methodsOf = (body: Json) =>
      (body['payment_methods'] as { payment_method: string; payment_method_types: { payment_method_type: string }[] }[]).flatMap((entry) =>
        entry.payment_method_types.map((type) => `${entry.payment_method}/${type.payment_method_type}`),
      );
    const ALL = ['upi/upi_collect', 'upi/upi_intent', 'upi/upi_qr', 'bank_transfer/local_bank_transfer', 'crypto/crypto_currency', 'card/credit', 'card/debit'];

    test.each([
      ['', ALL],
      ['accepted_currencies=KES', ['bank_transfer/local_bank_transfer']],
      ['accepted_currencies=USD', ['crypto/crypto_currency', 'card/credit', 'card/debit']],
      ['accepted_countries=KE', ['bank_transfer/local_bank_transfer', 'crypto/crypto_currency', 'card/credit', 'card/debit']],
      ['accepted_countries=IN', ['upi/upi_collect', 'upi/upi_intent', 'upi/upi_qr', 'crypto/crypto_currency', 'card/credit', 'card/debit']],
      ['recurring_enabled=true', ['crypto/crypto_currency']],
      ['recurring_enabled=false', ['upi/upi_collect', 'upi/upi_intent', 'upi/upi_qr', 'bank_transfer/local_bank_transfer', 'card/credit', 'card/debit']],
      ['amount=50', ['upi/upi_collect', 'upi/upi_intent', 'upi/upi_qr', 'crypto/crypto_currency', 'card/credit', 'card/debit']],
      ['amount=10000001', ['bank_transfer/local_bank_transfer', 'crypto/crypto_currency', 'card/credit', 'card/debit']],
    ])('%s', async (query, expected) => {
      expect(methodsOf(await listFull(query))).toEqual(expected);
    });

    test('cards list their networks; card_networks keeps only the networks asked for', async () => {
      const all = await listFull();
      const card = (all['payment_methods'] as Json[]).find((entry) => entry['payment_method'] === 'card') as Json;
      const credit = (card['payment_method_types'] as Json[])[0] as Json;
      expect((credit['card_networks'] as Json[]).map((network) => network['card_network'])).toContain('RuPay');
      const narrowed = await listFull('card_networks=Visa,RuPay');
      const narrowedCard = (narrowed['payment_methods'] as Json[]).find((entry) => entry['payment_method'] === 'card') as Json;
      expect(narrowedCard['payment_method_types']).toEqual([
        expect.objectContaining({
          payment_method_type: 'credit',
          card_networks: [
            { card_network: 'Visa', surcharge_details: null, eligible_connectors: ['card_stand_in'] },
            { card_network: 'RuPay', surcharge_details: null, eligible_connectors: ['card_stand_in'] },
          ],
        }),
        expect.objectContaining({ payment_method_type: 'debit' }),
      ]);
      expect(methodsOf(narrowed)).toEqual(ALL);
    });
  });
});
