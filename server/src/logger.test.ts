import { Writable } from 'node:stream';
import { expect, test, vi } from 'vitest';
import { createLogger, lazyChildLogger } from './logger';

test('log lines redact keys, client secrets and card fields', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const logger = createLogger('info', sink);
  logger.info(
    {
      req: { headers: { 'api-key': 'rail_full_test_secretsecretsecretsecretsecret12', authorization: 'Bearer x' } },
      body: { client_secret: 'pay_x_secret_y', payment_method_data: { card: { card_number: '4242424242424242' } } },
    },
    'request',
  );
  const text = lines.join('');
  expect(text).not.toContain('rail_full_test_secret');
  expect(text).not.toContain('Bearer x');
  expect(text).not.toContain('pay_x_secret_y');
  expect(text).not.toContain('4242424242424242');
  expect(text).toContain('[redacted]');
});

test("a request's logger makes its child on the first line written at an enabled level, and writes the child's lines", () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const logger = createLogger('warn', sink);
  const child = vi.spyOn(logger, 'child');
  const log = lazyChildLogger(logger, { request_id: 'req_1' });
  log.info({ path: '/payments' }, 'request');
  expect(child).not.toHaveBeenCalled();
  expect(lines).toEqual([]);
  log.warn({ reason: 'x' }, 'one');
  log.error({ reason: 'y' }, 'two');
  expect(child).toHaveBeenCalledTimes(1);
  const written = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(written.map((line) => [line['request_id'], line['msg'], line['reason']])).toEqual([
    ['req_1', 'one', 'x'],
    ['req_1', 'two', 'y'],
  ]);
});
