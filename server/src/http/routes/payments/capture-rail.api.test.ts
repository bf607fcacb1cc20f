/**
 * Capture and void of an open authorization go through the rail (docs/capture.md, "The rail"; docs/reliability.md),
 * through the API on SQLite and PostgreSQL: the simulated rail's ledger records each capture (under its capture id)
 * and each void (under the attempt id); the simulated rail never captures beyond the authorization nor voids a
 * captured one; a capture the rail refuses changes nothing; a crash between the rail's answer and its outcome (the
 * simulators' faults) is settled by recovery, on the next read or by the recovery job, without capturing twice.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { EventList } from '../../../../../protocol/api/events';
import type { PaymentResponse } from '../../../../../protocol/api/payments';
import { StuckObjectRecovery, type StuckObject } from '../../../core/recovery/recover-stuck-objects';
import type { RecoveryPolicy } from '../../../core/shared/deps';
import { cryptoIds } from '../../../kernel/ids';
import type { AccountSettings, RailCapabilities } from '../../../kernel/account-settings-types';
import type { CancelCapturesOutcome, CancelCapturesRequest, CaptureOutcome, CaptureRequest, IncrementAuthorizationOutcome, IncrementAuthorizationRequest, LookupRequest, NotReceived, RailAdapter, RailRegistry, VoidOutcome, VoidRequest } from '../../../rails/rail-adapter';
import { UpiSimulator } from '../../../rails/simulator/upi-simulator';
import { apiRequest, expectApiError, expectApiErrorResponse, expectOk } from '../../../test-support/api-assertions';
import { forEachEngine } from '../../../test-support/engines';
import { ALL_RAILS_SETTINGS } from '../../../test-support/fixtures';
import { createHarness, type Harness } from '../../../test-support/harness';

const NONE: RailCapabilities = { refunds: false, metadataUpdates: false, recurring: false, manualCapture: false, disputes: false };
/** UPI with manual capture in test mode. */
const SETTINGS: AccountSettings = {
  ...ALL_RAILS_SETTINGS,
  rails: ALL_RAILS_SETTINGS.rails.map((rail) => (rail.rail === 'upi' ? { ...rail, capabilities: { test: { ...NONE, manualCapture: true, refunds: true }, live: NONE } } : rail)),
};
/** A short rail call limit (and so a short lease on a capture or void at the rail: twice it). */
const POLICY: RecoveryPolicy = { railCallTimeoutMs: 150, recoverAfterMs: 60_000, leaseMs: 30_000, deadlineMs: 24 * 3600_000 };
const LEASE_MS = 2 * POLICY.railCallTimeoutMs;

/**
 * A UPI rail that authorizes as the simulator does and refuses every capture (unless `takesCaptures`), void and
 * cancel after capture (a test-only adapter).
 */
class RefusingUpi extends UpiSimulator {
  readonly captureRequests: CaptureRequest[] = [];
  readonly voidRequests: VoidRequest[] = [];
  readonly cancelRequests: CancelCapturesRequest[] = [];
  takesCaptures = false;
  /** What the rail captures of what it is asked (taking captures): less than asked, or more. */
  capturesDifferingBy = 0;
  async capture(request: CaptureRequest): Promise<CaptureOutcome> {
    this.captureRequests.push(request);
    if (this.takesCaptures) return { kind: 'captured', reference: `taken_${request.captureId}`, amount: request.amount + this.capturesDifferingBy };
    return { kind: 'declined', reference: 'refused_capture', errorCode: 'capture_refused', errorMessage: 'The acquirer refused the capture' };
  }
  async cancelCaptures(request: CancelCapturesRequest): Promise<CancelCapturesOutcome> {
    this.cancelRequests.push(request);
    return { kind: 'declined', reference: 'refused_cancel', errorCode: 'cancel_refused', errorMessage: 'The acquirer refused the cancel' };
  }
  async lookupCancelCaptures(_request: LookupRequest): Promise<CancelCapturesOutcome | NotReceived> {
    return { kind: 'not_received' };
  }
  async voidAuthorization(request: VoidRequest): Promise<VoidOutcome> {
    this.voidRequests.push(request);
    return { kind: 'declined', reference: 'refused_void', errorCode: 'void_refused', errorMessage: 'The acquirer refused the void' };
  }
  async lookupCapture(_request: LookupRequest): Promise<CaptureOutcome | NotReceived> {
    return { kind: 'not_received' };
  }
  async lookupVoid(_request: LookupRequest): Promise<VoidOutcome | NotReceived> {
    return { kind: 'not_received' };
  }
}

/**
 * A UPI rail whose increases stall in Rail's process after the rail answered (`duringIncrease` runs before the answer
 * comes back), and whose captures get no answer (the capture stays pending, its reservation taken).
 */
class StallingUpi extends UpiSimulator {
  duringIncrease: (() => Promise<void>) | undefined;
  /** The totals the rail was asked to hold, in order. */
  readonly totalsAsked: number[] = [];
  override async incrementAuthorization(request: IncrementAuthorizationRequest): Promise<IncrementAuthorizationOutcome> {
    this.totalsAsked.push(request.newAmount);
    const answer = await super.incrementAuthorization(request);
    await this.duringIncrease?.();
    return answer;
  }
  async capture(_request: CaptureRequest): Promise<CaptureOutcome> {
    throw new Error('no answer from the rail');
  }
  async voidAuthorization(_request: VoidRequest): Promise<VoidOutcome> {
    throw new Error('no answer from the rail');
  }
}

/**
 * A UPI rail whose captures answer as `answers` says for the amount asked (a function of the request), or not at all
 * (the function throws); a capture never received is not remembered, so recovery sends it again.
 */
class ScriptedUpi extends UpiSimulator {
  readonly captureRequests: CaptureRequest[] = [];
  answers: (request: CaptureRequest) => CaptureOutcome = (request) => ({ kind: 'captured', reference: `taken_${request.captureId}`, amount: request.amount });
  async capture(request: CaptureRequest): Promise<CaptureOutcome> {
    this.captureRequests.push(request);
    return this.answers(request);
  }
  async lookupCapture(_request: LookupRequest): Promise<CaptureOutcome | NotReceived> {
    return { kind: 'not_received' };
  }
}

type Json = Record<string, unknown>;

/**
 * The harness's rails, each adapter with the methods in `overrides` replaced (given the adapter itself); `undefined`
 * takes a method away.
 */
function railsOverriding(on: Harness, overrides: Partial<Record<keyof RailAdapter, (adapter: RailAdapter) => unknown>>): RailRegistry {
  return {
    adapterFor: (mode, rail) => {
      const adapter = on.core.rails.adapterFor(mode, rail);
      if (adapter === undefined) return undefined;
      return new Proxy(adapter, {
        get(target, property) {
          const override = overrides[property as keyof RailAdapter];
          if (property in overrides) return override?.(target);
          const value = Reflect.get(target, property, target) as unknown;
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      }) as RailAdapter;
    },
  };
}

forEachEngine('Capture and void at the rail', (engine) => {
  let h: Harness;
  let refusing: Harness;
  const refusingUpi = new RefusingUpi({ ids: cryptoIds, publicBaseUrl: 'http://127.0.0.1:8080' });
  let recovery: StuckObjectRecovery;
  const failures: { object: StuckObject; error: unknown }[] = [];

  beforeAll(async () => {
    h = await createHarness(engine, { settings: SETTINGS, recovery: POLICY });
    refusing = await createHarness(engine, {
      settings: SETTINGS,
      recovery: POLICY,
      testAdapters: { upi: refusingUpi },
    });
    recovery = new StuckObjectRecovery(h.core, { batchSize: 100, onError: (object, error) => failures.push({ object, error }) });
  });
  afterAll(async () => {
    await h?.close();
    await refusing?.close();
  });
  beforeEach(() => {
    h.faults.clear();
    failures.length = 0;
  });

  const request = (on: Harness, method: string, path: string, body?: unknown) => apiRequest(on, method, path, body === undefined ? {} : { body });
  const authorize = async (on: Harness, captureMethod = 'manual', amount = 10_000) => {
    const paid = await expectOk<PaymentResponse>(
      await request(on, 'POST', '/payments', {
        amount,
        currency: 'INR',
        capture_method: captureMethod,
        confirm: true,
        payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } },
      }),
    );
    expect(paid.status).toBe('requires_capture');
    return paid.payment_id;
  };
  const capture = (on: Harness, id: string, body: Json = {}) => request(on, 'POST', `/payments/${id}/capture`, body);
  const cancel = (on: Harness, id: string) => request(on, 'POST', `/payments/${id}/cancel`, { cancellation_reason: 'order cancelled' });
  const retrieve = async (on: Harness, id: string) => expectOk<PaymentResponse>(await request(on, 'GET', `/payments/${id}?expand_captures=true`));
  const eventTypes = async (on: Harness, id: string) =>
    (await expectOk<EventList>(await request(on, 'GET', `/events?object_id=${id}`))).data.map((event) => event.event_type).sort();
  /** What the simulated rail's ledger kept for this operation whose reference starts with `prefix`. */
  const ledger = async (operation: string, prefix: string) => {
    const rows = await h.db
      .selectFrom('rail_ledger')
      .select(['reference', 'answer'])
      .where('account_id', '=', h.boot.account.accountId)
      .where('operation', '=', operation)
      .execute();
    return rows
      .filter((row) => row.reference.startsWith(prefix))
      .map((row) => ({ reference: row.reference, answer: JSON.parse(row.answer) as Json }))
      .sort((a, b) => a.reference.localeCompare(b.reference));
  };
  const recoverAll = async () => {
    for (let step = await recovery.step(); step.checked > 0; step = await recovery.step());
  };

  describe(`[${engine}] the simulated rail`, () => {
    test('its ledger records each capture under its capture id, and the void under its own reference', async () => {
      const multiple = await authorize(h, 'manual_multiple');
      await expectOk(await capture(h, multiple, { amount_to_capture: 3_000 }));
      expect(await expectOk(await capture(h, multiple, { amount_to_capture: 2_000 }))).toMatchObject({
        status: 'partially_captured_and_capturable',
        amount_received: 5_000,
        amount_capturable: 5_000,
      });
      expect(await ledger('capture', `${multiple}_`)).toEqual([
        { reference: `${multiple}_1_1`, answer: expect.objectContaining({ kind: 'captured', amount: 3_000 }) },
        { reference: `${multiple}_1_2`, answer: expect.objectContaining({ kind: 'captured', amount: 2_000 }) },
      ]);
      const view = await retrieve(h, multiple);
      expect(view.captures?.map((c) => [c.capture_id, c.status, c.connector_capture_id])).toEqual([
        [`${multiple}_1_1`, 'charged', (await ledger('capture', `${multiple}_1_1`))[0]?.answer['reference']],
        [`${multiple}_1_2`, 'charged', (await ledger('capture', `${multiple}_1_2`))[0]?.answer['reference']],
      ]);

      const voided = await authorize(h);
      expect(await expectOk(await cancel(h, voided))).toMatchObject({ status: 'cancelled', amount_capturable: 0, amount_received: null });
      expect(await ledger('void', `${voided}_`)).toEqual([{ reference: expect.stringMatching(new RegExp(`^${voided}_1_void_hcr_`)), answer: expect.objectContaining({ kind: 'voided' }) }]);
      expect(await eventTypes(h, voided)).toEqual(['payment_authorized', 'payment_cancelled']);
    });

    test('it captures no more than the authorization and refuses to void a captured one', async () => {
      const id = await authorize(h, 'manual_multiple');
      await expectOk(await capture(h, id, { amount_to_capture: 6_000 }));
      const rail = h.rails.adapterFor('test', 'upi')!;
      const base = { accountId: h.boot.account.accountId, mode: 'test' as const, paymentId: id, attemptId: `${id}_1`, railReference: null, now: h.clock.now() };
      const over = await rail.capture!({ ...base, captureId: `${id}_1_9`, amount: 5_000, authorizedAmount: 10_000, final: false, currency: 'INR' });
      expect(over).toMatchObject({ kind: 'declined', errorCode: 'capture_exceeds_authorization' });
      // The capture the API recorded, sent again under its id, gets its first answer: captured once.
      expect(await rail.capture!({ ...base, captureId: `${id}_1_1`, amount: 6_000, authorizedAmount: 10_000, final: false, currency: 'INR' })).toMatchObject({ kind: 'captured', amount: 6_000 });
      expect(await rail.voidAuthorization!({ ...base, reference: `${id}_1_void_x` })).toMatchObject({ kind: 'declined', errorCode: 'authorization_captured' });
      expect(await rail.lookupVoid!({ accountId: base.accountId, mode: 'test', reference: `${id}_1_void_x`, now: base.now })).toMatchObject({ kind: 'declined' });
    });

    test('concurrent captures ask the rail for no more than was capturable', async () => {
      const id = await authorize(h, 'manual_multiple');
      const responses = await Promise.all(Array.from({ length: 6 }, () => capture(h, id, { amount_to_capture: 4_000 })));
      expect(responses.filter((response) => response.status === 200)).toHaveLength(2);
      const atRail = await ledger('capture', `${id}_`);
      expect(atRail).toHaveLength(2);
      expect(atRail.every((row) => row.answer['kind'] === 'captured')).toBe(true);
      expect(await retrieve(h, id)).toMatchObject({ status: 'partially_captured_and_capturable', amount_received: 8_000, amount_capturable: 2_000 });
    });
  });

  describe(`[${engine}] a rail that refuses`, () => {
    test('a refused capture changes nothing: ERR_4003, the payment as it was, the capture failed with the rail\'s error', async () => {
      const id = await authorize(refusing);
      const before = await retrieve(refusing, id);
      const error = await expectApiError(await capture(refusing, id, { amount_to_capture: 4_000 }), 'ERR_4003');
      expect(String(error['message'])).toMatch(/rail refused to capture 4000.*capture_refused/);
      // The rail was asked under the capture id; capture_method manual releases the rest: its last capture.
      expect(refusingUpi.captureRequests.at(-1)).toMatchObject({ paymentId: id, attemptId: `${id}_1`, captureId: `${id}_1_1`, amount: 4_000, authorizedAmount: 10_000, final: true });
      const after = await retrieve(refusing, id);
      expect(after).toMatchObject({ status: 'requires_capture', amount_capturable: 10_000, amount_received: null });
      expect(after.captures).toEqual([expect.objectContaining({ capture_id: `${id}_1_1`, status: 'failed', amount: 4_000, error_code: 'capture_refused' })]);
      const fields = (view: PaymentResponse) => [view.status, view.amount, view.amount_capturable, view.amount_received, view.cancellation_reason];
      expect(fields(after)).toEqual(fields(before));
      expect(await eventTypes(refusing, id)).toEqual(['payment_authorized']);
    });

    test('a refused void changes nothing: ERR_4003, still requires_capture with all of it capturable', async () => {
      const id = await authorize(refusing);
      const error = await expectApiError(await cancel(refusing, id), 'ERR_4003');
      expect(String(error['message'])).toMatch(/rail refused to void.*void_refused/);
      expect(refusingUpi.voidRequests.at(-1)).toMatchObject({ paymentId: id, attemptId: `${id}_1`, reference: expect.stringMatching(new RegExp(`^${id}_1_void_hcr_`)) });
      expect(await retrieve(refusing, id)).toMatchObject({ status: 'requires_capture', amount_capturable: 10_000, cancellation_reason: null });
      expect(await eventTypes(refusing, id)).toEqual(['payment_authorized']);
    });
  });

  describe(`[${engine}] a rail that captures another amount than asked`, () => {
    test('what the rail captured is recorded: amount_received, the capture\'s amount, and what stays capturable', async () => {
      refusingUpi.takesCaptures = true;
      try {
        // Less than asked, the rest kept open: the difference is capturable again.
        refusingUpi.capturesDifferingBy = -1_000;
        const multiple = await authorize(refusing, 'manual_multiple');
        expect(await expectOk(await capture(refusing, multiple, { amount_to_capture: 4_000 }))).toMatchObject({
          status: 'partially_captured_and_capturable',
          amount_received: 3_000,
          amount_capturable: 7_000,
        });
        expect((await retrieve(refusing, multiple)).captures).toEqual([expect.objectContaining({ status: 'charged', amount: 3_000 })]);
        // Less than asked by a final capture: the rail released the rest.
        const manual = await authorize(refusing, 'manual');
        expect(await expectOk(await capture(refusing, manual))).toMatchObject({ status: 'partially_captured', amount_received: 9_000, amount_capturable: 0 });
        expect((await retrieve(refusing, manual)).captures).toEqual([expect.objectContaining({ status: 'charged', amount: 9_000 })]);
        // More than asked: taken from what was capturable.
        refusingUpi.capturesDifferingBy = 500;
        const more = await authorize(refusing, 'manual_multiple');
        expect(await expectOk(await capture(refusing, more, { amount_to_capture: 4_000 }))).toMatchObject({
          status: 'partially_captured_and_capturable',
          amount_received: 4_500,
          amount_capturable: 5_500,
        });
      } finally {
        refusingUpi.takesCaptures = false;
        refusingUpi.capturesDifferingBy = 0;
      }
    });
  });

  describe(`[${engine}] captures that split the rest, one of them final`, () => {
    const scriptedUpi = new ScriptedUpi({ ids: cryptoIds, publicBaseUrl: 'http://127.0.0.1:8080' });
    let scripted: Harness;
    beforeAll(async () => {
      scripted = await createHarness(engine, { settings: SETTINGS, recovery: POLICY, testAdapters: { upi: scriptedUpi } });
    });
    afterAll(async () => {
      await scripted?.close();
    });
    /** A of 6000 gets no answer at first, then is taken as `capturedA`; B of the rest (4000, final) as `answerB` says. */
    const splitTheRest = async (capturedA: number, answerB: 'taken' | 'silent' | 'refused') => {
      const id = await authorize(scripted, 'manual_multiple');
      const silentA = new Set([`${id}_1_1`]);
      scriptedUpi.answers = (request) => {
        if (silentA.has(request.captureId) || (answerB === 'silent' && request.captureId === `${id}_1_2`)) throw new Error('no answer from the rail');
        if (request.captureId === `${id}_1_2` && answerB === 'refused') return { kind: 'declined', reference: 'refused', errorCode: 'capture_refused', errorMessage: 'refused' };
        return { kind: 'captured', reference: `taken_${request.captureId}`, amount: request.captureId === `${id}_1_1` ? capturedA : request.amount };
      };
      await expectOk(await capture(scripted, id, { amount_to_capture: 6_000 }));
      await capture(scripted, id, { amount_to_capture: 4_000 });
      expect(scriptedUpi.captureRequests.filter((request) => request.paymentId === id).map((request) => [request.amount, request.final])).toEqual([
        [6_000, false],
        [4_000, true],
      ]);
      silentA.clear();
      answerB = answerB === 'silent' ? 'taken' : answerB;
      return id;
    };
    const recoverScripted = async (id: string) => {
      scripted.clock.advance(LEASE_MS);
      return expectOk<PaymentResponse>(await request(scripted, 'GET', `/payments/${id}?expand_captures=true`));
    };

    test('a capture that got less than asked gives nothing back once a final one went out (taken before it, or still at the rail)', async () => {
      // B was taken first (it closed the authorization); A then settles 5000 of 6000.
      const bFirst = await splitTheRest(5_000, 'taken');
      expect(await recoverScripted(bFirst)).toMatchObject({ status: 'partially_captured', amount_received: 9_000, amount_capturable: 0 });
      await expectApiError(await capture(scripted, bFirst, { amount_to_capture: 1_000 }), 'ERR_4003');
      // Both at the rail; recovery settles A (while the final B is still at the rail), then B.
      const aFirst = await splitTheRest(5_000, 'silent');
      expect(await recoverScripted(aFirst)).toMatchObject({ status: 'partially_captured', amount_received: 9_000, amount_capturable: 0 });
      await expectApiError(await capture(scripted, aFirst, { amount_to_capture: 1_000 }), 'ERR_4003');
      expect(scriptedUpi.captureRequests.filter((request) => request.paymentId === bFirst || request.paymentId === aFirst).map((request) => request.amount)).not.toContain(1_000);
      expect((await retrieve(scripted, aFirst)).captures?.map((c) => [c.status, c.amount])).toEqual([
        ['charged', 5_000],
        ['charged', 4_000],
      ]);
    });

    test('a capture that got more than asked beyond what is capturable is not applied: it stays pending for an operator, and the job reports it', async () => {
      const id = await splitTheRest(6_500, 'taken');
      expect(await recoverScripted(id)).toMatchObject({ status: 'partially_captured_and_capturable', amount_received: 4_000, amount_capturable: 0 });
      expect((await retrieve(scripted, id)).captures?.map((c) => [c.status, c.amount])).toEqual([
        ['pending', 6_000],
        ['charged', 4_000],
      ]);
      const stored = await scripted.store.payments.findPayment({ accountId: scripted.boot.account.accountId, mode: 'test' }, id);
      expect(stored?.railState).toMatchObject({ captures_in_progress: { [`${id}_1_1`]: { unapplied_answer: { amount: 6_500 } } } });
      // Asked no more, and reported by the job.
      const asked = scriptedUpi.captureRequests.length;
      const reported: unknown[] = [];
      const job = new StuckObjectRecovery(scripted.core, { batchSize: 100, onError: (_object, error) => reported.push(error) });
      scripted.clock.advance(POLICY.recoverAfterMs + 1);
      await job.step();
      expect(scriptedUpi.captureRequests.length).toBe(asked);
      expect(String(reported[0])).toContain(`capture ${id}_1_1`);
      expect(await retrieve(scripted, id)).toMatchObject({ amount_received: 4_000 });
    });

    test('an amount the payment cannot take (0, negative, not whole) is not applied', async () => {
      for (const amount of [0, -100, 10.5]) {
        const id = await splitTheRest(amount, 'taken');
        expect(await recoverScripted(id), String(amount)).toMatchObject({ amount_received: 4_000, amount_capturable: 0 });
        expect((await retrieve(scripted, id)).captures?.[0]?.status, String(amount)).toBe('pending');
      }
    });

    test('an excess within what is capturable is taken from it, with another capture at the rail', async () => {
      const id = await authorize(scripted, 'manual_multiple');
      // A of 4000 at the rail (silent), B of 3000 taken as 3500: 3000 stays capturable, A keeps its 4000.
      scriptedUpi.answers = (request) => {
        if (request.captureId === `${id}_1_1`) throw new Error('no answer from the rail');
        return { kind: 'captured', reference: `taken_${request.captureId}`, amount: request.amount + 500 };
      };
      await expectOk(await capture(scripted, id, { amount_to_capture: 4_000 }));
      expect(await expectOk(await capture(scripted, id, { amount_to_capture: 3_000 }))).toMatchObject({ amount_received: 3_500, amount_capturable: 2_500 });
      scriptedUpi.answers = (request) => ({ kind: 'captured', reference: `taken_${request.captureId}`, amount: request.amount });
      expect(await recoverScripted(id)).toMatchObject({ status: 'partially_captured_and_capturable', amount_received: 7_500, amount_capturable: 2_500 });
    });

    test('a capture refused after a final one was taken releases the rest instead of making it capturable again', async () => {
      const id = await authorize(scripted, 'manual_multiple');
      scriptedUpi.answers = (request) => {
        if (request.captureId === `${id}_1_1`) throw new Error('no answer from the rail');
        return { kind: 'captured', reference: `taken_${request.captureId}`, amount: request.amount };
      };
      await expectOk(await capture(scripted, id, { amount_to_capture: 6_000 }));
      expect(await expectOk(await capture(scripted, id, { amount_to_capture: 4_000 }))).toMatchObject({ amount_received: 4_000, amount_capturable: 0 });
      scriptedUpi.answers = () => ({ kind: 'declined', reference: 'refused', errorCode: 'capture_refused', errorMessage: 'closed' });
      expect(await recoverScripted(id)).toMatchObject({ status: 'partially_captured', amount_received: 4_000, amount_capturable: 0 });
      const stored = await scripted.store.payments.findPayment({ accountId: scripted.boot.account.accountId, mode: 'test' }, id);
      expect(stored?.railState).toBeNull();
    });
  });

  describe(`[${engine}] a capture that releases the rest`, () => {
    test('waits while another capture is at the rail: ERR_4003 (retry later), nothing sent; taken once it settled', async () => {
      const id = await authorize(h, 'manual_multiple');
      h.faults.inject('throw_after_accept', { call: 'capture', rail: 'upi' });
      expect(await expectOk(await capture(h, id, { amount_to_capture: 3_000 }))).toMatchObject({ amount_capturable: 7_000 });
      const releasing = await expectApiErrorResponse(await capture(h, id, { amount_to_capture: 1_000, refund_uncaptured_amount: true }), 'ERR_4003');
      expect(String(releasing.error['message'])).toMatch(/capture is in progress/);
      expect(await ledger('capture', `${id}_`)).toHaveLength(1);
      // One that releases nothing: taken meanwhile.
      expect(await expectOk(await capture(h, id, { amount_to_capture: 1_000 }))).toMatchObject({ amount_capturable: 6_000 });
      h.clock.advance(LEASE_MS);
      expect(await expectOk(await capture(h, id, { amount_to_capture: 1_000, refund_uncaptured_amount: true }))).toMatchObject({
        status: 'partially_captured',
        amount_received: 5_000,
        amount_capturable: 0,
      });
      expect(await ledger('capture', `${id}_`)).toHaveLength(3);
    });
  });

  describe(`[${engine}] cancel after capture`, () => {
    const cancelPostCapture = (on: Harness, id: string) => request(on, 'POST', `/payments/${id}/cancel_post_capture`, { cancellation_reason: 'fraud' });

    test('goes through the rail: its ledger records it, and the rail then takes no capture of that authorization', async () => {
      const id = await authorize(h, 'manual_multiple');
      await expectOk(await capture(h, id, { amount_to_capture: 3_000 }));
      expect(await expectOk(await cancelPostCapture(h, id))).toMatchObject({ status: 'cancelled_post_capture', amount_received: 3_000, amount_capturable: 0 });
      expect(await ledger('cancel_post_capture', `${id}_`)).toEqual([
        { reference: expect.stringMatching(new RegExp(`^${id}_1_cpc_hcr_`)), answer: expect.objectContaining({ kind: 'cancelled' }) },
      ]);
      expect(await eventTypes(h, id)).toEqual(['payment_authorized', 'payment_cancelled_post_capture', 'payment_captured']);
      const rail = h.rails.adapterFor('test', 'upi')!;
      const base = { accountId: h.boot.account.accountId, mode: 'test' as const, paymentId: id, attemptId: `${id}_1`, railReference: null, now: h.clock.now() };
      expect(await rail.capture!({ ...base, captureId: `${id}_1_9`, amount: 1_000, authorizedAmount: 10_000, final: false, currency: 'INR' })).toMatchObject({
        kind: 'declined',
        errorCode: 'authorization_voided',
      });
    });

    test('refused by the rail: ERR_4003 with its reason, the payment as it was', async () => {
      refusingUpi.takesCaptures = true;
      try {
        const id = await authorize(refusing, 'manual_multiple');
        await expectOk(await capture(refusing, id, { amount_to_capture: 3_000 }));
        const before = await retrieve(refusing, id);
        const error = await expectApiError(await cancelPostCapture(refusing, id), 'ERR_4003');
        expect(String(error['message'])).toMatch(/rail refused to cancel this payment after capture.*cancel_refused/);
        expect(refusingUpi.cancelRequests.at(-1)).toMatchObject({ paymentId: id, attemptId: `${id}_1`, captured: 3_000, releases: 7_000 });
        const after = await retrieve(refusing, id);
        expect(after).toMatchObject({ status: 'partially_captured_and_capturable', amount_received: 3_000, amount_capturable: 7_000, cancellation_reason: null });
        expect(after.status).toBe(before.status);
      } finally {
        refusingUpi.takesCaptures = false;
      }
    });

    test('on a rail that takes captures but cannot cancel them: refused, nothing changed', async () => {
      refusingUpi.takesCaptures = true;
      const adapter = refusingUpi as { cancelCaptures?: unknown };
      adapter.cancelCaptures = undefined;
      try {
        const id = await authorize(refusing, 'manual_multiple');
        await expectOk(await capture(refusing, id, { amount_to_capture: 3_000 }));
        const error = await expectApiError(await cancelPostCapture(refusing, id), 'ERR_4003');
        expect(String(error['message'])).toMatch(/cannot cancel the captures it took/);
        expect(await retrieve(refusing, id)).toMatchObject({ status: 'partially_captured_and_capturable', amount_capturable: 7_000 });
      } finally {
        delete adapter.cancelCaptures;
        refusingUpi.takesCaptures = false;
      }
    });

    test('the rail cancelled, then the call failed: a refund waits, and the next read past its lease settles it', async () => {
      const id = await authorize(h);
      await expectOk(await capture(h, id, { amount_to_capture: 4_000 }));
      h.faults.inject('throw_after_accept', { call: 'cancel_post_capture', rail: 'upi' });
      expect(await expectOk(await cancelPostCapture(h, id))).toMatchObject({ status: 'partially_captured', amount_received: 4_000 });
      await expectApiError(await request(h, 'POST', '/refunds', { payment_id: id, amount: 1_000 }), 'ERR_4003');
      h.clock.advance(LEASE_MS);
      expect(await retrieve(h, id)).toMatchObject({ status: 'cancelled_post_capture', amount_received: 4_000, cancellation_reason: 'fraud' });
      expect(await ledger('cancel_post_capture', `${id}_`)).toHaveLength(1);
    });
  });

  describe(`[${engine}] a keyed re-run`, () => {
    const keyed = (id: string, operation: 'capture' | 'cancel' | 'cancel_post_capture', key: string, body: Json) =>
      apiRequest(h, 'POST', `/payments/${id}/${operation}`, { body, headers: { 'idempotency-key': key } });
    /** The process died after the operation, before its answer was stored: the claim is in flight, its lease over. */
    const answerLost = (key: string) =>
      h.db
        .updateTable('idempotency_keys')
        .set({ status: 'in_flight', response_status: null, response_headers: null, response_body: null, locked_at: '2000-01-01T00:00:00.000Z' })
        .where('idempotency_key', '=', key)
        .execute();

    test('after a crash that followed the rail\'s capture, it answers from its capture instead of capturing again', async () => {
      const id = await authorize(h, 'manual_multiple');
      const key = `capture-crash-${engine}-${id}`;
      h.faults.inject('throw_after_accept', { call: 'capture', rail: 'upi' });
      expect(await expectOk(await keyed(id, 'capture', key, { amount_to_capture: 3_000 }))).toMatchObject({ amount_received: null, amount_capturable: 7_000 });
      await answerLost(key);
      h.clock.advance(LEASE_MS);
      expect(await expectOk(await keyed(id, 'capture', key, { amount_to_capture: 3_000 }))).toMatchObject({
        status: 'partially_captured_and_capturable',
        amount_received: 3_000,
        amount_capturable: 7_000,
      });
      expect(await ledger('capture', `${id}_`)).toEqual([{ reference: `${id}_1_1`, answer: expect.objectContaining({ kind: 'captured', amount: 3_000 }) }]);
      expect((await retrieve(h, id)).captures).toHaveLength(1);
    });

    test('after a 5xx that followed the rail\'s capture (the key released), it answers its pending capture instead of capturing again', async () => {
      const id = await authorize(h, 'manual_multiple');
      const key = `capture-5xx-${engine}-${id}`;
      // The transaction that records the rail's answer fails (the reservation is the first one of the request).
      const transaction = h.store.transaction.bind(h.store);
      let transactions = 0;
      h.store.transaction = ((work: Parameters<typeof transaction>[0]) => {
        transactions += 1;
        if (transactions === 2) return Promise.reject(new Error('the database went away'));
        return transaction(work);
      }) as typeof h.store.transaction;
      try {
        expect((await keyed(id, 'capture', key, { amount_to_capture: 3_000 })).status).toBe(500);
      } finally {
        h.store.transaction = transaction;
      }
      expect(transactions).toBe(2);
      expect(await expectOk(await keyed(id, 'capture', key, { amount_to_capture: 3_000 }))).toMatchObject({ status: 'requires_capture', amount_received: null, amount_capturable: 7_000 });
      h.clock.advance(LEASE_MS);
      expect(await retrieve(h, id)).toMatchObject({ status: 'partially_captured_and_capturable', amount_received: 3_000, amount_capturable: 7_000 });
      expect(await ledger('capture', `${id}_`)).toHaveLength(1);
    });

    test('of a capture the rail refused answers the refusal again, and captures nothing', async () => {
      const id = await authorize(refusing, 'manual_multiple');
      const key = `capture-refused-${engine}-${id}`;
      const send = () => apiRequest(refusing, 'POST', `/payments/${id}/capture`, { body: { amount_to_capture: 3_000 }, headers: { 'idempotency-key': key } });
      await expectApiError(await send(), 'ERR_4003');
      const sent = refusingUpi.captureRequests.length;
      await refusing.db
        .updateTable('idempotency_keys')
        .set({ status: 'in_flight', response_status: null, response_headers: null, response_body: null, locked_at: '2000-01-01T00:00:00.000Z' })
        .where('idempotency_key', '=', key)
        .execute();
      expect(String((await expectApiError(await send(), 'ERR_4003'))['message'])).toMatch(/rail refused to capture 3000.*capture_refused/);
      expect(refusingUpi.captureRequests).toHaveLength(sent);
    });

    test('after a crash that followed the rail\'s void, it answers the cancelled payment (not "cannot cancel")', async () => {
      const id = await authorize(h);
      const key = `cancel-crash-${engine}-${id}`;
      h.faults.inject('throw_after_accept', { call: 'void', rail: 'upi' });
      expect(await expectOk(await keyed(id, 'cancel', key, { cancellation_reason: 'order cancelled' }))).toMatchObject({ status: 'requires_capture' });
      await answerLost(key);
      h.clock.advance(LEASE_MS);
      expect(await expectOk(await keyed(id, 'cancel', key, { cancellation_reason: 'order cancelled' }))).toMatchObject({ status: 'cancelled', cancellation_reason: 'order cancelled' });
      expect(await eventTypes(h, id)).toEqual(['payment_authorized', 'payment_cancelled']);
      // Another cancel request is still refused.
      await expectApiError(await cancel(h, id), 'ERR_4003');
    });

    test('after a crash that followed the rail\'s cancel after capture, it answers the cancelled payment', async () => {
      const id = await authorize(h, 'manual_multiple');
      await expectOk(await capture(h, id, { amount_to_capture: 3_000 }));
      const key = `cpc-crash-${engine}-${id}`;
      h.faults.inject('throw_after_accept', { call: 'cancel_post_capture', rail: 'upi' });
      expect(await expectOk(await keyed(id, 'cancel_post_capture', key, {}))).toMatchObject({ status: 'partially_captured_and_capturable', amount_capturable: 0 });
      await answerLost(key);
      h.clock.advance(LEASE_MS);
      expect(await expectOk(await keyed(id, 'cancel_post_capture', key, {}))).toMatchObject({ status: 'cancelled_post_capture', amount_received: 3_000 });
      expect(await ledger('cancel_post_capture', `${id}_`)).toHaveLength(1);
    });
  });

  describe(`[${engine}] recovery`, () => {
    test('the rail captured, then the call failed (a crash before the outcome): pending until recovery, then captured once', async () => {
      const id = await authorize(h);
      h.faults.inject('throw_after_accept', { call: 'capture', rail: 'upi' });
      // Nothing is claimed: the capture is pending, what it takes is no longer capturable.
      const answered = await expectOk<PaymentResponse>(await capture(h, id));
      expect(answered).toMatchObject({ status: 'requires_capture', amount_received: null, amount_capturable: 0 });
      expect((await retrieve(h, id)).captures).toEqual([expect.objectContaining({ capture_id: `${id}_1_1`, status: 'pending', amount: 10_000 })]);
      // Another capture and a void wait for it.
      await expectApiError(await capture(h, id), 'ERR_4003');
      await expectApiError(await cancel(h, id), 'ERR_4003');
      expect(await eventTypes(h, id)).toEqual(['payment_authorized']);

      // Too early for the job: the request may still be waiting for the rail.
      await recoverAll();
      expect((await retrieve(h, id)).status).toBe('requires_capture');
      h.clock.advance(POLICY.recoverAfterMs + 1);
      await recoverAll();
      const recovered = await retrieve(h, id);
      expect(recovered).toMatchObject({ status: 'succeeded', amount_received: 10_000, amount_capturable: 0 });
      expect(recovered.captures).toEqual([expect.objectContaining({ capture_id: `${id}_1_1`, status: 'charged' })]);
      expect(await eventTypes(h, id)).toEqual(['payment_authorized', 'payment_succeeded']);
      expect(await ledger('capture', `${id}_`)).toHaveLength(1);
      await recoverAll();
      expect(await eventTypes(h, id)).toEqual(['payment_authorized', 'payment_succeeded']);
      expect(failures).toEqual([]);
    });

    test('the rail never received the capture: recovery sends it again under the same capture id, captured once', async () => {
      const id = await authorize(h, 'manual_multiple');
      h.faults.inject('throw_before_accept', { call: 'capture', rail: 'upi' });
      expect(await expectOk(await capture(h, id, { amount_to_capture: 4_000 }))).toMatchObject({ status: 'requires_capture', amount_capturable: 6_000 });
      expect(await ledger('capture', `${id}_`)).toEqual([]);
      h.clock.advance(POLICY.recoverAfterMs + 1);
      await recoverAll();
      expect(await retrieve(h, id)).toMatchObject({ status: 'partially_captured_and_capturable', amount_received: 4_000, amount_capturable: 6_000 });
      expect(await ledger('capture', `${id}_`)).toEqual([{ reference: `${id}_1_1`, answer: expect.objectContaining({ kind: 'captured', amount: 4_000 }) }]);
      expect(failures).toEqual([]);
    });

    test('a rail that does not answer in time: the capture answers what is known, and the next read past its lease settles it', async () => {
      const id = await authorize(h);
      h.faults.inject('timeout', { call: 'capture', rail: 'upi' });
      expect(await expectOk(await capture(h, id))).toMatchObject({ status: 'requires_capture', amount_received: null });
      // Within the lease the request may still be waiting: a read leaves it.
      expect((await retrieve(h, id)).status).toBe('requires_capture');
      h.clock.advance(LEASE_MS);
      expect(await retrieve(h, id)).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
      expect(await eventTypes(h, id)).toEqual(['payment_authorized', 'payment_succeeded']);
      expect(await ledger('capture', `${id}_`)).toHaveLength(1);
    });

    test('the rail voided, then the call failed: the void is settled on the next read past its lease, with its event', async () => {
      const id = await authorize(h);
      h.faults.inject('throw_after_accept', { call: 'void', rail: 'upi' });
      expect(await expectOk(await cancel(h, id))).toMatchObject({ status: 'requires_capture', amount_capturable: 0 });
      await expectApiError(await capture(h, id), 'ERR_4003');
      h.clock.advance(LEASE_MS);
      expect(await retrieve(h, id)).toMatchObject({ status: 'cancelled', amount_capturable: 0, cancellation_reason: 'order cancelled' });
      expect(await eventTypes(h, id)).toEqual(['payment_authorized', 'payment_cancelled']);
      expect(await ledger('void', `${id}_`)).toHaveLength(1);
    });
    test("a browser's read (publishable key) asks the rail nothing about a capture at the rail; the merchant's read does", async () => {
      const id = await authorize(h);
      const clientSecret = (await retrieve(h, id)).client_secret;
      h.faults.inject('timeout', { call: 'capture', rail: 'upi' });
      await expectOk(await capture(h, id));
      h.clock.advance(LEASE_MS);
      const browserRead = await expectOk<PaymentResponse>(await apiRequest(h, 'GET', `/payments/${id}?client_secret=${clientSecret}`, { key: h.publishableKey }));
      expect(browserRead).toMatchObject({ status: 'requires_capture', amount_received: null });
      expect(await retrieve(h, id)).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
    });

    test('an extension of the authorization waits while its void is at the rail (ERR_4003)', async () => {
      const id = await authorize(h);
      h.faults.inject('timeout', { call: 'void', rail: 'upi' });
      await expectOk(await cancel(h, id));
      await expectApiError(await request(h, 'POST', `/payments/${id}/extend_authorization`), 'ERR_4003');
      h.clock.advance(LEASE_MS);
      expect((await retrieve(h, id)).status).toBe('cancelled');
      expect(await eventTypes(h, id)).toEqual(['payment_authorized', 'payment_cancelled']);
    });

    test('the job pages past captures the rail never answers about: a newer one behind a full batch of them is settled', async () => {
      // A database of its own: other tests' objects would share the listings.
      const own = await createHarness(engine, { settings: SETTINGS, recovery: POLICY });
      try {
        /** Payments whose captures the rail never answers about (every lookup fails). */
        const silent = new Set<string>();
        const lookedUp: string[] = [];
        const rails = railsOverriding(own, {
          lookupCapture: (target) => async (lookup: LookupRequest) => {
            lookedUp.push(lookup.reference);
            if ([...silent].some((id) => lookup.reference.startsWith(`${id}_`))) throw new Error('the rail does not answer');
            return target.lookupCapture!(lookup);
          },
        });
        const job = new StuckObjectRecovery({ ...own.core, rails }, { batchSize: 2, pagesPerStep: 1, onError: (object, error) => failures.push({ object, error }) });
        const capturedAtRail = async () => {
          const id = await authorize(own);
          own.faults.inject('throw_after_accept', { call: 'capture', rail: 'upi' });
          expect(await expectOk(await capture(own, id))).toMatchObject({ status: 'requires_capture', amount_capturable: 0 });
          own.clock.advance(1_000);
          return id;
        };
        const oldest = [await capturedAtRail(), await capturedAtRail()];
        for (const id of oldest) silent.add(id);
        const newer = await capturedAtRail();
        const stored = (id: string) => own.store.payments.findPayment({ accountId: own.boot.account.accountId, mode: 'test' }, id);

        own.clock.advance(POLICY.recoverAfterMs + 1);
        for (let step = 0; step < 3; step += 1) {
          await job.step();
          // Past the leases: a job that lists the oldest again takes them again.
          own.clock.advance(POLICY.leaseMs + 1);
        }
        expect(await stored(newer)).toMatchObject({ status: 'succeeded', amountReceived: 10_000, railState: null });
        for (const id of oldest) expect(await stored(id)).toMatchObject({ status: 'requires_capture', amountCapturable: 0 });
        // Once a step reached the end, the next starts from the oldest again.
        const askedBefore = lookedUp.filter((reference) => reference.startsWith(`${oldest[0]}_`)).length;
        await job.step();
        own.clock.advance(POLICY.leaseMs + 1);
        await job.step();
        expect(lookedUp.filter((reference) => reference.startsWith(`${oldest[0]}_`)).length).toBeGreaterThan(askedBefore);
        expect(failures).toEqual([]);
      } finally {
        await own.close();
      }
    });

    test('a step of slow rail calls: each lease lasts leaseMs from when its object is asked, and the step stops after about a lease, the next resuming after it', async () => {
      const own = await createHarness(engine, { settings: SETTINGS, recovery: POLICY });
      try {
        /** When each capture was asked about (on the manual clock); every lookup takes 10 s and gets no answer. */
        const asked: { reference: string; at: number }[] = [];
        const rails = railsOverriding(own, {
          lookupCapture: () => async (lookup: LookupRequest) => {
            asked.push({ reference: lookup.reference, at: own.clock.now().getTime() });
            own.clock.advance(10_000);
            throw new Error('the rail does not answer');
          },
        });
        const job = new StuckObjectRecovery({ ...own.core, rails }, { batchSize: 100, onError: (object, error) => failures.push({ object, error }) });
        const ids: string[] = [];
        for (let i = 0; i < 5; i += 1) {
          // Partial captures of manual_multiple payments: only the pending-captures listing holds them.
          const id = await authorize(own, 'manual_multiple');
          own.faults.inject('throw_after_accept', { call: 'capture', rail: 'upi' });
          await expectOk(await capture(own, id, { amount_to_capture: 4_000 }));
          own.clock.advance(1_000);
          ids.push(id);
        }
        own.clock.advance(POLICY.recoverAfterMs + 1);
        await job.step();
        const leases = await own.db.selectFrom('recovery_leases').select(['object_id', 'leased_until']).execute();
        const leasedUntil = new Map(leases.map((lease) => [lease.object_id, Date.parse(lease.leased_until)]));
        expect(asked.length).toBeGreaterThan(0);
        for (const { reference, at } of asked) expect(leasedUntil.get(reference.slice(0, reference.indexOf('_1_'))), reference).toBe(at + POLICY.leaseMs);
        // Stopped before the listing's end (5 calls of 10 s would take 50 s), and the next step resumes after it.
        expect(asked.length).toBeLessThan(ids.length);
        const first = asked.length;
        await job.step();
        expect(asked[first]?.reference.startsWith(`${ids[first]}_`)).toBe(true);
      } finally {
        await own.close();
      }
    });

    test('lapsed increase claims nothing can settle (no reference, a payment no longer requires_capture) are cleared by the recovery job', async () => {
      const stored = (id: string) => h.store.payments.findPayment({ accountId: h.boot.account.accountId, mode: 'test' }, id);
      const mark = async (id: string, claim: Json) => {
        const railState = JSON.stringify({ incremental_authorization_in_progress: { token: 'tok', amount: 15_000, lease_expires_at: h.clock.now().toISOString(), ...claim } });
        await h.db.updateTable('payments').set({ rail_state: railState }).where('payment_id', '=', id).execute();
      };
      // A claim from before references, on an open authorization; one with a reference on a captured payment.
      const open = await authorize(h, 'manual_multiple');
      await mark(open, {});
      const captured = await authorize(h, 'manual_multiple');
      await expectOk(await capture(h, captured));
      await mark(captured, { reference: `${captured}_1_inc_old` });
      h.clock.advance(POLICY.recoverAfterMs + 1);
      await recoverAll();
      expect(await stored(open)).toMatchObject({ status: 'requires_capture', amount: 10_000, railState: null });
      expect(await stored(captured)).toMatchObject({ status: 'succeeded', amount: 10_000, railState: null });
      // One with a reference on an open authorization, on a rail that cannot be asked about increases.
      const unasked = await authorize(h, 'manual_multiple');
      await mark(unasked, { reference: `${unasked}_1_inc_old` });
      const rails = railsOverriding(h, { lookupIncrement: undefined });
      h.clock.advance(POLICY.recoverAfterMs + 1);
      await new StuckObjectRecovery({ ...h.core, rails }, { batchSize: 100, onError: (object, error) => failures.push({ object, error }) }).step();
      expect(await stored(unasked)).toMatchObject({ status: 'requires_capture', amount: 10_000, railState: null });
      expect(failures).toEqual([]);
    });

    test('the rail cancelled after capture, then the call failed: the recovery job settles it without anyone reading the payment', async () => {
      const id = await authorize(h, 'manual_multiple');
      await expectOk(await capture(h, id, { amount_to_capture: 4_000 }));
      h.faults.inject('throw_after_accept', { call: 'cancel_post_capture', rail: 'upi' });
      const cancelPostCapture = await request(h, 'POST', `/payments/${id}/cancel_post_capture`, { cancellation_reason: 'fraud' });
      expect(await expectOk(cancelPostCapture)).toMatchObject({ status: 'partially_captured_and_capturable', amount_capturable: 0 });
      const stored = () => h.store.payments.findPayment({ accountId: h.boot.account.accountId, mode: 'test' }, id);
      await recoverAll();
      expect((await stored())?.status).toBe('partially_captured_and_capturable');
      h.clock.advance(POLICY.recoverAfterMs + 1);
      await recoverAll();
      expect(await stored()).toMatchObject({ status: 'cancelled_post_capture', amountReceived: 4_000, amountCapturable: 0, cancellationReason: 'fraud' });
      expect(await eventTypes(h, id)).toEqual(['payment_authorized', 'payment_cancelled_post_capture', 'payment_captured']);
      expect(await ledger('cancel_post_capture', `${id}_`)).toHaveLength(1);
      expect(failures).toEqual([]);
    });

    const increase = (on: Harness, id: string, amount: number) => request(on, 'POST', `/payments/${id}/incremental_authorization`, { amount });

    test('the rail raised the authorization, then the call failed: the claim holds, and the next read past its lease applies the increase', async () => {
      const id = await authorize(h, 'manual_multiple');
      h.faults.inject('throw_after_accept', { call: 'increment_authorization', rail: 'upi' });
      expect(await expectOk(await increase(h, id, 15_000))).toMatchObject({ status: 'requires_capture', amount: 10_000, amount_capturable: 10_000 });
      // The rail may have raised it: captures and another increase wait.
      await expectApiError(await capture(h, id, { amount_to_capture: 1_000 }), 'ERR_4003');
      await expectApiError(await increase(h, id, 12_000), 'ERR_4003');
      h.clock.advance(LEASE_MS);
      expect(await retrieve(h, id)).toMatchObject({ status: 'requires_capture', amount: 15_000, amount_capturable: 15_000 });
      expect(await eventTypes(h, id)).toEqual(['payment_authorized', 'payment_authorized']);
      expect(await ledger('increment_authorization', `${id}_`)).toEqual([{ reference: expect.stringMatching(new RegExp(`^${id}_1_inc_`)), answer: expect.objectContaining({ kind: 'authorized' }) }]);
      expect(await expectOk(await capture(h, id))).toMatchObject({ status: 'succeeded', amount_received: 15_000 });
    });

    test('an increase the rail granted and that cannot be asked about yet: a capture or a cancel past its lease waits (ERR_4003), and the increase is applied once the rail answers', async () => {
      for (const operation of ['capture', 'cancel'] as const) {
        const id = await authorize(h, 'manual_multiple');
        h.faults.inject('throw_after_accept', { call: 'increment_authorization', rail: 'upi' });
        await expectOk(await increase(h, id, 15_000));
        h.clock.advance(LEASE_MS);
        h.faults.inject('throw_before_accept', { call: 'lookup', rail: 'upi' });
        const refused = operation === 'capture' ? await capture(h, id) : await cancel(h, id);
        await expectApiError(refused, 'ERR_4003');
        expect(await ledger(operation === 'capture' ? 'capture' : 'void', `${id}_`), operation).toEqual([]);
        // The rail answers on the next try: the increase is applied, then the capture or cancel goes through.
        expect(await retrieve(h, id), operation).toMatchObject({ status: 'requires_capture', amount: 15_000, amount_capturable: 15_000 });
        const done = await expectOk<PaymentResponse>(operation === 'capture' ? await capture(h, id) : await cancel(h, id));
        expect(done, operation).toMatchObject(operation === 'capture' ? { status: 'succeeded', amount_received: 15_000 } : { status: 'cancelled' });
      }
    });

    test('an increase the rail never received: the next operation past its lease clears the claim, and nothing is raised', async () => {
      const id = await authorize(h, 'manual_multiple');
      h.faults.inject('throw_before_accept', { call: 'increment_authorization', rail: 'upi' });
      expect(await expectOk(await increase(h, id, 15_000))).toMatchObject({ amount: 10_000 });
      h.clock.advance(LEASE_MS);
      expect(await expectOk(await capture(h, id, { amount_to_capture: 1_000 }))).toMatchObject({ amount: 10_000, amount_received: 1_000, amount_capturable: 9_000 });
      expect(await eventTypes(h, id)).toEqual(['payment_authorized', 'payment_captured']);
      expect(await ledger('increment_authorization', `${id}_`)).toEqual([]);
    });

    test('the rail raised the authorization, then the call failed: the recovery job applies it without anyone reading the payment', async () => {
      const id = await authorize(h, 'manual_multiple');
      h.faults.inject('throw_after_accept', { call: 'increment_authorization', rail: 'upi' });
      await expectOk(await increase(h, id, 15_000));
      const stored = () => h.store.payments.findPayment({ accountId: h.boot.account.accountId, mode: 'test' }, id);
      h.clock.advance(POLICY.recoverAfterMs + 1);
      await recoverAll();
      expect(await stored()).toMatchObject({ status: 'requires_capture', amount: 15_000, amountCapturable: 15_000, railState: null });
      expect(await eventTypes(h, id)).toEqual(['payment_authorized', 'payment_authorized']);
      expect(failures).toEqual([]);
    });

    test('a late increase (its request stalled past its lease, then answered) does not overwrite the reservation of a capture or void made meanwhile', async () => {
      // A long rail call limit: the stall is in Rail's process, past the claim's lease on the (manual) clock.
      const slowPolicy: RecoveryPolicy = { ...POLICY, railCallTimeoutMs: 10_000 };
      const stallingUpi = new StallingUpi({ ids: cryptoIds, publicBaseUrl: 'http://127.0.0.1:8080' });
      const own = await createHarness(engine, { settings: SETTINGS, recovery: slowPolicy, testAdapters: { upi: stallingUpi } });
      try {
        // The rail granted 15000 to a request the payment no longer follows: it is set back to the payment's total, unless
        // the authorization is being closed (a void, a final capture at the rail).
        for (const [operation, reserved, totalsAsked] of [
          ['capture', { amount: 10_000, amount_capturable: 6_000 }, [15_000, 10_000]],
          ['final capture', { amount: 10_000, amount_capturable: 0 }, [15_000]],
          ['cancel', { amount: 10_000, amount_capturable: 0 }, [15_000]],
        ] as const) {
          const id = await authorize(own, 'manual_multiple');
          stallingUpi.totalsAsked.length = 0;
          let meanwhile: Response | undefined;
          stallingUpi.duringIncrease = async () => {
            stallingUpi.duringIncrease = undefined;
            own.clock.advance(2 * slowPolicy.railCallTimeoutMs);
            meanwhile =
              operation === 'capture' ? await capture(own, id, { amount_to_capture: 4_000 }) : operation === 'final capture' ? await capture(own, id) : await cancel(own, id);
          };
          const late = await expectOk<PaymentResponse>(await increase(own, id, 15_000));
          // The capture or void was taken over the lapsed claim, and is still at the rail.
          expect(await expectOk<PaymentResponse>(meanwhile!), operation).toMatchObject({ status: 'requires_capture', ...reserved });
          expect(late, operation).toMatchObject({ status: 'requires_capture', ...reserved });
          expect(await retrieve(own, id), operation).toMatchObject({ status: 'requires_capture', ...reserved });
          expect(await eventTypes(own, id), operation).toEqual(['payment_authorized']);
          expect(stallingUpi.totalsAsked, operation).toEqual(totalsAsked);
        }
      } finally {
        await own.close();
      }
    });

    test('the rail voided, then the call failed: the recovery job settles it without anyone reading the payment', async () => {
      const id = await authorize(h);
      h.faults.inject('throw_after_accept', { call: 'void', rail: 'upi' });
      expect(await expectOk(await cancel(h, id))).toMatchObject({ status: 'requires_capture', amount_capturable: 0 });
      const stored = () => h.store.payments.findPayment({ accountId: h.boot.account.accountId, mode: 'test' }, id);
      await recoverAll();
      expect((await stored())?.status).toBe('requires_capture');
      h.clock.advance(POLICY.recoverAfterMs + 1);
      await recoverAll();
      expect(await stored()).toMatchObject({ status: 'cancelled', amountCapturable: 0, railState: { cancelled_by_request: expect.any(String) } });
      expect(await eventTypes(h, id)).toEqual(['payment_authorized', 'payment_cancelled']);
      expect(failures).toEqual([]);
    });
  });
});
