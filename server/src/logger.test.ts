import { Writable } from 'node:stream';
import { expect, test } from 'vitest';
import { createLogger } from './logger';

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
