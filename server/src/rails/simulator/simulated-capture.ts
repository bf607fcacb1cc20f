/**
 * What the simulated rails (the card acquirer and UPI) do with a capture or a void of an open authorization
 * (docs/simulator.md, "Manual capture"), given what they did with that authorization before (`hold`, which the
 * rail's memory keeps: remembering-rail.ts):
 * - a capture is taken while the captures of the authorization, this one included, stay within the amount authorized
 *   now, and while the authorization was not voided; else it is declined ("capture_exceeds_authorization",
 *   "authorization_voided");
 * - a void is taken while nothing of the authorization was captured; else it is declined ("authorization_captured");
 * - a cancel after capture (reversing the captures, releasing the rest) is taken once, while the authorization was
 *   neither voided nor cancelled; else it is declined ("authorization_voided").
 * No simulator input makes an acceptable capture fail (api-conventions §9 documents none); tests of a rail that
 * refuses one use an adapter of their own.
 */
import type { IdGenerator } from '../../kernel/ids';
import type { CancelCapturesOutcome, CancelCapturesRequest, CaptureOutcome, CaptureRequest, VoidOutcome, VoidRequest } from '../rail-adapter';

/** What the rail did with one authorization so far. */
export interface SimulatedHold {
  captured: number;
  /** Voided, or its captures cancelled (cancel_post_capture). */
  voided: boolean;
}

export function simulateCapture(ids: IdGenerator, request: CaptureRequest, hold: SimulatedHold): CaptureOutcome {
  const reference = `simcap_${ids.secret(20)}`;
  if (hold.voided) return { kind: 'declined', reference, errorCode: 'authorization_voided', errorMessage: 'The authorization was voided' };
  if (hold.captured + request.amount > request.authorizedAmount) {
    return { kind: 'declined', reference, errorCode: 'capture_exceeds_authorization', errorMessage: 'The captures would exceed the amount authorized' };
  }
  return { kind: 'captured', reference, amount: request.amount };
}

export function simulateVoid(ids: IdGenerator, _request: VoidRequest, hold: SimulatedHold): VoidOutcome {
  const reference = `simvoid_${ids.secret(20)}`;
  if (hold.captured > 0) return { kind: 'declined', reference, errorCode: 'authorization_captured', errorMessage: 'The authorization was captured' };
  return { kind: 'voided', reference };
}

export function simulateCancelCaptures(ids: IdGenerator, _request: CancelCapturesRequest, hold: SimulatedHold): CancelCapturesOutcome {
  const reference = `simcpc_${ids.secret(20)}`;
  if (hold.voided) return { kind: 'declined', reference, errorCode: 'authorization_voided', errorMessage: 'The authorization was voided or cancelled' };
  return { kind: 'cancelled', reference };
}

/**
 * A simulator that captures and voids authorizations, answering from the hold its rail's memory keeps
 * (RememberingRail gives it the hold and exposes RailAdapter.capture and voidAuthorization).
 */
export interface HoldingSimulator {
  captureHeld(request: CaptureRequest, hold: SimulatedHold): Promise<CaptureOutcome>;
  voidHeld(request: VoidRequest, hold: SimulatedHold): Promise<VoidOutcome>;
  cancelCapturesHeld(request: CancelCapturesRequest, hold: SimulatedHold): Promise<CancelCapturesOutcome>;
}
