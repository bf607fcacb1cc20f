import { expect, test } from 'vitest';
import { createRail } from './rail';
import { PUBLISHABLE_KEY, fakeEnv } from './test-utils';

const SECRET_KEY = 'rail_full_test_' + 'x'.repeat(32);

test.each([
  ['a secret key', SECRET_KEY],
  ['a client secret with a typo', 'pay_abc123_secret_' + 'S'.repeat(19) + '!'],
  ['an ephemeral key', 'epk_' + 'e'.repeat(32)],
])('a message about a bad clientSecret never quotes %s', (_name, value) => {
  const rail = createRail(PUBLISHABLE_KEY, undefined, fakeEnv().env);
  expect(() => rail.elements({ clientSecret: value })).toThrow(/holds a key or a client secret/);
  try {
    rail.elements({ clientSecret: value });
  } catch (error) {
    expect((error as Error).message).not.toContain(value.slice(0, 20));
  }
});

test('retrievePayment does not quote a secret key passed as the client secret', async () => {
  const rail = createRail(PUBLISHABLE_KEY, undefined, fakeEnv().env);
  const { error } = await rail.retrievePayment(SECRET_KEY);
  expect(error?.message).not.toContain('rail_full_');
});

test('other strings are still quoted, shortened', () => {
  const rail = createRail(PUBLISHABLE_KEY, undefined, fakeEnv().env);
  expect(() => rail.elements({ clientSecret: 'pay_abc', locale: 'xx' as never })).toThrow('got string "pay_abc"');
});

test('an appearance JSON cannot copy (a cycle) is refused with an IntegrationError, not a bare TypeError', () => {
  const rail = createRail(PUBLISHABLE_KEY, undefined, fakeEnv().env);
  const appearance: Record<string, unknown> = { theme: 'night' };
  appearance.self = appearance;
  expect(() => rail.elements({ clientSecret: 'pay_abc123_secret_' + 'S'.repeat(20), appearance: appearance as never })).toThrow(
    expect.objectContaining({ name: 'IntegrationError', code: 'ERR_6002' }),
  );
});
