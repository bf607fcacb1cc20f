import { describe, expect, test } from 'vitest';
import { INTEGRITY, PUBLISHABLE_KEY, SCRIPT_SRC } from './test-utils';
import { validateOptions } from './validate-options';

const CASES: [name: string, key: unknown, options: unknown, message: RegExp][] = [
  ['a missing key', undefined, { scriptSrc: SCRIPT_SRC }, /^Expected publishableKey "rail_open_\.\.\.", got undefined\.$/],
  ['a numeric key', 42, { scriptSrc: SCRIPT_SRC }, /got number\./],
  ['a secret key (never echoed)', 'rail_full_test_' + 'x'.repeat(32), { scriptSrc: SCRIPT_SRC }, /got a secret key\.$/],
  ['another string (never echoed)', 'pk_test_123', { scriptSrc: SCRIPT_SRC }, /got string\.$/],
  ['options missing', PUBLISHABLE_KEY, undefined, /^Expected options \{scriptSrc, \.\.\.\}, got undefined\.$/],
  ['options null', PUBLISHABLE_KEY, null, /got null\./],
  ['an unknown option', PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, apiKey: 'x' }, /got unknown option "apiKey"\./],
  ['a non-string scriptSrc', PUBLISHABLE_KEY, { scriptSrc: 1 }, /Expected option scriptSrc to be a string, got number\./],
  ['a non-string customBackendUrl', PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, customBackendUrl: {} }, /customBackendUrl to be a string, got object/],
  ['a non-string profileId', PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, profileId: null }, /profileId to be a string, got null/],
  ['a non-string nonce', PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, nonce: true }, /nonce to be a string, got boolean/],
  ['no scriptSrc', PUBLISHABLE_KEY, {}, /^Expected option scriptSrc \(\{js_url\}\/v1\/\), got undefined\.$/],
  ['a non-string integrity', PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, integrity: 1 }, /integrity to be a string, got number/],
];

const INTEGRITY_MESSAGE = /^Expected option integrity "sha\(256\|384\|512\)-<base64>", got ".*"\.$/;

const INVALID_INTEGRITIES: [name: string, integrity: string][] = [
  ['an empty string', ''],
  ['a bare digest', INTEGRITY.slice('sha384-'.length)],
  ['an unsupported algorithm', `sha1-${'A'.repeat(27)}=`],
  ['an uppercase algorithm', INTEGRITY.replace('sha384', 'SHA384')],
  ['a truncated digest', INTEGRITY.slice(0, -1)],
  ['base64url characters', INTEGRITY.replace('+', '-').replace('/', '_')],
  ['two hashes', `${INTEGRITY} ${INTEGRITY}`],
  ['a sha256 digest without its padding', `sha256-${'A'.repeat(43)}`],
  ['surrounding whitespace', ` ${INTEGRITY}`],
];

const VALID_INTEGRITIES = [`sha256-${'A'.repeat(43)}=`, INTEGRITY, `sha512-${'z/+9'.repeat(21)}Ab==`];

describe('validateOptions', () => {
  test.each(CASES)('rejects %s with an expected-vs-received message', (_name, key, options, message) => {
    expect(() => validateOptions(key, options)).toThrow(TypeError);
    expect(() => validateOptions(key, options)).toThrow(message);
  });

  test.each(INVALID_INTEGRITIES)('rejects an integrity that is %s, echoing it', (_name, integrity) => {
    expect(() => validateOptions(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, integrity })).toThrow(TypeError);
    expect(() => validateOptions(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, integrity })).toThrow(INTEGRITY_MESSAGE);
  });

  test.each(VALID_INTEGRITIES)('accepts the integrity %s', (integrity) => {
    expect(() => validateOptions(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, integrity })).not.toThrow();
  });

  test('accepts every documented option', () => {
    const options = { scriptSrc: SCRIPT_SRC, customBackendUrl: 'https://api.rail.test', profileId: 'pro_1', nonce: 'n', integrity: INTEGRITY };
    expect(validateOptions(PUBLISHABLE_KEY, options)).toBe(options);
  });

  test('accepts options explicitly set to undefined', () => {
    expect(() => validateOptions(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, nonce: undefined })).not.toThrow();
  });
});
