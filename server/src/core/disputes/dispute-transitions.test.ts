import { describe, expect, test } from 'vitest';
import { DISPUTE_STATUSES } from '../../../../protocol/api/disputes';
import { PAYMENT_STATUSES } from '../../../../protocol/payments';
import { decideDisputeTransition, DISPUTABLE_PAYMENT_STATUSES, DISPUTE_TRANSITIONS, releasesDisputedAmount } from './dispute-transitions';

describe('dispute transition table', () => {
  test.each([
    { from: null, trigger: 'raise', facts: { paymentStatus: 'succeeded' }, to: 'dispute_opened' },
    { from: 'dispute_opened', trigger: 'accept', facts: {}, to: 'dispute_accepted' },
    { from: 'dispute_opened', trigger: 'attach_evidence', facts: {}, to: 'dispute_opened' },
    { from: 'dispute_opened', trigger: 'upload_file', facts: {}, to: 'dispute_opened' },
    { from: 'dispute_opened', trigger: 'delete_evidence', facts: {}, to: 'dispute_opened' },
    { from: 'dispute_opened', trigger: 'submit_evidence', facts: {}, to: 'dispute_challenged' },
    { from: 'dispute_challenged', trigger: 'rail_outcome', facts: { outcome: 'won' }, to: 'dispute_won' },
    { from: 'dispute_challenged', trigger: 'rail_outcome', facts: { outcome: 'lost' }, to: 'dispute_lost' },
  ] as const)('$from --$trigger--> $to', ({ from, trigger, facts, to }) => {
    expect(decideDisputeTransition(from, trigger, facts)).toEqual({ allowed: true, to });
  });

  test.each(PAYMENT_STATUSES.filter((status) => !DISPUTABLE_PAYMENT_STATUSES.includes(status)))('no dispute on a %s payment', (status) => {
    expect(decideDisputeTransition(null, 'raise', { paymentStatus: status })).toEqual({ allowed: false, reason: 'condition' });
  });

  test('only a won outcome gives back the amount a dispute holds', () => {
    const released = DISPUTE_TRANSITIONS.filter((row) => row.from !== null && releasesDisputedAmount(row.from, row.to));
    expect(released.map((row) => [row.from, row.to])).toEqual([
      ['dispute_challenged', 'dispute_won'],
      ['dispute_opened', 'dispute_won'],
    ]);
  });

  test('accepted, won and lost are final; nothing but an outcome follows a submission', () => {
    for (const status of ['dispute_accepted', 'dispute_won', 'dispute_lost'] as const) {
      for (const trigger of ['accept', 'attach_evidence', 'upload_file', 'delete_evidence', 'submit_evidence', 'rail_outcome'] as const) {
        expect(decideDisputeTransition(status, trigger, { outcome: 'won' }).allowed).toBe(false);
      }
    }
    for (const trigger of ['accept', 'attach_evidence', 'upload_file', 'delete_evidence', 'submit_evidence'] as const) {
      expect(decideDisputeTransition('dispute_challenged', trigger).allowed).toBe(false);
    }
  });

  test('every row names spec statuses only', () => {
    for (const row of DISPUTE_TRANSITIONS) {
      expect(DISPUTE_STATUSES).toContain(row.to);
      if (row.from !== null) expect(DISPUTE_STATUSES).toContain(row.from);
    }
  });
});
