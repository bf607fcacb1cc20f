import fs from 'node:fs';
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
  const logger = pino(
    {
      level,
      base: { service: 'rail' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
  if (destination === undefined) flushSyncGivesUpOnFailure((logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym]);
  return logger;
}

interface FlushableStream {
  fd: number;
  flushSync(): void;
}

/**
 * pino flushes its own stdout destination (a sonic-boom) synchronously when the process exits with lines still
 * queued, and sonic-boom retries each failed write of that flush every 100 ms until it succeeds (it gives up only on
 * EAGAIN, and only when told to). With stdout's reader gone (EPIPE), a process.exit() or an uncaught exception or
 * rejection with a line queued behind a write in flight never exited, ignored SIGTERM, and Node never printed the
 * error. Here the flush drops what is left at the first write that fails for good, as pino does in the event loop at
 * the first EPIPE; a flush whose writes succeed writes what it wrote before, and EAGAIN is retried as before.
 */
function flushSyncGivesUpOnFailure(candidate: unknown): void {
  const stream = candidate as Partial<FlushableStream> | undefined;
  if (typeof stream?.flushSync !== 'function' || typeof stream.fd !== 'number') return;
  const flushable = stream as FlushableStream;
  const flushSync = flushable.flushSync;
  flushable.flushSync = function (this: FlushableStream) {
    const writeSync = fs.writeSync;
    let failed = false;
    // sonic-boom writes through the fs module object: for the length of this call, its writes to this fd come here.
    fs.writeSync = ((fd: number, data: string | NodeJS.ArrayBufferView, ...rest: unknown[]): number => {
      if (fd === flushable.fd && failed) return Buffer.byteLength(data);
      try {
        return (writeSync as (...args: unknown[]) => number).call(fs, fd, data, ...rest);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (fd !== flushable.fd || code === 'EAGAIN' || code === 'EBUSY') throw error;
        failed = true;
        // Reported as written, so that sonic-boom drops it and moves on.
        return Buffer.byteLength(data);
      }
    }) as typeof fs.writeSync;
    try {
      flushSync.call(this);
    } finally {
      fs.writeSync = writeSync;
    }
  };
}

interface EndableStream {
  end(): void;
  once(event: 'close' | 'error', listener: () => void): unknown;
}

/**
 * Ends `logger`'s destination and resolves once its lines are written, or stdout has failed, or after `timeoutMs`:
 * the last step before process.exit(). At exit pino writes what is still queued synchronously, and that flush
 * gives up at the first failed write (flushSyncGivesUpOnFailure): ended here, the queued lines go out in the event
 * loop first, where pino stops logging at the first EPIPE (as in `rail start | head -1`).
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
