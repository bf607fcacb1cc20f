import type { IdGenerator } from '../../kernel/ids';
import type { RefundOutcome, RefundRequest } from '../rail-adapter';

/** Refund reasons that make a simulated rail answer other than succeeded (docs/simulator.md). */
export const SIMULATOR_REFUND_REASONS = {
  failure: 'simulate_refund_failure',
  review: 'simulate_refund_review',
} as const;

/**
 * A simulated rail's refund, answered at once: succeeded, unless the refund's reason is one of
 * SIMULATOR_REFUND_REASONS (failed or review). The core checks the refundable amount before a rail is asked.
 */
export function simulateRefund(ids: IdGenerator, request: RefundRequest): RefundOutcome {
  const reference = `simref_${ids.secret(20)}`;
  switch (request.reason) {
    case SIMULATOR_REFUND_REASONS.failure:
      return { kind: 'failed', reference, errorCode: 'SIM_REFUND_DECLINED', errorMessage: 'Refund declined by the simulated rail' };
    case SIMULATOR_REFUND_REASONS.review:
      return { kind: 'review', reference };
    default:
      return { kind: 'succeeded', reference };
  }
}
