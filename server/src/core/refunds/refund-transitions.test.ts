import { describe, expect, test } from 'vitest';
import { PAYMENT_STATUSES } from '../../../../protocol/payments';
import { REFUND_STATUSES } from '../../../../protocol/api/refunds';
import { decideRefundTransition, REFUND_EVENT_FOR_STATUS, REFUND_TRANSITIONS, REFUNDABLE_PAYMENT_STATUSES } from './refund-transitions';

describe('refund transition table', () => {
  test.each([
    { from: null, trigger: 'create', facts: { paymentStatus: 'succeeded' }, to: 'pending' },
    { from: null, trigger: 'create', facts: { paymentStatus: 'partially_captured' }, to: 'pending' },
    { from: 'pending', trigger: 'rail_result', facts: { railResult: 'succeeded' }, to: 'succeeded' },
    { from: 'pending', trigger: 'rail_result', facts: { railResult: 'failed' }, to: 'failed' },
    { from: 'pending', trigger: 'rail_result', facts: { railResult: 'review' }, to: 'review' },
  ] as const)('$from --$trigger--> $to', ({ from, trigger, facts, to }) => {
    expect(decideRefundTransition(from, trigger, facts)).toEqual({ allowed: true, to });
  });

  test.each(PAYMENT_STATUSES.filter((status) => !REFUNDABLE_PAYMENT_STATUSES.includes(status)))(
    'refuses to create a refund on a %s payment',
    (status) => {
      expect(decideRefundTransition(null, 'create', { paymentStatus: status })).toEqual({ allowed: false, reason: 'condition' });
    },
  );

  test.each(['succeeded', 'failed'] as const)('a %s refund takes no further rail result', (status) => {
    expect(decideRefundTransition(status, 'rail_result', { railResult: 'succeeded' })).toEqual({ allowed: false, reason: 'status' });
  });

  test('a review refund settles on a later rail answer (force_sync); another review answer changes nothing', () => {
    expect(decideRefundTransition('review', 'rail_result', { railResult: 'succeeded' })).toEqual({ allowed: true, to: 'succeeded' });
    expect(decideRefundTransition('review', 'rail_result', { railResult: 'failed' })).toEqual({ allowed: true, to: 'failed' });
    expect(decideRefundTransition('review', 'rail_result', { railResult: 'review' })).toEqual({ allowed: false, reason: 'condition' });
    expect(decideRefundTransition('review', 'recovery_deadline', {})).toMatchObject({ allowed: false });
  });

  test('every row names spec statuses only, and every status is reachable', () => {
    const reached = new Set(REFUND_TRANSITIONS.map((row) => row.to));
    for (const row of REFUND_TRANSITIONS) {
      if (row.from !== null) expect(REFUND_STATUSES).toContain(row.from);
    }
    expect([...reached].sort()).toEqual([...REFUND_STATUSES].sort());
  });

  test('events: succeeded and failed announce (Hyperswitch), and so does review, whoever puts the refund there; pending does not', () => {
    expect(REFUND_EVENT_FOR_STATUS).toEqual({ succeeded: 'refund_succeeded', failed: 'refund_failed', review: 'refund_review' });
  });
});
