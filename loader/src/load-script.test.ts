import { afterEach, describe, expect, test } from 'vitest';
import { createScript, findScript } from './load-script';
import { INTEGRITY, SCRIPT_SRC } from './test-utils';

afterEach(() => document.querySelectorAll('script').forEach((script) => script.remove()));

const FIND_CASES: [src: string, found: boolean][] = [
  [SCRIPT_SRC, true],
  ['https://js.rail.test/v1/?v=2', false],
  ['https://js.rail.test/v2/', false],
  ['https://other.test/v1/', false],
];

describe('findScript', () => {
  test.each(FIND_CASES)('with <script src="%s"> on the page finds it: %s', (src, found) => {
    const script = document.createElement('script');
    script.type = 'text/x-not-loaded';
    script.src = src;
    document.body.appendChild(script);
    expect(!!findScript(SCRIPT_SRC)).toBe(found);
  });
});

describe('createScript', () => {
  test('builds an async tag, with the nonce when given, without inserting it', () => {
    const script = createScript(SCRIPT_SRC, 'abc');
    expect([script.src, script.async, script.nonce, script.isConnected]).toEqual([SCRIPT_SRC, true, 'abc', false]);
    expect(createScript(SCRIPT_SRC).nonce).toBeFalsy();
  });

  test('with an integrity, the tag carries it and fetches with CORS (crossorigin="anonymous"); without, neither', () => {
    const pinned = createScript(SCRIPT_SRC, undefined, INTEGRITY);
    expect([pinned.getAttribute('integrity'), pinned.getAttribute('crossorigin')]).toEqual([INTEGRITY, 'anonymous']);
    const unpinned = createScript(SCRIPT_SRC, 'abc');
    expect([unpinned.hasAttribute('integrity'), unpinned.hasAttribute('crossorigin')]).toEqual([false, false]);
  });
});
