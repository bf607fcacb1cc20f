/**
 * Deterministic UPI simulator (test mode). Inputs and outcomes are documented in docs/simulator.md:
 * - `success@upi`: authorized at confirm, amount_received = amount.
 * - `failure@upi`: declined (DC_06 "Payment is not successful").
 * - `pending@upi`: waits for the customer (wait-screen next_action); authorized once
 *   PENDING_RESOLVE_AFTER_MS have passed on the injected clock, seen at the next sync (retrieve).
 * - `pending-failure@upi`: as pending@upi, then declined.
 * - any other VPA: declined (DC_08 "Payment declined: Invalid Upi id"), as Hyperswitch's dummy connector.
 * Only UPI collect is simulated (as in Hyperswitch); upi_intent and upi_qr are not offered.
 * Refunds answer at once: succeeded, unless the refund's reason is one of SIMULATOR_REFUND_REASONS (failed or
 * review). The core checks the refundable amount before the simulator is asked, as Hyperswitch does.
 */
import type { Currency } from '../../../../protocol/currency';
import type { IdGenerator } from '../../core/ids';
import type { AuthorizeRequest, RailAdapter, RailOutcome, RefundOutcome, RefundRequest, SyncRequest } from '../rail-adapter';

/** How long a pending collect waits before the simulated customer answers. */
export const PENDING_RESOLVE_AFTER_MS = 10_000;
/** How long the wait screen may be shown (the collect request's validity). */
export const COLLECT_VALIDITY_MS = 5 * 60_000;
/** How often the client should poll while the wait screen shows. */
export const POLL_INTERVAL_MS = 2_000;

export const SIMULATOR_VPAS = {
  success: 'success@upi',
  failure: 'failure@upi',
  pending: 'pending@upi',
  pendingFailure: 'pending-failure@upi',
} as const;

/** Refund reasons that make the simulated rail answer other than succeeded (docs/simulator.md). */
export const SIMULATOR_REFUND_REASONS = {
  failure: 'simulate_refund_failure',
  review: 'simulate_refund_review',
} as const;

type PendingOutcome = 'succeeded' | 'failed';

export class UpiSimulator implements RailAdapter {
  readonly rail = 'upi' as const;
  readonly connector = 'upi_simulator';

  constructor(private readonly ids: IdGenerator) {}

  paymentMethodTypes(currency: Currency) {
    return currency === 'INR' ? ([{ paymentMethod: 'upi', paymentMethodType: 'upi_collect' }] as const) : [];
  }

  async authorize(request: AuthorizeRequest): Promise<RailOutcome> {
    const reference = `sim_${this.ids.secret(20)}`;
    const upi = request.paymentMethodData.upi;
    const vpa = upi && 'upi_collect' in upi ? upi.upi_collect.vpa_id?.toLowerCase() : undefined;
    switch (vpa) {
      case SIMULATOR_VPAS.success:
        return { kind: 'authorized', reference, amountReceived: request.amount };
      case SIMULATOR_VPAS.failure:
        return declined(reference, 'DC_06', 'Payment is not successful');
      case SIMULATOR_VPAS.pending:
      case SIMULATOR_VPAS.pendingFailure: {
        const from = request.now.getTime();
        const outcome: PendingOutcome = vpa === SIMULATOR_VPAS.pending ? 'succeeded' : 'failed';
        return {
          kind: 'customer_action',
          reference,
          nextAction: {
            type: 'wait_screen_information',
            display_from_timestamp: from,
            display_to_timestamp: from + COLLECT_VALIDITY_MS,
            poll_interval_ms: POLL_INTERVAL_MS,
          },
          state: { resolve_at_ms: from + PENDING_RESOLVE_AFTER_MS, outcome },
        };
      }
      default:
        return declined(reference, 'DC_08', 'Payment declined: Invalid Upi id');
    }
  }

  async sync(request: SyncRequest): Promise<RailOutcome> {
    const resolveAt = request.railState?.['resolve_at_ms'];
    const outcome = request.railState?.['outcome'];
    if (typeof resolveAt !== 'number' || request.now.getTime() < resolveAt) {
      return { kind: 'pending', reference: request.railReference };
    }
    return outcome === 'failed'
      ? declined(request.railReference, 'DC_06', 'Payment is not successful')
      : { kind: 'authorized', reference: request.railReference, amountReceived: request.amount };
  }

  async refund(request: RefundRequest): Promise<RefundOutcome> {
    const reference = `simref_${this.ids.secret(20)}`;
    switch (request.reason) {
      case SIMULATOR_REFUND_REASONS.failure:
        return { kind: 'failed', reference, errorCode: 'SIM_REFUND_DECLINED', errorMessage: 'Refund declined by the simulated rail' };
      case SIMULATOR_REFUND_REASONS.review:
        return { kind: 'review', reference };
      default:
        return { kind: 'succeeded', reference };
    }
  }
}

function declined(reference: string, errorCode: string, errorMessage: string): RailOutcome {
  return { kind: 'declined', reference, errorCode, errorMessage, errorReason: errorMessage };
}
