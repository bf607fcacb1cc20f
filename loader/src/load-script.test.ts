import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { INTEGRITY, SCRIPT_SRC, railScripts, scriptLoading } from './test-utils';

type LoadScriptModule = typeof import('./load-script');

// A fresh module per test: an empty memo.
async function freshLoadScript(): Promise<LoadScriptModule['loadScript']> {
  vi.resetModules();
  return (await import('./load-script')).loadScript;
}

beforeEach(() => scriptLoading('load'));
afterEach(() => {
  railScripts().forEach((script) => script.remove());
  delete window.Rail;
});

const FIND_CASES: [src: string, reused: boolean][] = [
  [SCRIPT_SRC, true],
  ['https://js.rail.test/v1/?v=2', false],
  ['https://js.rail.test/v2/', false],
  ['https://other.test/v1/', false],
];

describe('loadScript', () => {
  test.each(FIND_CASES)('with <script src="%s"> on the page, reuses it instead of injecting: %s', async (src, reused) => {
    const script = document.createElement('script');
    script.type = 'text/x-not-loaded';
    script.src = src;
    document.body.appendChild(script);
    const loadScript = await freshLoadScript();
    void loadScript(SCRIPT_SRC).catch(() => {});
    expect(railScripts().filter((tag) => tag.src === SCRIPT_SRC)).toHaveLength(1);
    expect(railScripts()).toHaveLength(reused ? 1 : 2);
  });

  test('injects an async tag in the head, with the nonce when given', async () => {
    const loadScript = await freshLoadScript();
    void loadScript(SCRIPT_SRC, 'abc').catch(() => {});
    const [script] = railScripts();
    expect([script?.src, script?.async, script?.nonce, script?.parentNode]).toEqual([SCRIPT_SRC, true, 'abc', document.head]);
  });

  test('without a nonce the tag has none', async () => {
    const loadScript = await freshLoadScript();
    void loadScript(SCRIPT_SRC).catch(() => {});
    expect(railScripts()[0]?.nonce).toBeFalsy();
  });

  test('with an integrity, the tag carries it and fetches with CORS (crossorigin="anonymous"); without, neither', async () => {
    let loadScript = await freshLoadScript();
    void loadScript(SCRIPT_SRC, undefined, INTEGRITY).catch(() => {});
    const [pinned] = railScripts();
    expect([pinned?.getAttribute('integrity'), pinned?.getAttribute('crossorigin')]).toEqual([INTEGRITY, 'anonymous']);
    pinned?.remove();
    loadScript = await freshLoadScript();
    void loadScript(SCRIPT_SRC, 'abc').catch(() => {});
    const [unpinned] = railScripts();
    expect([unpinned?.hasAttribute('integrity'), unpinned?.hasAttribute('crossorigin')]).toEqual([false, false]);
  });
});
