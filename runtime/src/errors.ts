import type { ApiErrorObject } from '../../protocol/errors';
import type { ClientErrorCode } from '../../protocol/frame-messages';

/** Builds the error object a runtime call resolves with: the API's shape, with a client-side code when no server call produced it. */
export function railError(
  code: ClientErrorCode | 'ERR_2001' | 'ERR_2003' | 'ERR_5000',
  message: string,
  fieldName?: string,
): ApiErrorObject {
  const type = code === 'ERR_6007' ? 'payment_failed'
    : code === 'ERR_6003' || code === 'ERR_6004' ? 'api_connection_error'
    : code === 'ERR_5000' ? 'api_error'
    : code === 'ERR_2001' || code === 'ERR_2003' ? 'invalid_request'
    : 'integration_error';
  return fieldName === undefined ? { type, code, message } : { type, code, message, field_name: fieldName };
}

/**
 * Thrown synchronously by calls that a correct integration never makes (a secret key in the browser, a mount
 * target that does not exist). Asynchronous calls never throw; they resolve `{ error }`.
 */
export class IntegrationError extends Error {
  override name = 'IntegrationError';
  readonly code: ClientErrorCode;
  constructor(code: ClientErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * `typeof` plus a short rendering of the value, for expected-vs-received messages; a string that holds a key or a
 * client secret is named, never quoted (messages end up in consoles and error trackers).
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'string' && /rail_full_|_secret_|epk_/.test(value)) return 'a string that holds a key or a client secret (not shown)';
  if (typeof value === 'string') return `string "${value.length > 40 ? value.slice(0, 40) + '...' : value}"`;
  return value === null ? 'null' : typeof value;
}
