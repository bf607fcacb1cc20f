import { ERROR_CATALOG, type ErrorCode } from '../../../../protocol/errors';

/**
 * The codes whose every answer asks for the same request again later, because what refused it ends without the
 * request changing: a delivery attempt (ERR_4052) or a request under the same Idempotency-Key (ERR_4090) still
 * running, a 3DS authentication that has not succeeded yet (ERR_4017), a secret's overlap (ERR_4093), a rate limit
 * (ERR_4290). An answer of another code that means the same (a conflict with a change in flight, "retry once it has
 * finished") is thrown with `tryLater`. Such answers are not kept for an Idempotency-Key (docs/idempotency.md): the
 * retry they ask for would be answered the same refusal for 24 hours.
 */
export const TRY_LATER_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['ERR_4017', 'ERR_4052', 'ERR_4090', 'ERR_4093', 'ERR_4290']);

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
  /** The answer asks for the same request again later (TRY_LATER_CODES, or `tryLater` where the code says no more). */
  readonly tryLater: boolean;

  constructor(
    code: ErrorCode,
    message: string,
    options: { fieldName?: string; cause?: unknown; retryAfterSeconds?: number; tryLater?: true } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.fieldName = options.fieldName;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.tryLater = options.tryLater ?? TRY_LATER_CODES.has(code);
  }

  get status(): number {
    return ERROR_CATALOG[this.code].status;
  }

  get type(): string {
    return ERROR_CATALOG[this.code].type;
  }
}
