/**
 * The stored Collect balance (a folded row per account, mode and currency plus the deltas each status change that
 * moves money inserts) against the balance derived from every collection and settlement by status (test-support
 * oracle), on SQLite and PostgreSQL: after each step of every status path of both objects, after concurrent steps and
 * settlements, and after the sweep folds. On PostgreSQL: a credit commits while another connection holds the balance
 * row's lock (no hot row), and folds racing reads and inserts lose and double-count nothing.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { BalanceResponse, CollectionResponse, SettlementResponse } from '../../../../../protocol/api/collect';
import { currencyExponent, minorToDecimal } from '../../../../../protocol/currency';
import { DEFAULT_ACCOUNT_SETTINGS } from '../../../core/accounts/account-settings';
import { COLLECTION_VALIDITY_MS, CREDIT_AFTER_MS, PAYER_ANSWERS_AFTER_MS, SETTLEMENT_COMPLETES_AFTER_MS } from '../../../rails/simulator/collect-simulator';
import type { Scope } from '../../../kernel/store-types';
import { FOLD_BALANCES_BATCH, FOLD_DELTAS_LIMIT, sweepCollect } from '../../../core/collect/advance-collect';
import { collectSqlStores } from '../../../storage/collect/sql-store';
import type { BalanceKey } from '../../../storage/collect/store';
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

  /** The deltas not folded yet, per balance of this account and mode (currency: how many). */
  const deltaCounts = async () => {
    const rows = await h.db.selectFrom('collect_balance_deltas').select(['currency']).where('account_id', '=', scope.accountId).where('mode', '=', scope.mode).execute();
    const counts: Record<string, number> = {};
    for (const row of rows) counts[row.currency] = (counts[row.currency] ?? 0) + 1;
    return counts;
  };
  const sweep = () => sweepCollect(h.core, (of) => h.core.collect?.providerFor(of.mode));

  test('the sweep folds the deltas of every balance into its row, a batch of balances and of deltas at a time; the balance does not change', async () => {
    h.clock.advance(SETTLEMENT_COMPLETES_AFTER_MS); // the settlements of earlier tests end in this sweep
    await collect(MOMO('+254700000001', '4.00'));
    await collect(TRANSFER('SIM_PAY', '700'));
    h.clock.advance(PAYER_ANSWERS_AFTER_MS + CREDIT_AFTER_MS);
    // Deltas of balances the sweep lists past its first batch (accounts with no other row), and more deltas of one
    // balance than one fold takes.
    const others = Array.from({ length: FOLD_BALANCES_BATCH + 20 }, (_, i) => ({ accountId: `acc_fold_${String(i).padStart(4, '0')}`, mode: 'test' as const, currency: 'TZS' as const }));
    const crowded: BalanceKey = { accountId: 'acc_fold_crowded', mode: 'test', currency: 'GHS' };
    await h.db.transaction().execute(async (trx) => {
      for (const other of others) await collectSqlStores(trx).collectBalances.recordBalanceDelta(other, 'col_x:credited', { available: 5n, pending: 0n, held: 0n });
      for (let i = 0; i < FOLD_DELTAS_LIMIT + 3; i += 1) await collectSqlStores(trx).collectBalances.recordBalanceDelta(crowded, `col_${String(i).padStart(5, '0')}:credited`, { available: 1n, pending: 0n, held: 0n });
    });

    const swept = await sweep();
    expect(swept.applied).toBeGreaterThanOrEqual(2); // both collections, each received then credited (and what earlier tests left due)
    expect(swept.folded).toBeGreaterThanOrEqual(4 + others.length + FOLD_DELTAS_LIMIT);
    expect(await deltaCounts()).toEqual({});
    const before = await agrees();
    expect(await h.store.collectBalances.readBalances({ accountId: 'acc_fold_0119', mode: 'test' })).toEqual([{ currency: 'TZS', available: 5n, pending: 0n, held: 0n }]);
    // The crowded balance: its rest waits for the next lap; read as row plus deltas, it is whole either way.
    expect(await h.db.selectFrom('collect_balance_deltas').select('delta_id').where('account_id', '=', crowded.accountId).execute()).toHaveLength(3);
    expect(await h.store.collectBalances.readBalances(crowded)).toEqual([{ currency: 'GHS', available: BigInt(FOLD_DELTAS_LIMIT + 3), pending: 0n, held: 0n }]);
    expect(await sweep()).toEqual({ applied: 0, folded: 3 });
    expect(await h.store.collectBalances.readBalances(crowded)).toEqual([{ currency: 'GHS', available: BigInt(FOLD_DELTAS_LIMIT + 3), pending: 0n, held: 0n }]);
    expect(await h.db.selectFrom('collect_balance_deltas').select('delta_id').execute()).toEqual([]);
    expect(await agrees()).toEqual(before);

    // A settlement folds the deltas of its balance under its lock: what it was refused before the fold it gets after.
    await collect(MOMO('+254700000001', '6.00'));
    h.clock.advance(PAYER_ANSWERS_AFTER_MS + CREDIT_AFTER_MS);
    const available = before['KES']!.available + 600n;
    await settle(minorToDecimal(available, 2));
    expect(await deltaCounts()).toEqual({ KES: 1 }); // the settlement's own debit, folded by the next fold
    expect((await agrees())['KES']).toMatchObject({ available: 0n, held: before['KES']!.held + available });
  });

  test('a lap whose due steps fail still folds, then reports the failure; a settlement folds every delta of its balance, a batch at a time', async () => {
    h.clock.advance(SETTLEMENT_COMPLETES_AFTER_MS);
    await sweep();
    const stuck: BalanceKey = { accountId: 'acc_fold_stuck', mode: 'test', currency: 'UGX' };
    await h.store.transaction((tx) => tx.collectBalances.recordBalanceDelta(stuck, 'col_stuck:credited', { available: 7n, pending: 0n, held: 0n }));
    await collect(MOMO('+254700000001', '3.00'));
    h.clock.advance(PAYER_ANSWERS_AFTER_MS + CREDIT_AFTER_MS);
    const failing = () => {
      throw new Error('provider down');
    };
    await expect(sweepCollect(h.core, failing)).rejects.toThrow('provider down');
    expect(await h.db.selectFrom('collect_balance_deltas').select('delta_id').where('account_id', '=', stuck.accountId).execute()).toEqual([]);
    expect(await h.store.collectBalances.readBalances({ accountId: stuck.accountId, mode: 'test' })).toEqual([{ currency: 'UGX', available: 7n, pending: 0n, held: 0n }]);

    // More deltas than one fold takes wait on the KES balance (zero moves: the amounts stay as the sums say).
    await h.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 2 * FOLD_DELTAS_LIMIT + 5; i += 1) {
        await collectSqlStores(trx).collectBalances.recordBalanceDelta({ ...scope, currency: 'KES' }, `col_zero_${String(i).padStart(5, '0')}:credited`, { available: 0n, pending: 0n, held: 0n });
      }
    });
    await sweep(); // the due steps (the credit above) and a first fold
    await settle('1.00');
    expect(await deltaCounts()).toEqual({ KES: 1 }); // only the settlement's own debit waits
  });

  test.skipIf(engine !== 'postgres')('a collection credit commits while another connection holds the lock of its balance row: credits never update the row', async () => {
    const collection = await collect(MOMO('+254700000001', '9.00'));
    await h.store.collectBalances.foldBalance({ ...scope, currency: 'KES' }); // the KES row exists, whatever ran before
    h.clock.advance(PAYER_ANSWERS_AFTER_MS + CREDIT_AFTER_MS);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockHeld = new Promise<void>((resolve) => (locked = resolve));
    const holder = h.db.transaction().execute(async (trx) => {
      const { rows } = await sql`select available from collect_balances where account_id = ${scope.accountId} and mode = 'test' and currency = 'KES' for update`.execute(trx);
      expect(rows).toHaveLength(1);
      locked();
      await released;
    });
    await lockHeld;
    try {
      const blocked = new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), 5_000).unref());
      expect(await Promise.race([statusOf(collection), blocked])).toBe('credited');
      // A balance read does not wait for the lock either, and counts the credit.
      const read = Promise.race([h.store.collectBalances.readBalances(scope), blocked]);
      expect(await read).toEqual(expect.arrayContaining([expect.objectContaining({ currency: 'KES' })]));
    } finally {
      release();
      await holder;
    }
    await agrees();
  });

  test.skipIf(engine !== 'postgres')('folds racing reads and delta inserts on PostgreSQL: every read lies between what had committed and what had started, and nothing is lost', async () => {
    const balance: BalanceKey = { accountId: 'acc_race', mode: 'test', currency: 'GHS' };
    const store = h.store.collectBalances;
    const INSERTS = 400;
    let started = 0;
    let committed = 0;
    let inserting = true;
    const violations: string[] = [];
    const read = async () => (await store.readBalances(balance)).find((row) => row.currency === 'GHS') ?? { available: 0n, pending: 0n, held: 0n };
    const inserter = async (worker: number) => {
      for (let i = worker; i < INSERTS; i += 4) {
        started += 1;
        await h.store.transaction((tx) => tx.collectBalances.recordBalanceDelta(balance, `col_${String(i).padStart(4, '0')}:credited`, { available: 1n, pending: 0n, held: 0n }));
        committed += 1;
      }
    };
    const folder = async (limit: number | undefined) => {
      let folds = 0;
      while (inserting) {
        await store.foldBalance(balance, limit);
        folds += 1;
      }
      return folds;
    };
    const reader = async () => {
      let last = 0n;
      let reads = 0;
      while (inserting) {
        const atLeast = BigInt(committed);
        const { available, pending } = await read();
        const atMost = BigInt(started);
        if (available < atLeast || available > atMost || available < last || pending !== 0n) violations.push(`read ${available} outside [${atLeast}, ${atMost}] (last ${last})`);
        last = available;
        reads += 1;
      }
      return reads;
    };
    const inserted = Promise.all([0, 1, 2, 3].map(inserter)).finally(() => (inserting = false));
    const [, folds, , reads] = await Promise.all([inserted, Promise.all([folder(undefined), folder(7)]), reader(), Promise.all([reader(), reader()])]);
    expect(violations).toEqual([]);
    expect(folds[0]! + folds[1]!).toBeGreaterThan(10);
    expect(reads.reduce((a, b) => a + b, 0)).toBeGreaterThan(10);
    expect(await read()).toMatchObject({ available: BigInt(INSERTS) });
    await store.foldBalance(balance);
    expect(await h.db.selectFrom('collect_balance_deltas').select('delta_id').where('account_id', '=', balance.accountId).execute()).toEqual([]);
    expect(await read()).toMatchObject({ available: BigInt(INSERTS), pending: 0n, held: 0n });
  });
});

