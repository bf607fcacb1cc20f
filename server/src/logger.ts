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

interface EndableStream {
  end(): void;
  once(event: 'close' | 'error', listener: () => void): unknown;
}

/**
 * Ends `logger`'s destination and resolves once its lines are written, or stdout has failed, or after `timeoutMs`:
 * the last step before process.exit(). At exit pino writes what is still queued synchronously, and sonic-boom
 * retries a failed synchronous write every 100 ms until it succeeds: with stdout's reader gone (EPIPE, as in
 * `rail start | head -1`) a line queued behind a write still in flight made process.exit() spin for ever. Ended
 * here, the queued lines go out in the event loop, where pino stops logging at the first EPIPE.
 */
export function endLog(logger: Logger, timeoutMs = 1000): Promise<void> {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as Partial<EndableStream> | undefined;
  // pino replaces `end` on the stream itself once it has met EPIPE: nothing is queued any more.
  if (typeof stream?.end !== 'function' || typeof stream.once !== 'function' || Object.hasOwn(stream, 'end')) return Promise.resolve();
  const endable = stream as EndableStream;
  return new Promise((resolveEnd) => {
    const timer = setTimeout(resolveEnd, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      resolveEnd();
    };
    endable.once('close', done);
    endable.once('error', done);
    try {
      endable.end();
    } catch {
      // Already ended.
      done();
    }
  });
}
