import { ERROR_CATALOG, type ErrorCode } from '../../../../protocol/errors';

/**
 * The server's one error class: a catalog code, a developer-facing message and, when a parameter is at fault, its
 * name. The HTTP layer turns it into the `{"error": {...}}` envelope in exactly one place (the error handler).
 * Messages must never contain card data or secrets.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ErrorCode;
  readonly fieldName: string | undefined;
  /** For ERR_4290 raised by the core: sent as Retry-After. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: { fieldName?: string; cause?: unknown; retryAfterSeconds?: number } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.fieldName = options.fieldName;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get status(): number {
    return ERROR_CATALOG[this.code].status;
  }

  get type(): string {
    return ERROR_CATALOG[this.code].type;
  }
}
