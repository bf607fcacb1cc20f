/**
 * The Collect API on SQLite and PostgreSQL: collections through the simulator (numbers, the payer page, expiry),
 * the derived balance, settlements to the saved wallet only with exact amounts, their outcomes and events, the
 * Idempotency-Key on both POSTs, and concurrent settlements that can never overdraw one balance.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { BalanceResponse, CollectionResponse, SettlementResponse } from '../../../../../protocol/api/collect';
import { DEFAULT_ACCOUNT_SETTINGS } from '../../../core/accounts/account-settings';
import { COLLECTION_VALIDITY_MS, CREDIT_AFTER_MS, PAYER_ANSWERS_AFTER_MS, SETTLEMENT_COMPLETES_AFTER_MS } from '../../../rails/simulator/collect-simulator';
import { apiRequest, expectApiError, expectOk, insertLiveSecretKey } from '../../../test-support/api-assertions';
import { forEachEngine } from '../../../test-support/engines';
import { totpCode, totpStep } from '../../../core/auth/totp';
import { authenticateApiKey } from '../../../core/auth/auth';
import { IDEMPOTENCY_LEASE_MS } from '../../../core/auth/idempotency';
import { requestSettlement } from '../../../core/collect/request-settlement';
import { advanceDueCollect, applyCollectionStep, DUE_BATCH } from '../../../core/collect/advance-collect';
import { ApiError } from '../../../core/shared/errors';
import { createHarness, type Harness } from '../../../test-support/harness';

const WALLET = { network: 'tron' as const, address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' };
const MOMO = (phone: string, amount = '1500.00') => ({ amount, currency: 'KES', country: 'KE', method: 'mobile_money', customer_reference: 'order-1', phone_number: phone });

forEachEngine('Collect API', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(engine, { settings: { ...DEFAULT_ACCOUNT_SETTINGS, usdtWallet: WALLET }, poolSize: 10 });
  });
  afterAll(async () => h?.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => apiRequest(h, 'POST', path, { body, headers });
  const get = (path: string) => apiRequest(h, 'GET', path);
  const collect = async (body: unknown) => expectOk<CollectionResponse>(await post('/collect/collections', body));
  const balance = async () => expectOk<BalanceResponse>(await get('/collect/balance'));
  const kes = (b: BalanceResponse) => b.by_corridor.find((corridor) => corridor.currency === 'KES')!;
  const eventsOf = async (objectId: string) =>
    (await h.store.outbox.listEventsForObject({ accountId: h.boot.account.accountId, mode: 'test' }, objectId)).map((event) => event.eventType);
  /** The crash between an effect's commit and its stored answer: the key left in flight, its lease run out. */
  const crashBeforeTheAnswerWasStored = async (key: string) => {
    await h.db
      .updateTable('idempotency_keys')
      .set({ status: 'in_flight', response_status: null, response_headers: null, response_body: null, locked_at: h.clock.now().toISOString() })
      .where('idempotency_key', '=', key)
      .execute();
    h.clock.advance(IDEMPOTENCY_LEASE_MS + 1);
  };
  /** A credited KES collection of `amount`. */
  const credited = async (amount: string) => {
    const created = await collect(MOMO('+254700000001', amount));
    h.clock.advance(PAYER_ANSWERS_AFTER_MS + CREDIT_AFTER_MS);
    expect((await expectOk<CollectionResponse>(await get(`/collect/collections/${created.collection_id}`))).status).toBe('credited');
    return created;
  };

  describe(`[${engine}] collections`, () => {
    test('mobile money: pending with the prompt, received, then credited, each step with its event', async () => {
      const created = await collect(MOMO('+254 700 000 001'));
      expect(created).toMatchObject({ status: 'pending', amount: '1500.00', currency: 'KES', country: 'KE', method: 'mobile_money', customer_reference: 'order-1' });
      expect(created.collection_id).toMatch(/^col_[A-Za-z0-9]{20}$/);
      expect(created.instructions).toMatchObject({ type: 'mobile_money_prompt', phone_number: '+254700000001' });
      h.clock.advance(PAYER_ANSWERS_AFTER_MS);
      const received = await expectOk<CollectionResponse>(await get(`/collect/collections/${created.collection_id}`));
      expect(received.status).toBe('received');
      expect(kes(await balance()).pending).toBe('1500.00');
      h.clock.advance(CREDIT_AFTER_MS);
      const done = await expectOk<CollectionResponse>(await get(`/collect/collections/${created.collection_id}`));
      expect(done).toMatchObject({ status: 'credited', credited_at: expect.any(String) });
      expect(await eventsOf(created.collection_id)).toEqual(['collection.received', 'collection.credited']);
    });

    test('a number ending 0002 declines; an unanswered collection expires; neither reaches the balance', async () => {
      const before = kes(await balance());
      const declined = await collect(MOMO('+254700000002'));
      const waiting = await collect({ amount: '10', currency: 'UGX', country: 'UG', method: 'bank_transfer', customer_reference: 'inv-9' });
      expect(waiting.instructions).toMatchObject({ type: 'bank_transfer', reference: expect.stringMatching(/^RAIL/) });
      h.clock.advance(COLLECTION_VALIDITY_MS);
      expect((await expectOk<CollectionResponse>(await get(`/collect/collections/${declined.collection_id}`))).status).toBe('failed');
      expect((await expectOk<CollectionResponse>(await get(`/collect/collections/${waiting.collection_id}`))).status).toBe('expired');
      expect(kes(await balance())).toEqual(before);
      expect(await eventsOf(declined.collection_id)).toEqual([]);
    });

    test('the simulator page plays the payer: only with its challenge, only while pending', async () => {
      const created = await collect(MOMO('+254711111111'));
      const url = new URL(created.instructions.simulator_url!);
      const challenge = url.searchParams.get('challenge')!;
      const page = await h.app.request(`${url.pathname}${url.search}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('1500.00 KES');
      const answer = (decision: string, secret = challenge) =>
        h.app.request(url.pathname, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `decision=${decision}&challenge=${encodeURIComponent(secret)}` });
      await expectApiError(await answer('pay', `${challenge.split('.')[0]}.wrong`), 'ERR_4070');
      // Whatever a stranger posts answers 4xx, never 5xx: a NUL (which PostgreSQL text cannot hold), in the account part too.
      await expectApiError(await answer('pay', `${challenge}\u0000`), 'ERR_4070');
      await expectApiError(await answer('pay', `\u0000${challenge}`), 'ERR_4070');
      expect((await answer('pay')).status).toBe(200);
      expect((await expectOk<CollectionResponse>(await get(`/collect/collections/${created.collection_id}`))).status).toBe('received');
      await expectApiError(await answer('fail'), 'ERR_4070');
    });

    test("the payer's link and page name the merchant, never its account", async () => {
      const accountId = h.boot.account.accountId;
      const transfer = { amount: '10', currency: 'UGX', country: 'UG', method: 'bank_transfer', customer_reference: 'inv-10' };
      for (const created of [await collect(MOMO('+254744444444')), await collect(transfer)]) {
        const link = created.instructions.simulator_url!;
        expect(link).not.toContain(accountId);
        const url = new URL(link);
        const page = await h.app.request(`${url.pathname}${url.search}`);
        expect(page.status).toBe(200);
        const shown = await page.text();
        expect(shown).not.toContain(accountId);
        expect(shown).toContain(`to <strong>${DEFAULT_ACCOUNT_SETTINGS.merchantName}</strong>`);
        const challenge = url.searchParams.get('challenge')!;
        const answered = await h.app.request(url.pathname, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `decision=pay&challenge=${encodeURIComponent(challenge)}` });
        expect(answered.status).toBe(200);
        expect(await answered.text()).not.toContain(accountId);
      }
    });

    test('the simulator page cannot answer an expired collection, even before any read or sweep marked it expired', async () => {
      const created = await collect(MOMO('+254722222222'));
      const url = new URL(created.instructions.simulator_url!);
      const challenge = url.searchParams.get('challenge')!;
      const answer = (decision: string) =>
        h.app.request(url.pathname, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `decision=${decision}&challenge=${encodeURIComponent(challenge)}` });
      h.clock.advance(COLLECTION_VALIDITY_MS);
      await expectApiError(await answer('pay'), 'ERR_4070');
      await expectApiError(await answer('fail'), 'ERR_4070');
      await expectApiError(await h.app.request(`${url.pathname}${url.search}`), 'ERR_4070');
      h.clock.advance(PAYER_ANSWERS_AFTER_MS + CREDIT_AFTER_MS);
      expect(await expectOk<CollectionResponse>(await get(`/collect/collections/${created.collection_id}`))).toMatchObject({ status: 'expired', received_at: null });
      expect(await eventsOf(created.collection_id)).toEqual([]);
    });

    test("a payer's answer is written only if the collection has not expired at the moment of the write", async () => {
      const created = await collect(MOMO('+254733333333'));
      const scope = { accountId: h.boot.account.accountId, mode: 'test' as const };
      const expiresAt = new Date(created.expires_at);
      const stored = (await h.store.collections.findCollection(scope, created.collection_id))!;
      const late = await applyCollectionStep(h.core, stored, 'payer_approved', { receivedAt: expiresAt }, expiresAt);
      expect(late.status).toBe('pending');
      expect((await h.store.collections.findCollection(scope, created.collection_id))?.status).toBe('pending');
      const justBefore = new Date(expiresAt.getTime() - 1);
      const inTime = await applyCollectionStep(h.core, stored, 'payer_approved', { receivedAt: justBefore }, justBefore);
      expect(inTime.status).toBe('received');
    });

    test('bad input is refused at the edge, naming the field', async () => {
      await expectApiError(await post('/collect/collections', { ...MOMO('+254700000001'), currency: 'UGX' }), 'ERR_2003', 'currency');
      await expectApiError(await post('/collect/collections', MOMO('+254700000001', '10.001')), 'ERR_2003', 'amount');
      await expectApiError(await post('/collect/collections', MOMO('+254700000001', '0')), 'ERR_2003', 'amount');
      await expectApiError(await post('/collect/collections', MOMO('+254700000001', '1e5')), 'ERR_2003', 'amount');
      // Past 2^53 minor units the amount is refused for its size, not for decimals it does not have.
      for (const [path, body] of [
        ['/collect/collections', MOMO('+254700000001', '90071992547409.92')],
        ['/collect/settlements', { amount: '100000000000000', currency: 'KES', wallet: WALLET.address }],
      ] as const) {
        const tooLarge = await expectApiError(await post(path, body), 'ERR_2003', 'amount');
        expect(tooLarge['message']).toContain('amount is too large: at most 90071992547409.91 KES');
      }
      await expectApiError(await post('/collect/collections', { ...MOMO('+254700000001'), phone_number: undefined }), 'ERR_2001', 'phone_number');
      await expectApiError(await post('/collect/collections', { ...MOMO('+254700000001'), colour: 'red' }), 'ERR_2004', 'colour');
      await expectApiError(await get('/collect/collections/col_unknown'), 'ERR_4071');
    });

    test('Idempotency-Key: a retry replays, another body is refused, a storm creates one collection', async () => {
      const key = { 'idempotency-key': `collect-${engine}-1` };
      const first = await expectOk<CollectionResponse>(await post('/collect/collections', MOMO('+254700000001', '12.00'), key));
      const again = await expectOk<CollectionResponse>(await post('/collect/collections', MOMO('+254700000001', '12.00'), key));
      expect(again.collection_id).toBe(first.collection_id);
      await expectApiError(await post('/collect/collections', MOMO('+254700000001', '13.00'), key), 'ERR_4091');

      const storm = { 'idempotency-key': `collect-${engine}-storm` };
      const responses = await Promise.all(Array.from({ length: 20 }, () => post('/collect/collections', MOMO('+254700000001', '7.00'), storm)));
      const ids = new Set<string>();
      for (const response of responses) {
        expect([200, 409]).toContain(response.status);
        if (response.status === 200) ids.add(((await response.json()) as CollectionResponse).collection_id);
      }
      const replay = await expectOk<CollectionResponse>(await post('/collect/collections', MOMO('+254700000001', '7.00'), storm));
      expect([...ids]).toEqual([replay.collection_id]);
      const rows = await h.db.selectFrom('collections').select('collection_id').where('amount', '=', 700).execute();
      expect(rows).toHaveLength(1);
    });

    test("a crashed create's Idempotency-Key retry answers the collection the first run made, as a read would: expired once past its expiry", async () => {
      const key = `collect-${engine}-crash`;
      const body = MOMO('+254744444444', '31.00');
      const first = await expectOk<CollectionResponse>(await post('/collect/collections', body, { 'idempotency-key': key }));
      await crashBeforeTheAnswerWasStored(key);
      h.clock.advance(COLLECTION_VALIDITY_MS);
      const retried = await expectOk<CollectionResponse>(await post('/collect/collections', body, { 'idempotency-key': key }));
      expect(retried).toMatchObject({ collection_id: first.collection_id, status: 'expired' });
      expect(await h.db.selectFrom('collections').select('collection_id').where('amount', '=', 3100).execute()).toHaveLength(1);
    });

    test('a live key: ERR_3010 on every Collect operation (no live provider)', async () => {
      const live = await insertLiveSecretKey(h, { fill: 'C', keyId: `key_live_collect_${engine}` });
      await expectApiError(await apiRequest(h, 'POST', '/collect/collections', { key: live, body: MOMO('+254700000001') }), 'ERR_3010');
      await expectApiError(await apiRequest(h, 'GET', '/collect/balance', { key: live }), 'ERR_3010');
      await expectApiError(await apiRequest(h, 'GET', '/collect/collections/col_x', { key: live }), 'ERR_3010');
      await expectApiError(await apiRequest(h, 'POST', '/collect/settlements', { key: live, body: { amount: '1', currency: 'KES', wallet: WALLET.address } }), 'ERR_3010');
    });
  });

  describe(`[${engine}] settlements`, () => {
    test('holds its gross amount while processing; completes with the exact fee, rate, net USDT and an on-chain reference', async () => {
      await credited('1295.00');
      const before = kes(await balance());
      const settlement = await expectOk<SettlementResponse>(await post('/collect/settlements', { amount: '1295.00', currency: 'KES', wallet: WALLET.address }));
      // 1 % fee rounded up: 12.95; net 1282.05 KES at 129.50 KES/USDT = 9.9 USDT exactly.
      expect(settlement).toMatchObject({
        status: 'processing',
        gross_amount: '1295.00',
        fee: '12.95',
        conversion: { from: 'KES', to: 'USDT', rate: '129.50' },
        net_usdt: '9.900000',
        destination: WALLET,
        onchain_reference: null,
      });
      const during = kes(await balance());
      expect(during.held).toBe('1295.00');
      expect(Number(during.available)).toBeCloseTo(Number(before.available) - 1295, 2);
      h.clock.advance(SETTLEMENT_COMPLETES_AFTER_MS);
      const done = await expectOk<SettlementResponse>(await get(`/collect/settlements/${settlement.settlement_id}`));
      expect(done).toMatchObject({ status: 'completed', onchain_reference: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      expect(kes(await balance())).toMatchObject({ held: '0.00', available: during.available });
      expect(await eventsOf(settlement.settlement_id)).toEqual(['settlement.processing', 'settlement.completed']);
    });

    test("a crashed request's Idempotency-Key retry answers the settlement the first run made, as a read would", async () => {
      await credited('40.00');
      const key = `stl-${engine}-crash`;
      const body = { amount: '40.00', currency: 'KES', wallet: WALLET.address };
      const first = await expectOk<SettlementResponse>(await post('/collect/settlements', body, { 'idempotency-key': key }));
      await crashBeforeTheAnswerWasStored(key);
      h.clock.advance(SETTLEMENT_COMPLETES_AFTER_MS);
      const retried = await expectOk<SettlementResponse>(await post('/collect/settlements', body, { 'idempotency-key': key }));
      expect(retried).toMatchObject({ settlement_id: first.settlement_id, status: 'completed', onchain_reference: expect.stringMatching(/^0x/) });
    });

    test('a failed settlement releases its hold; one ending in 98 stays processing', async () => {
      await credited('20.00');
      const before = kes(await balance());
      const failing = await expectOk<SettlementResponse>(await post('/collect/settlements', { amount: '10.99', currency: 'KES', wallet: WALLET.address }));
      const staying = await expectOk<SettlementResponse>(await post('/collect/settlements', { amount: '5.98', currency: 'KES', wallet: WALLET.address }));
      h.clock.advance(SETTLEMENT_COMPLETES_AFTER_MS * 10);
      expect(await expectOk<SettlementResponse>(await get(`/collect/settlements/${failing.settlement_id}`))).toMatchObject({ status: 'failed', failure_reason: expect.any(String) });
      expect((await expectOk<SettlementResponse>(await get(`/collect/settlements/${staying.settlement_id}`))).status).toBe('processing');
      expect(kes(await balance())).toMatchObject({ held: '5.98' });
      expect(Number(kes(await balance()).available)).toBeCloseTo(Number(before.available) - 5.98, 2);
      expect(await eventsOf(failing.settlement_id)).toEqual(['settlement.processing', 'settlement.failed']);
    });

    test('only the saved wallet; never above the available balance', async () => {
      await expectApiError(await post('/collect/settlements', { amount: '1.00', currency: 'KES', wallet: 'TSomeOtherWalletAddressXXXXXXXXXXX' }), 'ERR_4074', 'wallet');
      const available = Number(kes(await balance()).available);
      await expectApiError(await post('/collect/settlements', { amount: (available + 1).toFixed(2), currency: 'KES', wallet: WALLET.address }), 'ERR_4073', 'amount');
      await expectApiError(await post('/collect/settlements', { amount: '100', currency: 'UGX', wallet: WALLET.address }), 'ERR_4073', 'amount');
      // A settlement the fee would eat entirely is refused for its amount.
      await expectApiError(await post('/collect/settlements', { amount: '1', currency: 'UGX', wallet: WALLET.address }), 'ERR_2003', 'amount');
    });

    test('50 concurrent settlements against one balance: exactly what it holds, never overdrawn', async () => {
      const minor = (text: string) => Math.round(Number(text) * 100);
      await credited('100.00');
      const start = kes(await balance());
      const responses = await Promise.all(Array.from({ length: 50 }, () => post('/collect/settlements', { amount: '5.00', currency: 'KES', wallet: WALLET.address })));
      const statuses = responses.map((response) => response.status);
      expect(statuses.every((status) => status === 200 || status === 422)).toBe(true);
      const accepted = statuses.filter((status) => status === 200).length;
      expect(accepted).toBe(Math.min(50, Math.floor(minor(start.available) / 500)));
      const after = kes(await balance());
      expect(minor(after.available)).toBe(minor(start.available) - accepted * 500);
      expect(minor(after.available)).toBeGreaterThanOrEqual(0);
      expect(minor(after.held)).toBe(minor(start.held) + accepted * 500);
    });
  });

  test(`[${engine}] balances past 2^53 minor units are exact, per corridor, in USDT and against a settlement`, async () => {
    const rich = await createHarness(engine, { settings: { ...DEFAULT_ACCOUNT_SETTINGS, usdtWallet: WALLET } });
    try {
      const send = (method: string, path: string, body?: unknown) => apiRequest(rich, method, path, body === undefined ? {} : { body });
      // 9007199254740991 + 2 minor units: 2^53 + 1, which no double holds.
      const largest = await expectOk<CollectionResponse>(await send('POST', '/collect/collections', MOMO('+254700000001', '90071992547409.91')));
      const small = await expectOk<CollectionResponse>(await send('POST', '/collect/collections', MOMO('+254700000001', '0.02')));
      rich.clock.advance(PAYER_ANSWERS_AFTER_MS + CREDIT_AFTER_MS);
      for (const { collection_id } of [largest, small]) {
        expect((await expectOk<CollectionResponse>(await send('GET', `/collect/collections/${collection_id}`))).status).toBe('credited');
      }
      const usdt = (minor: bigint) => {
        const micro = ((minor * 1_000_000n) / 12_950n).toString().padStart(7, '0');
        return `${micro.slice(0, -6)}.${micro.slice(-6)}`;
      };
      const full = await expectOk<BalanceResponse>(await send('GET', '/collect/balance'));
      expect(kes(full)).toMatchObject({ available: '90071992547409.93', pending: '0.00', held: '0.00' });
      expect(full.available).toBe(usdt(9_007_199_254_740_993n));

      await expectOk<SettlementResponse>(await send('POST', '/collect/settlements', { amount: '1.00', currency: 'KES', wallet: WALLET.address }));
      const after = await expectOk<BalanceResponse>(await send('GET', '/collect/balance'));
      expect(kes(after)).toMatchObject({ available: '90071992547408.93', held: '1.00' });
      expect(after.available).toBe(usdt(9_007_199_254_740_893n));
      // The exact remainder can be settled, one minor unit more cannot.
      await expectApiError(await send('POST', '/collect/settlements', { amount: '90071992547408.94', currency: 'KES', wallet: WALLET.address }), 'ERR_4073', 'amount');
      await expectOk<SettlementResponse>(await send('POST', '/collect/settlements', { amount: '90071992547408.93', currency: 'KES', wallet: WALLET.address }));
      expect(kes(await expectOk<BalanceResponse>(await send('GET', '/collect/balance')))).toMatchObject({ available: '0.00', held: '90071992547409.93' });
    } finally {
      await rich.close();
    }
  });

  test(`[${engine}] a settlement goes to the wallet saved when it is made, never to the one a request authenticated earlier saw`, async () => {
    const replaced = await createHarness(engine, { settings: { ...DEFAULT_ACCOUNT_SETTINGS, usdtWallet: WALLET } });
    try {
      const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => apiRequest(replaced, method, path, { headers, ...(body === undefined ? {} : { body }) });
      const created = await expectOk<CollectionResponse>(await send('POST', '/collect/collections', MOMO('+254700000001', '100.00')));
      replaced.clock.advance(PAYER_ANSWERS_AFTER_MS + CREDIT_AFTER_MS);
      expect((await expectOk<CollectionResponse>(await send('GET', `/collect/collections/${created.collection_id}`))).status).toBe('credited');
      // A settlement made under an Idempotency-Key whose answer a crash lost (the key left in flight).
      const key = { 'idempotency-key': `stl-wallet-${engine}` };
      const body = { amount: '10.00', currency: 'KES', wallet: WALLET.address };
      const first = await expectOk<SettlementResponse>(await send('POST', '/collect/settlements', body, key));
      await replaced.db
        .updateTable('idempotency_keys')
        .set({ status: 'in_flight', response_status: null, response_headers: null, response_body: null, locked_at: replaced.clock.now().toISOString() })
        .where('idempotency_key', '=', key['idempotency-key'])
        .execute();

      // A request authenticated while WALLET was saved; an operator then replaces it before the request goes on.
      const authenticatedBefore = await authenticateApiKey(replaced.core, replaced.secretKey);
      const NEW_WALLET = { network: 'ethereum' as const, address: '0x52908400098527886E0F7030069857D2E4169EE7' };
      await replaced.store.accounts.updateAccountSettings(replaced.boot.account.accountId, { ...replaced.boot.account.settings, usdtWallet: NEW_WALLET });
      const late = await requestSettlement(replaced.core, authenticatedBefore, { amount: '20.00', currency: 'KES', wallet: WALLET.address }).catch((error: unknown) => error);
      expect(late).toBeInstanceOf(ApiError);
      expect((late as ApiError).code).toBe('ERR_4074');
      const toOldWallet = await replaced.db.selectFrom('settlements').select('settlement_id').where('wallet_address', '=', WALLET.address).execute();
      expect(toOldWallet.map((row) => row.settlement_id)).toEqual([first.settlement_id]);

      // The crashed request's retry answers the settlement its first run made, though the wallet has changed since.
      replaced.clock.advance(IDEMPOTENCY_LEASE_MS + 1);
      expect((await expectOk<SettlementResponse>(await send('POST', '/collect/settlements', body, key))).settlement_id).toBe(first.settlement_id);
      const settled = await expectOk<SettlementResponse>(await send('POST', '/collect/settlements', { ...body, wallet: NEW_WALLET.address }));
      expect(settled.destination).toEqual(NEW_WALLET);
    } finally {
      await replaced.close();
    }
  });

  test(`[${engine}] a settlement request and a balance read count every collection due by then, more than one batch of them`, async () => {
    const burst = await createHarness(engine, { settings: { ...DEFAULT_ACCOUNT_SETTINGS, usdtWallet: WALLET } });
    try {
      const count = DUE_BATCH + 1;
      const created = await Promise.all(Array.from({ length: count }, () => apiRequest(burst, 'POST', '/collect/collections', { body: MOMO('+254700000001', '1.00') })));
      expect(created.map((response) => response.status)).toEqual(created.map(() => 200));
      burst.clock.advance(PAYER_ANSWERS_AFTER_MS + CREDIT_AFTER_MS);
      const settlement = await expectOk<SettlementResponse>(await apiRequest(burst, 'POST', '/collect/settlements', { body: { amount: `${count}.00`, currency: 'KES', wallet: WALLET.address } }));
      expect(settlement.status).toBe('processing');
      expect(kes(await expectOk<BalanceResponse>(await apiRequest(burst, 'GET', '/collect/balance')))).toMatchObject({ available: '0.00', pending: '0.00', held: `${count}.00` });
    } finally {
      await burst.close();
    }
  });

  test(`[${engine}] the sweep pages past due rows that cannot move: a batch of them ahead never hides the rows behind`, async () => {
    const swept = await createHarness(engine, { settings: { ...DEFAULT_ACCOUNT_SETTINGS, usdtWallet: WALLET } });
    try {
      const scope = { accountId: swept.boot.account.accountId, mode: 'test' as const };
      const first = await expectOk<CollectionResponse>(await apiRequest(swept, 'POST', '/collect/collections', { body: MOMO('+254700000001', '10.00') }));
      swept.clock.advance(PAYER_ANSWERS_AFTER_MS + CREDIT_AFTER_MS);
      expect((await expectOk<CollectionResponse>(await apiRequest(swept, 'GET', `/collect/collections/${first.collection_id}`))).status).toBe('credited');
      const settlement = await expectOk<SettlementResponse>(await apiRequest(swept, 'POST', '/collect/settlements', { body: { amount: '10.00', currency: 'KES', wallet: WALLET.address } }));
      const collection = await expectOk<CollectionResponse>(await apiRequest(swept, 'POST', '/collect/collections', { body: MOMO('+254700000001', '20.00') }));
      // Ahead of each, in due order, more than a batch of live rows: live mode has no provider, so none of them moves.
      const due = (await swept.store.collections.findCollection(scope, collection.collection_id))!;
      const dueSettlement = (await swept.store.settlements.findSettlement(scope, settlement.settlement_id))!;
      const earlier = new Date(swept.clock.now().getTime() - 1);
      for (let i = 0; i < DUE_BATCH + 1; i += 1) {
        const n = String(i).padStart(20, '0');
        await swept.store.collections.insertCollection({ ...due, mode: 'live', collectionId: `col_${n}`, dueAt: earlier });
        await swept.store.settlements.insertSettlement({ ...dueSettlement, mode: 'live', settlementId: `stl_${n}`, dueAt: earlier });
      }
      swept.clock.advance(SETTLEMENT_COMPLETES_AFTER_MS);
      // The background sweep (start.ts): every account and mode, each with its mode's provider.
      expect(await advanceDueCollect(swept.core, (of) => swept.core.collect?.providerFor(of.mode), null)).toBe(2);
      expect((await swept.store.collections.findCollection(scope, collection.collection_id))?.status).toBe('credited');
      expect((await swept.store.settlements.findSettlement(scope, settlement.settlement_id))?.status).toBe('completed');
      const live = { accountId: scope.accountId, mode: 'live' as const };
      expect((await swept.store.collections.findCollection(live, `col_${'0'.repeat(20)}`))?.status).toBe('pending');
    } finally {
      await swept.close();
    }
  });

  test(`[${engine}] the default account has no saved wallet: ERR_4075`, async () => {
    const plain = await createHarness(engine);
    try {
      await expectApiError(await apiRequest(plain, 'POST', '/collect/settlements', { body: { amount: '1.00', currency: 'KES', wallet: WALLET.address } }), 'ERR_4075');
      const empty = await expectOk<BalanceResponse>(await apiRequest(plain, 'GET', '/collect/balance'));
      expect(empty).toMatchObject({ currency: 'USDT', available: '0.000000', pending: '0.000000', held: '0.000000' });
      expect(empty.by_corridor.map((corridor) => corridor.currency)).toEqual(['KES', 'GHS', 'TZS', 'UGX']);
    } finally {
      await plain.close();
    }
  });

  test(`[${engine}] an operator with a fresh two-factor step-up saves the wallet; settlements then go there and nowhere else`, async () => {
    const plain = await createHarness(engine);
    try {
      const { email, password, totpSecret } = plain.boot.createdOperator!;
      const put = (headers: Record<string, string>, body: unknown = WALLET) => apiRequest(plain, 'PUT', '/v1/collect/wallet', { key: null, headers, body });
      // An API key never saves a wallet; nor does a session without two-factor.
      await expectApiError(await apiRequest(plain, 'PUT', '/v1/collect/wallet', { body: WALLET }), 'ERR_1019');
      const { session_token } = await expectOk<{ session_token: string }>(await apiRequest(plain, 'POST', '/v1/sessions', { key: null, body: { email, password } }));
      const session = { authorization: `Bearer ${session_token}` };
      await expectApiError(await put(session), 'ERR_1019');
      await expectOk(await apiRequest(plain, 'POST', '/v1/sessions/verify', { key: null, headers: session, body: { code: totpCode(totpSecret, totpStep(plain.clock.now())) } }));
      await expectApiError(await put(session, { network: 'ethereum', address: WALLET.address }), 'ERR_2003', 'address');
      expect(await expectOk(await put(session))).toEqual(WALLET);
      // Saved: the next settlement request sees it (no balance yet, so ERR_4073 rather than ERR_4075), and only it.
      await expectApiError(await apiRequest(plain, 'POST', '/collect/settlements', { body: { amount: '1.00', currency: 'KES', wallet: WALLET.address } }), 'ERR_4073', 'amount');
      await expectApiError(
        await apiRequest(plain, 'POST', '/collect/settlements', { body: { amount: '1.00', currency: 'KES', wallet: '0x52908400098527886E0F7030069857D2E4169EE7' } }),
        'ERR_4074',
        'wallet',
      );
      const mails = await plain.db.selectFrom('security_emails').select(['subject', 'body']).where('subject', 'like', '%Settlement wallet changed%').execute();
      expect(mails).toHaveLength(1);
      expect(mails[0]!.body).toContain(WALLET.address);
    } finally {
      await plain.close();
    }
  });
});
