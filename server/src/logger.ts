import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Paths pino censors in every log line: credentials, client secrets and card fields, wherever a request or
 * object is logged. Request bodies are never logged; this is the second line of defence.
 */
export const REDACT_PATHS = [
  'req.headers["api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["api-key"]',
  'headers.authorization',
  'client_secret',
  '*.client_secret',
  '*.*.client_secret',
  '*.*.*.client_secret',
  'card_number',
  '*.card_number',
  '*.*.card_number',
  '*.*.*.card_number',
  'card_cvc',
  '*.card_cvc',
  '*.*.card_cvc',
  '*.*.*.card_cvc',
  '*.*.*.*.card_number',
  '*.*.*.*.card_cvc',
  'card_holder_name',
  '*.card_holder_name',
  '*.*.card_holder_name',
  '*.*.*.card_holder_name',
  'payment_method_data',
  '*.payment_method_data',
  'password',
  '*.password',
  'totp_secret',
  '*.totp_secret',
  'api_key',
  '*.api_key',
];

export type { Logger };

type LevelName = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** What a request logs with: the level methods of its child logger. */
export type RequestLogger = Pick<Logger, LevelName>;

/**
 * A request's child logger (`bindings` on every line), made on the first line written at an enabled level: pino's
 * child() serializes its bindings through the redaction, which at level error (a request's info line never written)
 * was work done on every call for nothing. The lines written are the child's, unchanged.
 */
export function lazyChildLogger(logger: Logger, bindings: Record<string, unknown>): RequestLogger {
  let child: Logger | undefined;
  const method = (level: LevelName) =>
    ((...args: unknown[]) => {
      if (!logger.isLevelEnabled(level)) return;
      child ??= logger.child(bindings);
      (child[level] as (...values: unknown[]) => void)(...args);
    }) as Logger[LevelName];
  return { trace: method('trace'), debug: method('debug'), info: method('info'), warn: method('warn'), error: method('error'), fatal: method('fatal') };
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'rail' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
