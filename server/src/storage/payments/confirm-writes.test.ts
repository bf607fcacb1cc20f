/**
 * The two storage operations of a confirm on both engines: the claim that opens an attempt, and a payment's change
 * with its attempt's answer and its event. Each writes all of its rows or none. On SQLite the claim, on its own,
 * does not wait for its sync (ClaimedPayment.durable); on PostgreSQL, with flushLater, it does not wait for its WAL
 * flush, and `durable` flushes it unless a later version of the payment has.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { PaymentResponse } from '../../../../protocol/api/payments';
import { forEachEngine } from '../../test-support/engines';
import type { Database } from '../schema';
import { createHarness, synchronousCommit, withHeldSyncs, withOwnConnection, type Harness } from '../../test-support/harness';
import { paymentsSqlStores } from './sql-store';
import type { OutboxEventRecord } from '../events/records';

forEachEngine('confirm writes', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => h.close());

  const scope = () => ({ accountId: h.boot.account.accountId, mode: 'test' as const });
  const createdPayment = async (): Promise<string> => {
    const response = await h.app.request('/payments', {
      method: 'POST',
      headers: { 'api-key': h.secretKey, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1_234, currency: 'INR', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } }),
    });
    expect(response.status).toBe(200);
    const payment = (await response.json()) as PaymentResponse;
    expect(payment.status).toBe('requires_confirmation');
    return payment.payment_id;
  };
  const stored = async (paymentId: string) => (await h.store.payments.findPayment(scope(), paymentId))!;
  const eventFor = (paymentId: string, eventId: string): OutboxEventRecord => ({
    ...scope(),
    eventId,
    eventType: 'payment_succeeded',
    objectType: 'payment',
    objectId: paymentId,
    objectVersion: 0,
    payload: { event_id: eventId },
    createdAt: h.clock.now(),
  });

  describe('claimPaymentAndOpenAttempt', () => {
    test('claims a payment in an expected status and opens its next attempt from the claimed row; a second claim gets nothing and opens nothing', async () => {
      const paymentId = await createdPayment();
      const now = h.clock.now();
      const patch = { status: 'processing' as const, connector: 'upi_simulator', paymentMethod: 'upi' as const, updatedAt: now };
      const read = await stored(paymentId);
      const claimed = await h.store.payments.claimPaymentAndOpenAttempt(read, ['requires_confirmation'], patch, now);
      expect(claimed?.payment).toMatchObject({ paymentId, status: 'processing', connector: 'upi_simulator', version: 2 });
      expect(claimed?.payment).toEqual(await stored(paymentId));
      expect(claimed?.attempt).toMatchObject({ attemptId: `${paymentId}_1`, attemptNumber: 1, status: 'pending', amount: 1_234, currency: 'INR', connector: 'upi_simulator', paymentMethod: 'upi' });
      expect(await h.store.attempts.listAttempts(scope(), paymentId)).toEqual([claimed!.attempt]);

      expect(await h.store.payments.claimPaymentAndOpenAttempt(read, ['requires_confirmation'], patch, now)).toBeUndefined();
      expect(await h.store.attempts.listAttempts(scope(), paymentId)).toHaveLength(1);
    });

    test('after another write that left the status alone, the claimed payment is the row as stored, with that write', async () => {
      const paymentId = await createdPayment();
      const now = h.clock.now();
      const read = await stored(paymentId);
      await h.store.payments.updatePaymentIfStatus(scope(), paymentId, ['requires_confirmation'], { description: 'changed in between', metadata: { order: '42' }, updatedAt: now });
      const claimed = await h.store.payments.claimPaymentAndOpenAttempt(read, ['requires_confirmation'], { status: 'processing', paymentMethod: 'upi', updatedAt: now }, now);
      expect(claimed?.payment).toMatchObject({ status: 'processing', paymentMethod: 'upi', description: 'changed in between', metadata: { order: '42' }, version: read.version + 2 });
      expect(claimed?.payment).toEqual(await stored(paymentId));
    });

    test.runIf(engine === 'sqlite')('on its own it resolves once committed, while the WAL sync that would cover it is held; durable once released', async () => {
      const paymentId = await createdPayment();
      const now = h.clock.now();
      const read = await stored(paymentId);
      let durable: Promise<void> | undefined;
      await withHeldSyncs(h.database, async (db, heldSyncs) => {
        const claimed = await paymentsSqlStores(db).payments.claimPaymentAndOpenAttempt(read, ['requires_confirmation'], { status: 'processing', updatedAt: now }, now);
        expect(claimed?.payment.status).toBe('processing');
        durable = claimed!.durable();
        const state = durable.then(() => 'durable');
        // The batch commits at the end of this turn of the event loop; its sync starts then and is held.
        await new Promise((resolve) => setImmediate(resolve));
        expect(heldSyncs()).toBeGreaterThanOrEqual(1);
        expect(await Promise.race([state, new Promise((resolve) => setTimeout(() => resolve('not durable'), 50))])).toBe('not durable');
        // Committed: another connection reads the claim and its attempt.
        expect((await stored(paymentId)).status).toBe('processing');
        expect(await h.store.attempts.listAttempts(scope(), paymentId)).toEqual([claimed!.attempt]);
      });
      // Released as the connection closes.
      await expect(durable!).resolves.toBeUndefined();
    });

    /** `work` on a connection of its own, told each statement sent to PostgreSQL (its text). */
    const withStatementsSeen = <T>(work: (db: Kysely<Database>, sent: string[]) => Promise<T>): Promise<T> =>
      withOwnConnection(h.database, async (db) => {
        const sent: string[] = [];
        const executor = db.getExecutor();
        const execute = executor.executeQuery.bind(executor);
        executor.executeQuery = (query) => {
          sent.push(query.sql);
          return execute(query);
        };
        return work(db, sent);
      });
    const ASYNCHRONOUS_COMMIT = "set_config('synchronous_commit', 'off', true)";
    const FLUSH = 'pg_logical_emit_message';
    const claimOn = async (db: Kysely<Database>, paymentId: string, options?: { flushLater?: boolean }) => {
      const now = h.clock.now();
      return (await paymentsSqlStores(db).payments.claimPaymentAndOpenAttempt(await stored(paymentId), ['requires_confirmation'], { status: 'processing', updatedAt: now }, now, options))!;
    };

    test.runIf(engine === 'postgres')('its one statement commits durably: `durable` is resolved at once and sends nothing', async () => {
      await withStatementsSeen(async (db, sent) => {
        const claimed = await claimOn(db, await createdPayment());
        expect(sent).toHaveLength(1);
        expect(sent[0]).not.toContain(ASYNCHRONOUS_COMMIT);
        const state = claimed.durable().then(() => 'durable');
        expect(await Promise.race([state, new Promise((resolve) => setImmediate(() => resolve('not durable')))])).toBe('durable');
        expect(sent).toHaveLength(1);
      });
    });

    test.runIf(engine === 'postgres')('with flushLater its statement commits without waiting for the WAL flush, for its own transaction only', async () => {
      await withStatementsSeen(async (db, sent) => {
        const paymentId = await createdPayment();
        const claimed = await claimOn(db, paymentId, { flushLater: true });
        expect(claimed.payment).toEqual(await stored(paymentId));
        expect(sent).toHaveLength(1);
        expect(sent[0]).toContain(ASYNCHRONOUS_COMMIT);
        // The session keeps synchronous_commit on: the next statement on this connection commits durably.
        expect(await synchronousCommit(db)).toBe('on');
      });
    });

    test.runIf(engine === 'postgres')("with flushLater, inside a caller's transaction the claim leaves that transaction's commit durable", async () => {
      await withStatementsSeen(async (db, sent) => {
        const paymentId = await createdPayment();
        const now = h.clock.now();
        const read = await stored(paymentId);
        await db.transaction().execute(async (tx) => {
          expect(await paymentsSqlStores(tx).payments.claimPaymentAndOpenAttempt(read, ['requires_confirmation'], { status: 'processing', updatedAt: now }, now, { flushLater: true })).toBeDefined();
          expect(await synchronousCommit(tx)).toBe('on');
        });
        expect(sent.some((text) => text.includes(ASYNCHRONOUS_COMMIT))).toBe(false);
        expect((await stored(paymentId)).status).toBe('processing');
      });
    });

    test.runIf(engine === 'postgres')('with flushLater, `durable` flushes the WAL past the claim, unless given a later version of the payment', async () => {
      await withStatementsSeen(async (db, sent) => {
        const lsn = async (name: 'insert' | 'flush') =>
          (await sql<{ lsn: string }>`select (${sql.raw(`pg_current_wal_${name}_lsn()`)} - '0/0')::text as lsn`.execute(db)).rows[0]!.lsn;
        const paymentId = await createdPayment();
        const claimed = await claimOn(db, paymentId, { flushLater: true });
        const written = BigInt(await lsn('insert'));
        sent.length = 0;
        // The payment as the claim left it covers nothing written after it: flushed.
        await claimed.durable(claimed.payment);
        expect(sent.filter((text) => text.includes(FLUSH))).toHaveLength(1);
        expect(BigInt(await lsn('flush'))).toBeGreaterThanOrEqual(written);
        await claimed.durable();
        expect(sent.filter((text) => text.includes(FLUSH))).toHaveLength(2);

        // A later version was committed durably after the claim: nothing to send.
        const second = await claimOn(db, await createdPayment(), { flushLater: true });
        sent.length = 0;
        await second.durable({ ...second.payment, version: second.payment.version + 1 });
        expect(sent).toEqual([]);
      });
    });

    test('in a transaction that rolls back, neither the claim nor the attempt stays', async () => {
      const paymentId = await createdPayment();
      const now = h.clock.now();
      const read = await stored(paymentId);
      await expect(
        h.store.transaction(async (tx) => {
          expect(await tx.payments.claimPaymentAndOpenAttempt(read, ['requires_confirmation'], { status: 'processing', updatedAt: now }, now)).toBeDefined();
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect((await h.store.payments.findPayment(scope(), paymentId))?.status).toBe('requires_confirmation');
      expect(await h.store.attempts.listAttempts(scope(), paymentId)).toEqual([]);
    });
  });

  describe('updatePaymentIfVersionWithEvent', () => {
    /** A payment claimed for its confirm: processing, with its pending attempt. */
    const claimedPayment = async (paymentId: string, now: Date) =>
      (await h.store.payments.claimPaymentAndOpenAttempt(await stored(paymentId), ['requires_confirmation'], { status: 'processing', updatedAt: now }, now))!;

    test('at the payment\'s version: the payment, its newest attempt and the event are written', async () => {
      const paymentId = await createdPayment();
      const now = h.clock.now();
      const claimed = await claimedPayment(paymentId, now);
      const changed = await h.store.payments.updatePaymentIfVersionWithEvent(
        claimed.payment,
        { status: 'succeeded', amountReceived: 1_234, nextAction: null, railState: { poll: 2 }, errorCode: undefined, updatedAt: now },
        { status: 'charged', referenceId: 'ref_1', updatedAt: now },
        eventFor(paymentId, `evt_${engine}_written`),
      );
      expect(changed).toMatchObject({ status: 'succeeded', amountReceived: 1_234, railState: { poll: 2 }, version: claimed.payment.version + 1 });
      expect(changed).toEqual(await stored(paymentId));
      expect(await h.store.attempts.listAttempts(scope(), paymentId)).toMatchObject([{ status: 'charged', referenceId: 'ref_1' }]);
      expect((await h.store.outbox.listEventsForObject(scope(), paymentId)).map((event) => event.eventId)).toEqual([`evt_${engine}_written`]);
    });

    test('at a stale version: nothing is written', async () => {
      const paymentId = await createdPayment();
      const now = h.clock.now();
      const claimed = await claimedPayment(paymentId, now);
      const changed = await h.store.payments.updatePaymentIfVersionWithEvent(
        { ...claimed.payment, version: claimed.payment.version - 1 },
        { status: 'succeeded', amountReceived: 1_234, updatedAt: now },
        { status: 'charged', referenceId: 'ref_1', updatedAt: now },
        eventFor(paymentId, `evt_${engine}_stale`),
      );
      expect(changed).toBeUndefined();
      expect(await h.store.payments.findPayment(scope(), paymentId)).toEqual(claimed.payment);
      expect(await h.store.attempts.listAttempts(scope(), paymentId)).toEqual([claimed.attempt]);
      expect(await h.store.outbox.listEventsForObject(scope(), paymentId)).toEqual([]);
    });
  });
});
