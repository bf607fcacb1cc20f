/**
 * Test support, loaded with `--import` into a server process started with UV_THREADPOOL_SIZE=1: from SIGTERM on,
 * the only thread-pool thread is busy for some 300 ms, so the asynchronous stdout writes of the shutdown's log lines
 * end after the shutdown itself. A fast shutdown on an idle machine gets that order by chance; this pins it.
 */
import { pbkdf2 } from 'node:crypto';

process.on('SIGTERM', () => pbkdf2('rail', 'busy', 300_000, 64, 'sha512', () => {}));
