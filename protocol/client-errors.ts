/**
 * Codes the browser runtime resolves when no server call produced the error (no HTTP status: nothing crossed the
 * network, or the network failed). Same `{type, code, message, field_name?}` shape as API errors. Kept free of
 * zod so the runtime can import it without growing its bundle.
 */
export const CLIENT_ERROR_CATALOG = {
  ERR_6001: { type: 'integration_error', when: 'confirmPayment or an element method was called before the element was mounted.' },
  ERR_6002: { type: 'integration_error', when: 'A runtime call got an argument of the wrong shape (expected-vs-received in the message).' },
  ERR_6003: { type: 'api_connection_error', when: 'The hosted frame did not load, or its handshake timed out (also emitted as loaderror).' },
  ERR_6004: { type: 'api_connection_error', when: 'The hosted frame could not reach the API.' },
  ERR_6005: { type: 'validation_error', when: 'The customer input in the frame is incomplete or invalid; field_name names the field.' },
  ERR_6006: { type: 'integration_error', when: 'The element was unmounted or destroyed while the call was running.' },
  ERR_6007: { type: 'payment_failed', when: 'confirmPayment: the payment ended without succeeding (declined, failed or cancelled); error.payment holds it, error.decline_code its error_code.' },
} as const satisfies Record<string, { type: string; when: string }>;

export type ClientErrorCode = keyof typeof CLIENT_ERROR_CATALOG;
