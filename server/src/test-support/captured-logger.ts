import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../logger';

/** A logger at `level` whose lines are kept in `lines`, for tests that read what the server logged. */
export function capturedLogger(level = 'info'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger(level, sink), lines };
}
