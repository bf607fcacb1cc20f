/**
 * Test support, loaded with `--import` into a server process started with UV_THREADPOOL_SIZE=1: on SIGUSR2 the only
 * thread-pool thread blocks opening the named pipe TEST_CRASH_GATE for reading, so the log lines written meanwhile
 * stay queued behind it; once the test opens the pipe for writing, the process crashes with an uncaught exception
 * (TEST_CRASH=exception) or an unhandled rejection (TEST_CRASH=rejection) while those writes are still pending.
 */
import { open } from 'node:fs';

process.on('SIGUSR2', () => {
  open(process.env.TEST_CRASH_GATE ?? '', 'r', () => {
    if (process.env.TEST_CRASH === 'rejection') void Promise.reject(new Error('injected rejection after start'));
    else throw new Error('injected exception after start');
  });
  process.stderr.write('test: thread pool held\n');
});
