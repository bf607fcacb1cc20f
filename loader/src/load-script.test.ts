import { afterEach, beforeEach, describe, expect, onTestFinished, test, vi } from 'vitest';
import { INTEGRITY, SCRIPT_SRC, fakeRailGlobal, railScripts, scriptLoading } from './test-utils';

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

describe('loadScript', () => {
  test.each(['https://js.rail.test/v1/', 'https://js.rail.test/v1/?v=2'])('with <script src="%s"> on the page, injects its own all the same (it cannot tell a failed tag)', async (src) => {
    const script = document.createElement('script');
    script.type = 'text/x-not-loaded';
    script.src = src;
    document.body.appendChild(script);
    const loadScript = await freshLoadScript();
    void loadScript(SCRIPT_SRC).catch(() => {});
    expect(railScripts().filter((tag) => tag.src === SCRIPT_SRC && tag.parentNode === document.head)).toHaveLength(1);
    expect(railScripts()).toHaveLength(2);
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

describe('loadScript memo after a failure', () => {
  /** The loader's tags, kept out of the document so that each loads or fails only when the test says. */
  function heldTags(): HTMLScriptElement[] {
    const held: HTMLScriptElement[] = [];
    const append = vi.spyOn(document.head, 'append').mockImplementation((...nodes) => void held.push(...(nodes as HTMLScriptElement[])));
    onTestFinished(() => append.mockRestore());
    return held;
  }

  test('a failed load forgets only itself: a newer pinned load of the same URL, begun meanwhile, is still shared', async () => {
    const held = heldTags();
    const loadScript = await freshLoadScript();
    const unpinned = loadScript(SCRIPT_SRC);
    // Another pin than the one in flight (none): a tag of its own, which takes the memo.
    const pinned = loadScript(SCRIPT_SRC, undefined, INTEGRITY);
    expect(held).toHaveLength(2);
    held[0]!.onerror!(new Event('error'));
    await expect(unpinned).rejects.toMatchObject({ code: 'failed_to_load' });

    const again = loadScript(SCRIPT_SRC, undefined, INTEGRITY);
    expect(held.map((tag) => tag.integrity)).toEqual(['', INTEGRITY]);
    const global = fakeRailGlobal();
    window.Rail = global;
    held[1]!.onload!(new Event('load'));
    await expect(Promise.all([pinned, again])).resolves.toEqual([global, global]);
  });

  test('a failure of the load that holds the memo is still forgotten: the next call injects a fresh tag', async () => {
    const held = heldTags();
    const loadScript = await freshLoadScript();
    const first = loadScript(SCRIPT_SRC, undefined, INTEGRITY);
    expect(held).toHaveLength(1);
    held[0]!.onerror!(new Event('error'));
    await expect(first).rejects.toMatchObject({ code: 'failed_to_load' });
    void loadScript(SCRIPT_SRC, undefined, INTEGRITY).catch(() => {});
    expect(held).toHaveLength(2);
  });
});
