/**
 * The stored Collect balance (one row per account, mode and currency, moved with every status change that moves
 * money) against the balance derived from every collection and settlement by status (test-support oracle), on SQLite
 * and PostgreSQL: after each step of every status path of both objects, and after concurrent steps and settlements.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { BalanceResponse, CollectionResponse, SettlementResponse } from '../../../../../protocol/api/collect';
import { currencyExponent, minorToDecimal } from '../../../../../protocol/currency';
import { DEFAULT_ACCOUNT_SETTINGS } from '../../../core/accounts/account-settings';
import { COLLECTION_VALIDITY_MS, CREDIT_AFTER_MS, PAYER_ANSWERS_AFTER_MS, SETTLEMENT_COMPLETES_AFTER_MS } from '../../../rails/simulator/collect-simulator';
import type { Scope } from '../../../kernel/store-types';
import { apiRequest, expectApiError, expectOk } from '../../../test-support/api-assertions';
import { derivedCollectBalances, nonZeroBalances } from '../../../test-support/derived-collect-balances';
import { forEachEngine } from '../../../test-support/engines';
import { createHarness, type Harness } from '../../../test-support/harness';

const WALLET = { network: 'tron' as const, address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' };
const MOMO = (phone: string, amount: string) => ({ amount, currency: 'KES', country: 'KE', method: 'mobile_money', customer_reference: 'order-1', phone_number: phone });
const TRANSFER = (reference: string, amount: string) => ({ amount, currency: 'UGX', country: 'UG', method: 'bank_transfer', customer_reference: reference });

forEachEngine('Collect stored balance', (engine) => {
  let h: Harness;
  let scope: Scope;
  beforeAll(async () => {
    h = await createHarness(engine, { settings: { ...DEFAULT_ACCOUNT_SETTINGS, usdtWallet: WALLET }, poolSize: 10 });
    scope = { accountId: h.boot.account.accountId, mode: 'test' };
  });
  afterAll(async () => h?.close());

  const post = (path: string, body: unknown) => apiRequest(h, 'POST', path, { body });
  const collect = async (body: unknown) => expectOk<CollectionResponse>(await post('/collect/collections', body));
  const settle = async (amount: string, currency = 'KES') => expectOk<SettlementResponse>(await post('/collect/settlements', { amount, currency, wallet: WALLET.address }));
  const statusOf = async (collection: CollectionResponse) => (await expectOk<CollectionResponse>(await apiRequest(h, 'GET', `/collect/collections/${collection.collection_id}`))).status;
  const settlementStatusOf = async (settlement: SettlementResponse) =>
    (await expectOk<SettlementResponse>(await apiRequest(h, 'GET', `/collect/settlements/${settlement.settlement_id}`))).status;
  /** The simulator page's payer answers the collection. */
  const answer = async (collection: CollectionResponse, decision: 'pay' | 'fail') => {
    const url = new URL(collection.instructions.simulator_url!);
    const challenge = url.searchParams.get('challenge')!;
    const response = await h.app.request(url.pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `decision=${decision}&challenge=${encodeURIComponent(challenge)}`,
    });
    expect(response.status).toBe(200);
  };
  /**
   * The balance as the API answers it (due steps applied first), the stored rows and the derived sums: all three
   * agree. Answers the derived balances, for the caller's own expectations.
   */
  const agrees = async () => {
    const answered = await expectOk<BalanceResponse>(await apiRequest(h, 'GET', '/collect/balance'));
    const derived = await derivedCollectBalances(h.db, scope);
    expect(nonZeroBalances(await h.store.collectBalances.readBalances(scope))).toEqual(nonZeroBalances(derived));
    for (const corridor of answered.by_corridor) {
      const exponent = currencyExponent(corridor.currency);
      const expected = derived.find((balance) => balance.currency === corridor.currency) ?? { available: 0n, pending: 0n, held: 0n };
      expect(corridor).toMatchObject({
        available: minorToDecimal(expected.available, exponent),
        pending: minorToDecimal(expected.pending, exponent),
        held: minorToDecimal(expected.held, exponent),
      });
    }
    return Object.fromEntries(nonZeroBalances(derived).map(({ currency, ...buckets }) => [currency, buckets]));
  };

  test('every status path of collections and settlements moves the stored balance as the sums by status', async () => {
    // Collections: approved by the payer (pending, received, credited), declined, paid and failed on the page, expired.
    const approved = await collect(MOMO('+254700000001', '100.00'));
    const declined = await collect(MOMO('+254700000002', '7.00'));
    const paidOnPage = await collect(MOMO('+254755555555', '30.00'));
    const failedOnPage = await collect(MOMO('+254766666666', '11.00'));
    const transfer = await collect(TRANSFER('SIM_PAY', '50000'));
    const failedTransfer = await collect(TRANSFER('SIM_FAIL', '1200'));
    const unanswered = await collect(TRANSFER('inv-7', '900'));
    expect(await agrees()).toEqual({});

    await answer(paidOnPage, 'pay');
    await answer(failedOnPage, 'fail');
    expect(await agrees()).toEqual({ KES: { available: 0n, pending: 3000n, held: 0n } });

    h.clock.advance(PAYER_ANSWERS_AFTER_MS);
    expect([await statusOf(approved), await statusOf(declined), await statusOf(transfer), await statusOf(failedTransfer)]).toEqual(['received', 'failed', 'received', 'failed']);
    expect(await agrees()).toEqual({ KES: { available: 0n, pending: 13_000n, held: 0n }, UGX: { available: 0n, pending: 50_000n, held: 0n } });

    h.clock.advance(CREDIT_AFTER_MS);
    expect(await agrees()).toEqual({ KES: { available: 13_000n, pending: 0n, held: 0n }, UGX: { available: 50_000n, pending: 0n, held: 0n } });
    expect([await statusOf(approved), await statusOf(paidOnPage), await statusOf(failedOnPage), await statusOf(transfer)]).toEqual(['credited', 'credited', 'failed', 'credited']);

    h.clock.advance(COLLECTION_VALIDITY_MS);
    expect(await statusOf(unanswered)).toBe('expired');
    expect(await agrees()).toEqual({ KES: { available: 13_000n, pending: 0n, held: 0n }, UGX: { available: 50_000n, pending: 0n, held: 0n } });

    // Settlements: processing (held), then completed, failed (released), or still processing; one refused.
    const completing = await settle('10.00');
    const failing = await settle('10.99');
    const staying = await settle('5.98');
    const ugx = await settle('20000', 'UGX');
    await expectApiError(await post('/collect/settlements', { amount: '200.00', currency: 'KES', wallet: WALLET.address }), 'ERR_4073', 'amount');
    expect(await agrees()).toEqual({ KES: { available: 13_000n - 2697n, pending: 0n, held: 2697n }, UGX: { available: 30_000n, pending: 0n, held: 20_000n } });

    h.clock.advance(SETTLEMENT_COMPLETES_AFTER_MS);
    expect([await settlementStatusOf(completing), await settlementStatusOf(failing), await settlementStatusOf(staying), await settlementStatusOf(ugx)]).toEqual([
      'completed',
      'failed',
      'processing',
      'completed',
    ]);
    expect(await agrees()).toEqual({ KES: { available: 13_000n - 1000n - 598n, pending: 0n, held: 598n }, UGX: { available: 30_000n, pending: 0n, held: 0n } });

    // The rest of the balance can be settled to the minor unit, and then none of it.
    await settle('114.02');
    await expectApiError(await post('/collect/settlements', { amount: '1.00', currency: 'KES', wallet: WALLET.address }), 'ERR_4073', 'amount');
    expect(await agrees()).toEqual({ KES: { available: 0n, pending: 0n, held: 598n + 11_402n }, UGX: { available: 30_000n, pending: 0n, held: 0n } });
  });

  test('collections credited by concurrent reads while settlements are requested: the stored balance still equals the sums, never overdrawn', async () => {
    const before = await agrees();
    const collections = await Promise.all(Array.from({ length: 20 }, () => collect(MOMO('+254700000001', '3.00'))));
    h.clock.advance(PAYER_ANSWERS_AFTER_MS + CREDIT_AFTER_MS);
    // Each collection read twice at once (each read applies its due steps) and settlements that each apply every due step first.
    const responses = await Promise.all([
      ...collections.flatMap((collection) => [statusOf(collection), statusOf(collection)]),
      ...Array.from({ length: 20 }, () => post('/collect/settlements', { amount: '2.00', currency: 'KES', wallet: WALLET.address })),
    ]);
    const settlements = responses.filter((response): response is Response => response instanceof Response);
    expect(settlements.every((response) => response.status === 200 || response.status === 422)).toBe(true);
    const accepted = settlements.filter((response) => response.status === 200).length;
    const after = await agrees();
    expect(after['KES']!.available).toBeGreaterThanOrEqual(0n);
    expect(after['KES']!.available).toBe((before['KES']?.available ?? 0n) + 6000n - BigInt(accepted) * 200n);
  });
});
