/**
 * The request fingerprint of the Idempotency-Key must not change across versions: a retry after an upgrade is
 * compared with the fingerprint the first call stored. These pin the path read from the URL and the hash against
 * what `new URL()` and the former incremental createHash gave.
 */
import { createHash } from 'node:crypto';
import { expect, test } from 'vitest';
import { requestFingerprint } from '../../core/auth/idempotency';
import { canonicalJson } from '../../core/shared/canonical-json';
import { pathWithQuery } from './idempotency';

test('pathWithQuery is pathname + search of new URL() for serialized URLs', () => {
  const targets = [
    '/payments',
    '/payments/pay_ABC/confirm',
    '/payments?',
    '/payments?#',
    '/payments?#frag',
    '/payments#frag?not-query',
    '/payments?a=1&b=2',
    '/payments?a=1#frag',
    '/payments??a',
    '/payments?a?b',
    '/',
    '/?',
    '/a/../b/./c',
    '/%7e/%2F/%25',
    '/a b/ä/😀?q=ä b&r=%',
    '/x\\y',
    '//double//slash',
  ];
  const origins = ['http://127.0.0.1:4000', 'https://example.test', 'http://[::1]:8080', 'http://user:p%2Fw@host', 'http://localhost'];
  const urls = origins.flatMap((origin) => targets.map((target) => new URL(`${origin}${target}`).href));
  urls.push('http://host?query-without-path', 'HTTP://HOST/Upper?Q', 'file:///tmp/x?y', 'urn:example:x');
  for (const url of urls) {
    const parsed = new URL(url);
    expect(pathWithQuery(url), url).toBe(`${parsed.pathname}${parsed.search}`);
  }
  expect(pathWithQuery('http://h/p?')).toBe('/p');
  expect(pathWithQuery('http://h/p?x#y')).toBe('/p?x');
});

/** The former fingerprint: one incremental SHA-256 over the head line, then the body's form. */
function formerFingerprint(method: string, path: string, body: { json: unknown } | { raw: Uint8Array }): string {
  const hash = createHash('sha256').update(`${method.toUpperCase()} ${path}\n`);
  if ('json' in body) hash.update(`json:${canonicalJson(body.json)}`);
  else hash.update('raw:').update(body.raw);
  return hash.digest('hex');
}

test('requestFingerprint hashes the same bytes as before (unicode and lone surrogates in path and body, raw bytes)', () => {
  const cases: Array<[string, string, { json: unknown } | { raw: Uint8Array }]> = [
    ['POST', '/payments', { json: { amount: 10000, currency: 'INR' } }],
    ['post', '/payments/pay_X/confirm?expand=a', { json: {} }],
    ['POST', '/payments/ä😀?q=\ud800', { json: { 'é\ud83d': ['\udfff', 1e21, -0, null, true], b: { a: 'x' } } }],
    ['POST', '/disputes/dp_X/evidence', { raw: new Uint8Array([0xff, 0x00, 0x7b, 0x0a]) }],
    ['POST', '/disputes/dp_X/evidence', { raw: new Uint8Array() }],
    ['POST', '/x', { raw: new Uint8Array(70_000).map((_, i) => i % 251) }],
  ];
  for (const [method, path, body] of cases) expect(requestFingerprint(method, path, body)).toBe(formerFingerprint(method, path, body));
  // Pinned: the values the versions before this one stored.
  expect(requestFingerprint('POST', '/payments', { json: JSON.parse('{"currency":"INR","amount":10000,"metadata":{"b":"é","a":[1e21,-0]}}') })).toBe(
    'd79feb5d890f4792e96132bb4dd94fa990ad937d540c50bc9cc7ffe3a13dac12',
  );
  expect(requestFingerprint('post', '/payments/pay_X/confirm?expand=a', { json: {} })).toBe('cbc7b8c3c822297906f2c88d27826b4f92786adbb3505d1e8780112b047cf60c');
  expect(requestFingerprint('POST', '/disputes/dp_X/evidence', { raw: new Uint8Array([0xff, 0x00, 0x7b, 0x0a]) })).toBe(
    'e5d31faa5e8dd2a74e1d658b9ca7621f38d3e1697e00455598eaa4a6d3ec9999',
  );
});
