/**
 * The captures and the void of an open authorization that were asked of the rail and whose answer is not recorded
 * yet, as the payment's railState keeps them (written with the request's reservation, before the rail is asked;
 * cleared with the answer). Read by every operation that changes the authorization, which waits for them (ERR_4003,
 * "in progress"): the rail may be moving the money or releasing the hold.
 */
import type { JsonObject } from '../../../../protocol/api/payments';
import type { PaymentRecord } from '../../storage/payments/records';
import { ApiError } from '../shared/errors';

export const CAPTURES_IN_PROGRESS = 'captures_in_progress';
export const VOID_IN_PROGRESS = 'void_in_progress';
export const CANCEL_POST_CAPTURE_IN_PROGRESS = 'cancel_post_capture_in_progress';
/** The reference of the cancel request that cancelled the payment: its keyed re-run answers the cancelled payment. */
export const CANCELLED_BY_REQUEST = 'cancelled_by_request';
/**
 * Set when a final capture was taken while other captures were still at the rail (removed with the last of them): the
 * rail closed the authorization, so what they capture less than asked (or what a refused one reserved) is released,
 * not capturable again.
 */
export const FINAL_CAPTURE_TAKEN = 'final_capture_taken';

/** A capture asked of the rail under its capture id (the key of CAPTURES_IN_PROGRESS). */
export interface CaptureInProgress {
  attempt_id: string;
  /** The reference of the request that asked (PaymentCaptureRecord.requestReference). */
  request_reference: string;
  amount: number;
  /** What of amount_capturable it released beyond its amount (refund_uncaptured_amount, or capture_method manual). */
  releases: number;
  /** Nothing is capturable after it (CaptureRequest.final). */
  final: boolean;
  /** Until when the request that asked is taken to be alive; past it, recovery asks the rail. */
  lease_expires_at: string;
  /**
   * The rail's answer when it captured what the payment cannot take (not a positive whole amount, or more than asked
   * beyond what is capturable): not applied, the capture stays pending and holds the payment for an operator.
   */
  unapplied_answer?: { reference: string; amount: number };
}

export interface VoidInProgress {
  attempt_id: string;
  /** The rail's reference of this void: `<attempt_id>_void_<request_reference>` (each cancel request its own). */
  reference: string;
  /** The reference of the cancel request that asked (kept as VOIDED_BY_REQUEST once the rail voided). */
  request_reference: string;
  cancellation_reason: string | null;
  /** amount_capturable before the void: given back if the rail refuses it. */
  restores: number;
  lease_expires_at: string;
}

/** A cancel after capture asked of the rail (the captures reversed, the rest released) under `reference`. */
export interface CancelPostCaptureInProgress {
  attempt_id: string;
  /** The reference of the request that asked (kept as CANCELLED_BY_REQUEST once the rail cancelled). */
  request_reference: string;
  /** The rail's reference of this cancel: `<attempt_id>_cpc_<request_reference>`. */
  reference: string;
  cancellation_reason: string | null;
  /** amount_capturable before it: given back if the rail refuses it. */
  restores: number;
  lease_expires_at: string;
}

/** railState with `key` set to `value`, or removed when `value` is undefined; null once nothing is left in it. */
export function withRailStateKey(railState: JsonObject | null, key: string, value: unknown): JsonObject | null {
  const rest: JsonObject = { ...(railState ?? {}) };
  if (value === undefined) delete rest[key];
  else rest[key] = value;
  return Object.keys(rest).length === 0 ? null : rest;
}

export function cancelPostCaptureInProgress(payment: PaymentRecord): CancelPostCaptureInProgress | undefined {
  const held = payment.railState?.[CANCEL_POST_CAPTURE_IN_PROGRESS];
  return held != null && typeof held === 'object' ? (held as unknown as CancelPostCaptureInProgress) : undefined;
}

/** railState with the cancel after capture's entry set or removed. */
export function withCancelPostCapture(railState: JsonObject | null, entry: CancelPostCaptureInProgress | undefined): JsonObject | null {
  return withRailStateKey(railState, CANCEL_POST_CAPTURE_IN_PROGRESS, entry);
}

export function capturesInProgress(payment: PaymentRecord): Record<string, CaptureInProgress> {
  const held = payment.railState?.[CAPTURES_IN_PROGRESS];
  return held != null && typeof held === 'object' ? (held as unknown as Record<string, CaptureInProgress>) : {};
}

/** Captures whose rail answer could not be applied (CaptureInProgress.unapplied_answer): for an operator. */
export function capturesForOperator(payment: PaymentRecord): Record<string, CaptureInProgress> {
  return Object.fromEntries(Object.entries(capturesInProgress(payment)).filter(([, entry]) => entry.unapplied_answer !== undefined));
}

/** Whether a final capture of the payment was taken while other captures were at the rail (FINAL_CAPTURE_TAKEN). */
export function finalCaptureTaken(payment: PaymentRecord): boolean {
  return payment.railState?.[FINAL_CAPTURE_TAKEN] === true;
}

/** railState with FINAL_CAPTURE_TAKEN set or removed. */
export function withFinalCaptureTaken(railState: JsonObject | null, taken: boolean): JsonObject | null {
  return withRailStateKey(railState, FINAL_CAPTURE_TAKEN, taken ? true : undefined);
}

export function voidInProgress(payment: PaymentRecord): VoidInProgress | undefined {
  const held = payment.railState?.[VOID_IN_PROGRESS];
  return held != null && typeof held === 'object' ? (held as unknown as VoidInProgress) : undefined;
}

/** The reference of the cancel request that cancelled the payment, when it is known. */
export function cancelledByRequest(payment: PaymentRecord): string | undefined {
  const reference = payment.railState?.[CANCELLED_BY_REQUEST];
  return typeof reference === 'string' ? reference : undefined;
}

/** railState with the reference of the cancel request that cancelled the payment. */
export function withCancelledBy(railState: JsonObject | null, requestReference: string): JsonObject {
  return { ...(railState ?? {}), [CANCELLED_BY_REQUEST]: requestReference };
}

/** Whether a capture, a void or a cancel after capture of the payment waits for its rail's answer. */
export function railHoldChanging(payment: PaymentRecord): boolean {
  return Object.keys(capturesInProgress(payment)).length > 0 || voidInProgress(payment) !== undefined || cancelPostCaptureInProgress(payment) !== undefined;
}

/** railState with the capture's entry set (`entry`) or removed (undefined). */
export function withCapture(railState: JsonObject | null, captureId: string, entry: CaptureInProgress | undefined): JsonObject | null {
  const captures: Record<string, CaptureInProgress> = { ...((railState?.[CAPTURES_IN_PROGRESS] as unknown as Record<string, CaptureInProgress> | undefined) ?? {}) };
  if (entry === undefined) delete captures[captureId];
  else captures[captureId] = entry;
  return withRailStateKey(railState, CAPTURES_IN_PROGRESS, Object.keys(captures).length === 0 ? undefined : captures);
}

/** railState with the void's entry set or removed. */
export function withVoid(railState: JsonObject | null, entry: VoidInProgress | undefined): JsonObject | null {
  return withRailStateKey(railState, VOID_IN_PROGRESS, entry);
}

/**
 * ERR_4003 (retry later) while a capture or the void of the payment waits for the rail's answer: `operation` could
 * otherwise settle the authorization under a capture that moves money, or capture what a void releases.
 */
export function refuseWhileRailHoldChanging(payment: PaymentRecord, operation: string): void {
  const voiding = voidInProgress(payment);
  if (voiding !== undefined) {
    throw new ApiError('ERR_4003', `You cannot ${operation} this payment while its void is in progress at the rail; retry once it has finished.`, { tryLater: true });
  }
  if (cancelPostCaptureInProgress(payment) !== undefined) {
    throw new ApiError('ERR_4003', `You cannot ${operation} this payment while its cancel after capture is in progress at the rail; retry once it has finished.`, {
      tryLater: true,
    });
  }
  const captures = Object.values(capturesInProgress(payment));
  if (captures.length > 0) {
    const amount = captures.reduce((sum, capture) => sum + capture.amount, 0);
    throw new ApiError('ERR_4003', `You cannot ${operation} this payment while a capture (${amount}) is in progress at the rail; retry once it has finished.`, {
      tryLater: true,
    });
  }
}

/**
 * ERR_4003 (retry later) while the payment's cancel after capture waits for the rail: the rail is reversing the
 * captures, so a refund or a dispute would give the money back twice. Called on the payment read again under the
 * refund's or dispute's hold on the payment row: a cancel reserved before the hold is seen here, one reserved after
 * it loses its version check.
 */
export function refuseWhileCancellingAfterCapture(payment: PaymentRecord | undefined, operation: string): void {
  if (payment !== undefined && cancelPostCaptureInProgress(payment) !== undefined) {
    throw new ApiError('ERR_4003', `You cannot ${operation} this payment while its cancel after capture is in progress at the rail; retry once it has finished.`, {
      tryLater: true,
    });
  }
}
