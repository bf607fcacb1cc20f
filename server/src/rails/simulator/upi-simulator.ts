/**
 * Deterministic UPI simulator (test mode). Inputs and outcomes are documented in docs/simulator.md:
 * - `success@upi`: authorized at confirm, amount_received = amount.
 * - `failure@upi`: declined (DC_06 "Payment is not successful").
 * - `pending@upi`: waits for the customer (wait-screen next_action); authorized once
 *   PENDING_RESOLVE_AFTER_MS have passed on the injected clock, seen at the next sync (retrieve).
 * - `pending-failure@upi`: as pending@upi, then declined.
 * - any other VPA: declined (DC_08 "Payment declined: Invalid Upi id"), as Hyperswitch's dummy connector.
 * - `upi_intent`: requires_customer_action with a `redirect_to_url` next_action whose URL is a `upi://pay` link
 *   (its `url` parameter is the simulator approval page); `upi_qr`: a `qr_code_information` next_action whose
 *   qr_code_url is that page and whose image_data_url is the QR code of that URL (an SVG data URL, qr-image.ts), so a
 *   phone that scans it opens the page. The page's Approve / Decline resolve the payment; unanswered requests fail
 *   ("upi_request_expired") on the first read after UPI_REQUEST_VALIDITY_MS.
 * Refunds answer at once: succeeded, unless the refund's reason is one of SIMULATOR_REFUND_REASONS (failed or
 * review). The core checks the refundable amount before the simulator is asked, as Hyperswitch does.
 */
import type { Currency } from '../../../../protocol/currency';
import { currencyExponent } from '../../../../protocol/currency';
import type {
  AuthorizeRequest,
  CaptureOutcome,
  CaptureRequest,
  IncrementAuthorizationRequest,
  RailAdapter,
  RailOutcome,
  RefundOutcome,
  RefundRequest,
  SyncRequest,
  VoidOutcome,
  VoidRequest,
  CancelCapturesOutcome,
  CancelCapturesRequest,
} from '../rail-adapter';
import { AUTHORIZATION_VALIDITY, simulateIncrement } from './authorization-terms';
import { simulatorPageUrl, type SimulatorOptions } from './card-simulator';
import { qrSvgDataUrl } from './qr-image';
import { simulateCancelCaptures, simulateCapture, simulateVoid, type HoldingSimulator, type SimulatedHold } from './simulated-capture';
import { simulateRefund } from './simulated-refund';

/** How long a pending collect waits before the simulated customer answers. */
export const PENDING_RESOLVE_AFTER_MS = 10_000;
/** How long the wait screen may be shown (the collect request's validity). */
export const COLLECT_VALIDITY_MS = 5 * 60_000;
/** How often the client should poll while the wait screen shows. */
export const POLL_INTERVAL_MS = 2_000;
/** How long a UPI intent / QR request waits for the customer on the simulator page. */
export const UPI_REQUEST_VALIDITY_MS = 5 * 60_000;
/** The payee of the simulated intent / QR requests. */
export const SIMULATOR_PAYEE = { vpa: 'rail.simulator@upi', name: 'Rail Simulator' } as const;

/** `upi://pay?pa=...&pn=...&tr=...&am=...&cu=INR&url=...` (NPCI UPI linking specification parameters). */
export function upiIntentLink(input: { reference: string; amount: number; currency: string; pageUrl: string }): string {
  const exponent = currencyExponent(input.currency);
  const minor = String(input.amount).padStart(exponent + 1, '0');
  const major = exponent === 0 ? minor : `${minor.slice(0, -exponent)}.${minor.slice(-exponent)}`;
  const params = new URLSearchParams({
    pa: SIMULATOR_PAYEE.vpa,
    pn: SIMULATOR_PAYEE.name,
    tr: input.reference,
    am: major,
    cu: input.currency,
    url: input.pageUrl,
  });
  return `upi://pay?${params.toString()}`;
}

export const SIMULATOR_VPAS = {
  success: 'success@upi',
  failure: 'failure@upi',
  pending: 'pending@upi',
  pendingFailure: 'pending-failure@upi',
} as const;

export { SIMULATOR_REFUND_REASONS } from './simulated-refund';

type PendingOutcome = 'succeeded' | 'failed';

export class UpiSimulator implements RailAdapter, HoldingSimulator {
  readonly rail = 'upi' as const;
  readonly connector = 'upi_simulator';
  readonly authorizationValidity = AUTHORIZATION_VALIDITY;

  constructor(private readonly options: SimulatorOptions) {}

  private get ids() {
    return this.options.ids;
  }

  paymentMethodTypes(currency: Currency) {
    return currency === 'INR'
      ? ([
          { paymentMethod: 'upi', paymentMethodType: 'upi_collect' },
          { paymentMethod: 'upi', paymentMethodType: 'upi_intent' },
          { paymentMethod: 'upi', paymentMethodType: 'upi_qr' },
        ] as const)
      : [];
  }

  async authorize(request: AuthorizeRequest): Promise<RailOutcome> {
    const reference = `sim_${this.ids.secret(20)}`;
    const upi = request.paymentMethodData.upi;
    if (request.paymentMethodType === 'upi_intent' || request.paymentMethodType === 'upi_qr') {
      const challenge = this.ids.secret(24);
      const pageUrl = simulatorPageUrl(this.options.publicBaseUrl, 'upi', request, challenge);
      const expiresAt = request.now.getTime() + UPI_REQUEST_VALIDITY_MS;
      return {
        kind: 'customer_action',
        reference,
        nextAction:
          request.paymentMethodType === 'upi_intent'
            ? { type: 'redirect_to_url', redirect_to_url: upiIntentLink({ reference, amount: request.amount, currency: request.currency, pageUrl }) }
            : { type: 'qr_code_information', qr_code_url: pageUrl, image_data_url: qrSvgDataUrl(pageUrl), display_to_timestamp: expiresAt },
        // Times as ISO text in rail state (see card-simulator.ts).
        state: { challenge, expires_at: new Date(expiresAt).toISOString() },
      };
    }
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
    if (typeof request.railState?.['challenge'] === 'string') {
      // upi_intent / upi_qr: answered on the simulator page, or expired.
      const expiresAt = request.railState['expires_at'];
      const expired = typeof expiresAt === 'string' && request.now.getTime() >= Date.parse(expiresAt);
      if (request.customerDecision === 'fail') return declined(request.railReference, 'DC_06', 'Payment is not successful');
      if (request.customerDecision === 'complete' && !expired) {
        return { kind: 'authorized', reference: request.railReference, amountReceived: request.amount };
      }
      if (expired) return declined(request.railReference, 'upi_request_expired', 'upi_request_expired');
      return { kind: 'pending', reference: request.railReference };
    }
    const resolveAt = request.railState?.['resolve_at_ms'];
    const outcome = request.railState?.['outcome'];
    if (typeof resolveAt !== 'number' || request.now.getTime() < resolveAt) {
      return { kind: 'pending', reference: request.railReference };
    }
    return outcome === 'failed'
      ? declined(request.railReference, 'DC_06', 'Payment is not successful')
      : { kind: 'authorized', reference: request.railReference, amountReceived: request.amount };
  }

  async incrementAuthorization(request: IncrementAuthorizationRequest) {
    return simulateIncrement(this.ids, request);
  }

  async captureHeld(request: CaptureRequest, hold: SimulatedHold): Promise<CaptureOutcome> {
    return simulateCapture(this.ids, request, hold);
  }

  async voidHeld(request: VoidRequest, hold: SimulatedHold): Promise<VoidOutcome> {
    return simulateVoid(this.ids, request, hold);
  }

  async cancelCapturesHeld(request: CancelCapturesRequest, hold: SimulatedHold): Promise<CancelCapturesOutcome> {
    return simulateCancelCaptures(this.ids, request, hold);
  }

  async refund(request: RefundRequest): Promise<RefundOutcome> {
    return simulateRefund(this.ids, request);
  }
}

function declined(reference: string, errorCode: string, errorMessage: string): RailOutcome {
  return { kind: 'declined', reference, errorCode, errorMessage, errorReason: errorMessage };
}
