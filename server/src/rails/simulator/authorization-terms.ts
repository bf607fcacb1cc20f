/**
 * What the simulated rails (the card acquirer and UPI) allow an open authorization, on accounts whose rail has the
 * manual-capture capability (docs/simulator.md, "Manual capture"):
 * - an authorization stays capturable for AUTHORIZATION_VALIDITY.standardMs (7 days) after it was granted, and for
 *   extendedMs (30 days) once extended;
 * - an incremental authorization is granted while the new total is at most INCREMENT_LIMIT_FACTOR times the amount
 *   first authorized, and declined above ("incremental_authorization_limit_exceeded").
 */
import type { IdGenerator } from '../../kernel/ids';
import type { AuthorizationValidity, IncrementAuthorizationOutcome, IncrementAuthorizationRequest } from '../rail-adapter';

const DAY_MS = 24 * 60 * 60_000;

export const AUTHORIZATION_VALIDITY: AuthorizationValidity = { standardMs: 7 * DAY_MS, extendedMs: 30 * DAY_MS };

export const INCREMENT_LIMIT_FACTOR = 2;

export function simulateIncrement(ids: IdGenerator, request: IncrementAuthorizationRequest): IncrementAuthorizationOutcome {
  const reference = `siminc_${ids.secret(20)}`;
  if (request.newAmount > request.originalAmount * INCREMENT_LIMIT_FACTOR) {
    return { kind: 'declined', reference, errorCode: 'incremental_authorization_limit_exceeded', errorMessage: 'incremental_authorization_limit_exceeded' };
  }
  return { kind: 'authorized', reference };
}
