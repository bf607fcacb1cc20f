import { describe, expect, test } from 'vitest';
import { PAYMENT_STATUSES } from '../../../../protocol/payments';
import { decideTransition, PAYMENT_TRANSITIONS, statusesAllowing, type TransitionFacts } from './payment-transitions';

const facts = (overrides: Partial<TransitionFacts> = {}): TransitionFacts => ({
  hasPaymentMethodData: true,
  captureMethod: 'automatic',
  ...overrides,
});

describe('payment transition table', () => {
  test.each([
    { from: null, trigger: 'create', f: facts({ hasPaymentMethodData: false }), to: 'requires_payment_method' },
    { from: null, trigger: 'create', f: facts(), to: 'requires_confirmation' },
    { from: 'requires_payment_method', trigger: 'confirm', f: facts(), to: 'processing' },
    { from: 'requires_confirmation', trigger: 'confirm', f: facts(), to: 'processing' },
    { from: 'processing', trigger: 'rail_result', f: facts({ railResult: 'authorized' }), to: 'succeeded' },
    { from: 'processing', trigger: 'rail_result', f: facts({ railResult: 'authorized', captureMethod: 'sequential_automatic' }), to: 'succeeded' },
    { from: 'processing', trigger: 'rail_result', f: facts({ railResult: 'authorized', captureMethod: 'manual' }), to: 'requires_capture' },
    { from: 'processing', trigger: 'rail_result', f: facts({ railResult: 'declined' }), to: 'failed' },
    { from: 'processing', trigger: 'rail_result', f: facts({ railResult: 'customer_action' }), to: 'requires_customer_action' },
    { from: 'requires_customer_action', trigger: 'rail_sync', f: facts({ railResult: 'authorized' }), to: 'succeeded' },
    { from: 'requires_customer_action', trigger: 'rail_sync', f: facts({ railResult: 'declined' }), to: 'failed' },
    { from: 'requires_payment_method', trigger: 'cancel', f: facts({ hasPaymentMethodData: false }), to: 'cancelled' },
    { from: 'requires_confirmation', trigger: 'cancel', f: facts(), to: 'cancelled' },
    { from: 'requires_capture', trigger: 'cancel', f: facts({ captureMethod: 'manual' }), to: 'cancelled' },
    { from: 'requires_customer_action', trigger: 'cancel', f: facts(), to: 'cancelled' },
  ] as const)('$from --$trigger--> $to', ({ from, trigger, f, to }) => {
    expect(decideTransition(from, trigger, f)).toEqual({ allowed: true, to });
  });

  test('confirm without payment method data is refused for its condition, not its status', () => {
    expect(decideTransition('requires_payment_method', 'confirm', facts({ hasPaymentMethodData: false }))).toEqual({
      allowed: false,
      reason: 'condition',
    });
  });

  test.each(['succeeded', 'failed', 'processing', 'requires_customer_action', 'requires_capture', 'cancelled'] as const)(
    'refuses confirm from %s',
    (status) => {
      expect(decideTransition(status, 'confirm', facts())).toEqual({ allowed: false, reason: 'status' });
    },
  );

  test('a pending rail answer changes nothing', () => {
    expect(decideTransition('requires_customer_action', 'rail_sync', facts({ railResult: 'pending' }))).toEqual({
      allowed: false,
      reason: 'condition',
    });
  });

  test('final statuses have no outgoing rows, but a captured payment can be cancelled post capture', () => {
    for (const status of ['failed', 'cancelled', 'cancelled_post_capture', 'expired'] as const) {
      expect(PAYMENT_TRANSITIONS.filter((row) => row.from === status)).toEqual([]);
    }
    for (const status of ['succeeded', 'partially_captured'] as const) {
      expect(PAYMENT_TRANSITIONS.filter((row) => row.from === status).map((row) => row.trigger)).toEqual(['cancel_post_capture']);
    }
  });

  const capture = (amount: number, capturedTotal: number, releaseRest: boolean) => facts({ captureMethod: 'manual_multiple', capture: { amount, capturedTotal, releaseRest } });
  test.each([
    { from: 'requires_capture', f: capture(1000, 1000, true), to: 'succeeded' },
    { from: 'requires_capture', f: capture(1000, 400, true), to: 'partially_captured' },
    { from: 'requires_capture', f: capture(1000, 400, false), to: 'partially_captured_and_capturable' },
    { from: 'partially_captured_and_capturable', f: capture(1000, 700, false), to: 'partially_captured_and_capturable' },
    { from: 'partially_captured_and_capturable', f: capture(1000, 700, true), to: 'partially_captured' },
    { from: 'partially_captured_and_capturable', f: capture(1000, 1000, false), to: 'succeeded' },
  ] as const)('capture: $from --> $to', ({ from, f, to }) => {
    expect(decideTransition(from, 'capture', f)).toEqual({ allowed: true, to });
  });

  test.each(['requires_payment_method', 'requires_confirmation', 'processing', 'requires_customer_action', 'succeeded', 'partially_captured', 'cancelled', 'failed', 'expired'] as const)(
    'refuses capture from %s',
    (status) => {
      expect(decideTransition(status, 'capture', capture(1000, 1000, true))).toEqual({ allowed: false, reason: 'status' });
    },
  );

  test('cancel post capture only without refunds and disputes holding money; incremental authorization only above the authorized amount', () => {
    expect(decideTransition('succeeded', 'cancel_post_capture', facts({ refunded: 0, disputed: 0 }))).toEqual({ allowed: true, to: 'cancelled_post_capture' });
    expect(decideTransition('succeeded', 'cancel_post_capture', facts({ refunded: 1, disputed: 0 }))).toEqual({ allowed: false, reason: 'condition' });
    expect(decideTransition('succeeded', 'cancel_post_capture', facts({ refunded: 0, disputed: 1 }))).toEqual({ allowed: false, reason: 'condition' });
    expect(decideTransition('requires_capture', 'incremental_authorization', facts({ increment: { authorized: 100, requested: 150 } }))).toEqual({ allowed: true, to: 'requires_capture' });
    expect(decideTransition('requires_capture', 'incremental_authorization', facts({ increment: { authorized: 100, requested: 100 } }))).toEqual({ allowed: false, reason: 'condition' });
    expect(decideTransition('partially_captured_and_capturable', 'incremental_authorization', facts({ increment: { authorized: 100, requested: 150 } }))).toEqual({ allowed: false, reason: 'status' });
  });

  test('an authorization that lapses: requires_capture expires, a partly captured one keeps its captures', () => {
    expect(decideTransition('requires_capture', 'authorization_expiry', facts())).toEqual({ allowed: true, to: 'expired' });
    expect(decideTransition('partially_captured_and_capturable', 'authorization_expiry', facts())).toEqual({ allowed: true, to: 'partially_captured' });
    expect(decideTransition('succeeded', 'authorization_expiry', facts())).toEqual({ allowed: false, reason: 'status' });
  });

  test('every status named in the table is a protocol status', () => {
    for (const row of PAYMENT_TRANSITIONS) {
      if (row.from !== null) expect(PAYMENT_STATUSES).toContain(row.from);
      expect(PAYMENT_STATUSES).toContain(row.to);
    }
  });

  test('no two rows with the same from, trigger and condition', () => {
    const keys = PAYMENT_TRANSITIONS.map((row) => `${row.from}|${row.trigger}|${row.condition}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  test.each(['succeeded', 'failed', 'processing', 'cancelled', 'partially_captured'] as const)('refuses cancel from %s', (status) => {
    expect(decideTransition(status, 'cancel', facts())).toEqual({ allowed: false, reason: 'status' });
  });

  test('statusesAllowing lists the from-statuses of a trigger', () => {
    expect(statusesAllowing('confirm').sort()).toEqual(['requires_confirmation', 'requires_payment_method']);
  });
});
