/**
 * The authorization matrix: docs/authorization.md has one row per route and one column per kind of credential.
 * This test requires a row for every route the app registers (and no row for a route it does not), then sends every
 * cell's request and compares the answer with the table. Authorization is decided above the store, so one engine
 * (SQLite) is enough here; the family suites run both.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ErrorCode } from '../../../protocol/errors';
import { keyPrefix } from '../core/accounts/bootstrap';
import { DEFAULT_KEY_SCOPES } from '../../../protocol/api/keys';
import { hashSecret } from '../core/auth/secrets';
import { apiRequest, insertLiveSecretKey, type ApiRequestOptions } from '../test-support/api-assertions';
import { issueApiKey } from '../core/api-keys/issue-api-key';
import { totpCode, totpStep } from '../core/auth/totp';
import { multipartBody } from '../test-support/multipart';
import { createHarness, type Harness } from '../test-support/harness';
import { AUTHORIZATION_CODES, CREDENTIALS, type Credential, readAuthorizationTable } from '../test-support/authorization-table';

type Expected = 'allowed' | 'n/a' | ErrorCode;

/** The credentials of the merchant's own server: they own every payment of their account and mode. */
const SECRET_KEYS = new Set<string>(['secret key', 'secret key + client_secret', 'live secret key', 'rotating key']);

function readTable(): Map<string, Record<Credential, Expected>> {
  const { header, rows: tableRows } = readAuthorizationTable();
  expect(header).toEqual([...CREDENTIALS]);
  const rows = new Map<string, Record<Credential, Expected>>();
  for (const { route, cells } of tableRows) {
    expect(rows.has(route), `${route} appears twice`).toBe(false);
    rows.set(route, cells as Record<Credential, Expected>);
  }
  return rows;
}

/** Where a route carries the client_secret when it takes one. */
const CLIENT_SECRET_IN: Record<string, 'body' | 'query'> = {
  'GET /payments/{payment_id}': 'query',
  'POST /payments/{payment_id}': 'body',
  'POST /payments/{payment_id}/confirm': 'body',
  'POST /payments/{payment_id}/eligibility': 'body',
  'POST /payments/session_tokens': 'body',
  'POST /payments/{payment_id}/3ds/authentication': 'body',
  'POST /payments/{payment_id}/complete_authorize': 'body',
  'POST /payments/{payment_id}/post_session_tokens': 'body',
  'GET /poll/status/{poll_id}': 'query',
  'GET /account/payment_methods': 'query',
  'POST /vault/tokens': 'body',
  'GET /customers/payment_methods': 'query',
  'POST /payment_methods/{method_id}/update': 'body',
};

interface Sample {
  path: string;
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
  form?: string;
  /** A multipart/form-data body (the upload routes). */
  multipart?: { body: string; contentType: string };
  /** The payment whose client_secret the cell presents (or must not see in the answer). */
  payment?: { payment_id: string; client_secret: string };
}

const UPI_SUCCESS = { payment_method: 'upi', payment_method_type: 'upi_collect', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } };

describe('authorization matrix (docs/authorization.md)', () => {
  let h: Harness;
  const table = readTable();
  const keys = {} as Record<'unknown' | 'revoked' | 'ephemeral' | 'live' | 'rotating', string>;
  let customerOfEphemeralKey: string;
  let succeeded: { payment_id: string; client_secret: string };
  let refundId: string;
  let eventId: string;

  const json = async <T = Record<string, unknown>>(response: Response): Promise<T> => {
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as T;
  };
  const newPayment = async () => json<{ payment_id: string; client_secret: string }>(await apiRequest(h, 'POST', '/payments', { body: { amount: 10_000, currency: 'INR' } }));
  const newCustomer = async () => (await json<{ customer_id: string }>(await apiRequest(h, 'POST', '/customers', { body: { name: 'Matrix' } }))).customer_id;

  beforeAll(async () => {
    h = await createHarness('sqlite');
    const revoked = `rail_full_test_${'r'.repeat(40)}`;
    await h.store.apiKeys.insertApiKey({
      keyId: 'key_matrix_revoked',
      accountId: h.boot.account.accountId,
      mode: 'test',
      keyType: 'full',
      name: 'revoked',
      prefix: keyPrefix(revoked),
      keyHash: hashSecret(revoked),
      createdAt: h.clock.now(),
      revokedAt: h.clock.now(),
      expiresAt: null,
      scopes: DEFAULT_KEY_SCOPES,
      replacesKeyId: null,
    });
    keys.revoked = revoked;
    keys.live = await insertLiveSecretKey(h, { fill: 'L', keyId: 'key_matrix_live' });
    const rotating = issueApiKey(h.core.ids, {
      accountId: h.boot.account.accountId,
      mode: 'test',
      keyType: 'full',
      name: 'rotating',
      scopes: DEFAULT_KEY_SCOPES,
      replacesKeyId: null,
      createdAt: h.clock.now(),
    });
    await h.store.apiKeys.insertApiKey({ ...rotating.record, expiresAt: new Date(h.clock.now().getTime() + 30 * 86_400_000) });
    keys.rotating = rotating.plaintext;
    keys.unknown = `rail_full_test_${'u'.repeat(40)}`;
    customerOfEphemeralKey = await newCustomer();
    keys.ephemeral = (await json<{ secret: string }>(await apiRequest(h, 'POST', '/ephemeral_keys', { body: { customer_id: customerOfEphemeralKey } }))).secret;
    succeeded = await newPayment();
    await json(await apiRequest(h, 'POST', `/payments/${succeeded.payment_id}/confirm`, { body: UPI_SUCCESS }));
    refundId = (await json<{ refund_id: string }>(await apiRequest(h, 'POST', '/refunds', { body: { payment_id: succeeded.payment_id, amount: 100 } }))).refund_id;
    eventId = (await json<{ data: { event_id: string }[] }>(await apiRequest(h, 'GET', '/events'))).data[0]!.event_id;
  });
  afterAll(async () => h?.close());

  /** A request of the route that its owner could send, on objects made for it. */
  async function sampleOf(route: string): Promise<Sample> {
    const [method, template] = route.split(' ') as [string, string];
    const payment = template.includes('{payment_id}') || CLIENT_SECRET_IN[route] !== undefined ? await newPayment() : undefined;
    const fill = async (path: string): Promise<string> => {
      if (path.includes('{poll_id}')) {
        await json(await apiRequest(h, 'POST', `/payments/${payment!.payment_id}/confirm`, { body: { ...UPI_SUCCESS, payment_method_data: { upi: { upi_collect: { vpa_id: 'pending@upi' } } } } }));
        return path.replace('{poll_id}', `poll_${payment!.payment_id}`);
      }
      if (path.includes('{customer_id}')) return path.replace('{customer_id}', route === 'GET /customers/{customer_id}' ? customerOfEphemeralKey : await newCustomer());
      if (path.includes('{id}')) {
        const customer = await newCustomer();
        const key = await json<{ id: string }>(await apiRequest(h, 'POST', '/ephemeral_keys', { body: { customer_id: customer } }));
        return path.replace('{id}', key.id);
      }
      const filled = path.replace('{dispute_id}', 'dp_matrix').replace('{file_id}', 'file_matrix').replace('{payment_id}', payment?.payment_id ?? '').replace('{refund_id}', refundId).replace('{event_id}', eventId);
      // Any other object: an id that names nothing, whose route answers its not-found error once authorized.
      return filled.replace(/\{([a-z_]+)\}/g, (_, name: string) => `unknown_${name}`);
    };
    const path = await fill(template);
    const bodies: Record<string, Record<string, unknown>> = {
      'POST /payments': { amount: 100, currency: 'INR' },
      'POST /payments/{payment_id}': { description: 'changed' },
      'POST /payments/{payment_id}/confirm': UPI_SUCCESS,
      'POST /payments/{payment_id}/cancel': { cancellation_reason: 'matrix' },
      'POST /payments/{payment_id}/cancel_post_capture': { cancellation_reason: 'matrix' },
      'POST /payments/{payment_id}/capture': {},
      'POST /payments/{payment_id}/incremental_authorization': { amount: 20_000 },
      'POST /payments/{payment_id}/update_metadata': { metadata: { order: '1' } },
      'POST /payments/{payment_id}/eligibility': { payment_method_type: 'upi', payment_method_data: UPI_SUCCESS.payment_method_data },
      'POST /payments/session_tokens': { payment_id: payment?.payment_id ?? '', wallets: ['google_pay'] },
      'POST /payments/{payment_id}/3ds/authentication': { device_channel: 'BRW', threeds_method_comp_ind: 'N' },
      'POST /payments/{payment_id}/post_session_tokens': { payment_method: 'wallet', payment_method_type: 'paypal' },
      'POST /three_ds_decision/execute': { routing_id: 'rail_3ds_default', payment: { amount: 1_000, currency: 'EUR' } },
      'POST /vault/tokens': { card_number: '4242424242424242', card_exp_month: '12', card_exp_year: '2030', card_cvc: '123' },
      'POST /customers': { name: 'Matrix' },
      'POST /payment_methods': { payment_method: 'upi', payment_method_type: 'upi_collect' },
      'POST /payment_methods/{method_id}/update': { wallet: {} },
      'POST /subscriptions': { item_price_id: 'price_matrix', customer_id: customerOfEphemeralKey, payment_details: {} },
      'POST /subscriptions/create': { item_price_id: 'price_matrix', customer_id: customerOfEphemeralKey, payment_details: {} },
      'POST /subscriptions/{subscription_id}/confirm': { payment_details: {} },
      'PUT /subscriptions/{subscription_id}/update': { plan_id: 'plan_matrix', item_price_id: 'price_matrix' },
      'POST /customers/{customer_id}': { name: 'Matrix 2' },
      'POST /ephemeral_keys': { customer_id: customerOfEphemeralKey },
      'POST /refunds': { payment_id: succeeded.payment_id, amount: 100 },
      'POST /refunds/list': { start_time: '2020-01-01T00:00:00Z' },
      'POST /refunds/{refund_id}': { reason: 'matrix' },
      'POST /events/{event_id}/retry': {},
      'POST /demo/payments': {},
      'POST /collect/collections': { amount: '10.00', currency: 'KES', country: 'KE', method: 'mobile_money', customer_reference: 'matrix', phone_number: '+254700000001' },
      'POST /collect/settlements': { amount: '1.00', currency: 'KES', wallet: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' },
      'POST /disputes/evidence': { dispute_id: 'dp_matrix', uncategorized_text: 'matrix' },
      'DELETE /disputes/evidence': { dispute_id: 'dp_matrix', evidence_type: 'receipt' },
      'POST /simulator/disputes': { payment_id: succeeded.payment_id },
      'POST /simulator/disputes/{dispute_id}/outcome': { outcome: 'won' },
      'POST /v1/api-keys': { name: 'matrix' },
      'PUT /v1/collect/wallet': { network: 'tron', address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' },
      'POST /v1/operators/invitations': { email: 'matrix@example.com' },
      'POST /v1/webhook-endpoints': { url: 'http://127.0.0.1:9/hooks' },
      'POST /v1/webhook-endpoints/{id}': { enabled: true },
    };
    const sample: Sample = { path, ...(payment ? { payment } : {}) };
    if (route === 'POST /vault/tokens') sample.headers = { origin: 'http://127.0.0.1:8081' };
    const uploads: Record<string, Record<string, string>> = {
      'POST /files': { purpose: 'dispute_evidence', dispute_id: 'dp_matrix' },
      'PUT /disputes/evidence': { dispute_id: 'dp_matrix', evidence_type: 'receipt' },
    };
    const upload = uploads[route];
    if (upload !== undefined) {
      const fields = Object.entries(upload).map(([name, value]) => ({ name, value }));
      const { body, contentType } = multipartBody([...fields, { name: 'file', filename: 'matrix.pdf', contentType: 'application/pdf', bytes: Buffer.from('%PDF-1.4 matrix') }]);
      sample.multipart = { body: body.toString('latin1'), contentType };
    } else if (route.startsWith('POST /simulator/') && !route.startsWith('POST /simulator/disputes') && !route.startsWith('POST /simulator/subscriptions')) sample.form = 'decision=complete&account=acc&challenge=none';
    else if (method === 'POST' || bodies[route] !== undefined) sample.body = bodies[route] ?? {};
    return sample;
  }

  /** A new operator session for one request (a request may end it), verified with a fresh code for the step-up column. */
  async function sessionFor(credential: Credential): Promise<string> {
    const { email, password, totpSecret } = h.boot.createdOperator!;
    const { session_token } = await json<{ session_token: string }>(await apiRequest(h, 'POST', '/v1/sessions', { key: null, body: { email, password } }));
    if (credential === 'operator session + step-up') {
      // Each code is good once; the matrix verifies many times within one 30-second step.
      await h.db.updateTable('operators').set({ totp_last_step: null }).execute();
      const code = totpCode(totpSecret, totpStep(h.clock.now()));
      await json(await apiRequest(h, 'POST', '/v1/sessions/verify', { key: null, headers: { authorization: `Bearer ${session_token}` }, body: { code } }));
    }
    return session_token;
  }

  function keyOf(credential: Credential): string | null {
    if (credential === 'no key' || credential.startsWith('operator session')) return null;
    if (credential === 'live secret key') return keys.live;
    if (credential === 'rotating key') return keys.rotating;
    if (credential === 'malformed key') return 'rail_nope';
    if (credential === 'unknown key') return keys.unknown;
    if (credential === 'revoked key') return keys.revoked;
    if (credential === 'ephemeral key') return keys.ephemeral;
    return credential.startsWith('secret') ? h.secretKey : h.publishableKey;
  }

  function clientSecretOf(credential: Credential, sample: Sample): string | undefined {
    if (!credential.endsWith('client_secret') || sample.payment === undefined) return undefined;
    return credential.includes('wrong') ? `${sample.payment.payment_id}_secret_${'W'.repeat(20)}` : sample.payment.client_secret;
  }

  async function send(
    route: string,
    credential: Credential,
    extraQuery = '',
    extraBody?: Record<string, unknown>,
  ): Promise<{ outcome: string; text: string; sample: Sample; presented: boolean }> {
    const sample = await sampleOf(route);
    const method = route.split(' ')[0]!;
    const clientSecret = clientSecretOf(credential, sample);
    let path = sample.path + extraQuery;
    const options: ApiRequestOptions = { key: keyOf(credential), headers: { ...sample.headers } };
    if (credential.startsWith('operator session')) options.headers!['authorization'] = `Bearer ${await sessionFor(credential)}`;
    if (sample.body !== undefined || extraBody !== undefined) {
      options.body = { ...sample.body, ...(clientSecret !== undefined && CLIENT_SECRET_IN[route] === 'body' ? { client_secret: clientSecret } : {}), ...extraBody };
    }
    if (clientSecret !== undefined && CLIENT_SECRET_IN[route] === 'query') path += `${path.includes('?') ? '&' : '?'}client_secret=${clientSecret}`;
    if (sample.multipart !== undefined) {
      options.raw = sample.multipart.body;
      options.headers!['content-type'] = sample.multipart.contentType;
    }
    if (sample.form !== undefined) {
      options.raw = sample.form;
      options.headers!['content-type'] = 'application/x-www-form-urlencoded';
    }
    const response = await apiRequest(h, method, path, options);
    const text = await response.text();
    let code: string | undefined;
    let field: string | undefined;
    try {
      const error = (JSON.parse(text) as { error?: { code?: string; field_name?: string } }).error;
      code = error?.code;
      field = error?.field_name;
    } catch {
      code = undefined;
    }
    const refused = code !== undefined && (AUTHORIZATION_CODES.has(code) || (code === 'ERR_2001' && field === 'client_secret'));
    return { outcome: refused ? code! : 'allowed', text, sample, presented: clientSecret !== undefined };
  }

  test('every route of the API refuses an unknown query parameter the same way (ERR_2004 naming it)', async () => {
    for (const [route, expected] of table) {
      if (route.includes('/simulator/') || route.includes('/demo') || route === 'GET /openapi.json') continue; // pages and documents, not operations
      // An ephemeral key only where nothing else is allowed (setting a customer's default method).
      const credential =
        CREDENTIALS.find((candidate) => expected[candidate] === 'allowed' && candidate !== 'no key' && candidate !== 'ephemeral key') ??
        (expected['ephemeral key'] === 'allowed' ? 'ephemeral key' : undefined);
      // Operator-session routes take no API key: keys.api.test.ts sends them the unknown parameter with a session.
      if (credential === undefined) continue;
      const { text } = await send(route, credential, '?unknown_param=1');
      expect(JSON.parse(text), `${route} with ${credential}`).toMatchObject({ error: { code: 'ERR_2004', field_name: 'unknown_param' } });
    }
  });

  test('every POST and PUT operation with a JSON body, or none, refuses an unknown body field the same way (ERR_2004 naming it)', async () => {
    const accepting: string[] = [];
    for (const [route, expected] of table) {
      const method = route.split(' ')[0]!;
      if (method !== 'POST' && method !== 'PUT') continue;
      if (route.includes('/simulator/') || route.includes('/demo')) continue; // pages, and the demo's own backend
      const sample = await sampleOf(route);
      if (sample.multipart !== undefined || sample.form !== undefined) continue; // forms are read field by field (multipart.ts)
      const credential = CREDENTIALS.find((candidate) => expected[candidate] === 'allowed');
      if (credential === undefined) continue;
      const { text } = await send(route, credential, '', { unknown_body_field: 1 });
      const error = (JSON.parse(text) as { error?: { code?: string; field_name?: string } }).error;
      if (error?.code !== 'ERR_2004' || error.field_name !== 'unknown_body_field') accepting.push(`${route} with ${credential}: ${text.slice(0, 160)}`);
    }
    expect(accepting).toEqual([]);
  });

  test('the table has one row per route of the app, and every route has a row', () => {
    const routes = new Set(
      h.app.routes.filter((route) => route.method !== 'ALL').map((route) => `${route.method} ${route.path.replace(/:([a-z_]+)/g, '{$1}')}`),
    );
    expect([...table.keys()].sort()).toEqual([...routes].sort());
  });

  for (const [route, expected] of table) {
    test(route, async () => {
      for (const credential of CREDENTIALS) {
        if (expected[credential] === 'n/a') continue;
        const { outcome, text, sample, presented } = await send(route, credential);
        expect(`${credential}: ${outcome}`, text).toBe(`${credential}: ${expected[credential]}`);
        // A client_secret reaches only a caller that presented it (a secret-key caller owns the payment).
        if (!presented && sample.payment !== undefined && !SECRET_KEYS.has(credential)) {
          expect(text, `${credential} was shown the client_secret`).not.toContain(sample.payment.client_secret);
        }
      }
    });
  }
});
