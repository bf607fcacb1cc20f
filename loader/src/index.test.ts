import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { INTEGRITY, PUBLISHABLE_KEY, SCRIPT_SRC, defineGlobalOnLoad, fakeRailGlobal, railScripts, scriptLoading } from './test-utils';

type LoaderModule = typeof import('./index');

// A fresh module per test, so every test starts with an empty memo (stripe-js does the same).
async function freshLoader(): Promise<LoaderModule> {
  vi.resetModules();
  return import('./index');
}

let cleanups: (() => void)[] = [];

beforeEach(() => {
  scriptLoading('load');
});

afterEach(() => {
  cleanups.forEach((cleanup) => cleanup());
  cleanups = [];
  railScripts().forEach((script) => script.remove());
  delete window.Rail;
});

/** A tag for SCRIPT_SRC already on the page, of a type happy-dom never runs (a tag the browser blocked or still loads). */
function tagThatNeverRuns(integrity: string): void {
  const tag = document.createElement('script');
  tag.type = 'text/x-not-loaded';
  tag.src = SCRIPT_SRC;
  tag.integrity = integrity;
  document.head.appendChild(tag);
}

describe('loadRail', () => {
  test('has no side effect on import', async () => {
    await freshLoader();
    expect(railScripts()).toHaveLength(0);
    expect(window.Rail).toBeUndefined();
  });

  test('injects one async script and resolves the instance built with the options', async () => {
    const global = fakeRailGlobal();
    cleanups.push(defineGlobalOnLoad(SCRIPT_SRC, global));
    const { loadRail } = await freshLoader();
    const rail = await loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, customBackendUrl: 'https://api.rail.test', profileId: 'pro_1' });
    expect(rail).not.toBeNull();
    expect(railScripts().map((script) => [script.src, script.async])).toEqual([[SCRIPT_SRC, true]]);
    expect(global.calls).toEqual([[PUBLISHABLE_KEY, { customBackendUrl: 'https://api.rail.test', profileId: 'pro_1' }]]);
  });

  test('passes no undefined options to the runtime', async () => {
    const global = fakeRailGlobal();
    cleanups.push(defineGlobalOnLoad(SCRIPT_SRC, global));
    const { loadRail } = await freshLoader();
    await loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC });
    expect(global.calls).toEqual([[PUBLISHABLE_KEY, {}]]);
  });

  test('memoizes the in-flight load per scriptSrc: concurrent calls inject one script', async () => {
    const global = fakeRailGlobal();
    cleanups.push(defineGlobalOnLoad(SCRIPT_SRC, global));
    const { loadRail } = await freshLoader();
    const results = await Promise.all([
      loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC }),
      loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC }),
    ]);
    expect(results.every(Boolean)).toBe(true);
    expect(railScripts()).toHaveLength(1);
    expect(global.calls).toHaveLength(2);
  });

  test('sets the nonce on the injected script', async () => {
    cleanups.push(defineGlobalOnLoad(SCRIPT_SRC, fakeRailGlobal()));
    const { loadRail } = await freshLoader();
    await loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, nonce: 'n0nce' });
    expect(railScripts()[0]?.nonce).toBe('n0nce');
  });

  test('sets integrity and crossorigin="anonymous" on the injected script, and passes neither to the runtime', async () => {
    const global = fakeRailGlobal();
    cleanups.push(defineGlobalOnLoad(SCRIPT_SRC, global));
    const { loadRail } = await freshLoader();
    await loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, integrity: INTEGRITY, nonce: 'n0nce' });
    const [script] = railScripts();
    expect([script?.integrity, script?.crossOrigin, script?.nonce]).toEqual([INTEGRITY, 'anonymous', 'n0nce']);
    expect(global.calls).toEqual([[PUBLISHABLE_KEY, {}]]);
  });

  test('rejects a malformed integrity with a TypeError before touching the page', async () => {
    const { loadRail } = await freshLoader();
    await expect(loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, integrity: 'sha1-abc' })).rejects.toThrow(
      /Expected option integrity "sha\(256\|384\|512\)-<base64>", got "sha1-abc"\./,
    );
    expect(railScripts()).toHaveLength(0);
  });

  describe('integrity is never skipped', () => {
    const OTHER_INTEGRITY = 'sha384-' + 'B'.repeat(64);

    test('a loaded pinned runtime is reused by a second pinned call: one tag, both resolve', async () => {
      cleanups.push(defineGlobalOnLoad(SCRIPT_SRC, fakeRailGlobal()));
      const { loadRail } = await freshLoader();
      await loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, integrity: INTEGRITY });
      await expect(loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, integrity: INTEGRITY })).resolves.not.toBeNull();
      expect(railScripts()).toHaveLength(1);
    });

    test('window.Rail defined by a script the loader cannot vouch for is not handed out: its own pinned tag is loaded', async () => {
      const unchecked = fakeRailGlobal();
      window.Rail = unchecked;
      const pinned = fakeRailGlobal();
      cleanups.push(defineGlobalOnLoad(SCRIPT_SRC, pinned));
      const { loadRail } = await freshLoader();
      await expect(loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, integrity: INTEGRITY })).resolves.not.toBeNull();
      expect([unchecked.calls.length, pinned.calls.length]).toEqual([0, 1]);
      expect(railScripts().map((script) => script.integrity)).toEqual([INTEGRITY]);
    });

    test('a tag on the page with the same integrity is not trusted for a window.Rail another script defined', async () => {
      // The pinned tag never ran (blocked, or still loading) while another script defined window.Rail.
      tagThatNeverRuns(INTEGRITY);
      const unchecked = fakeRailGlobal();
      window.Rail = unchecked;
      const pinned = fakeRailGlobal();
      cleanups.push(defineGlobalOnLoad(SCRIPT_SRC, pinned));
      const { loadRail } = await freshLoader();
      await expect(loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, integrity: INTEGRITY })).resolves.not.toBeNull();
      expect([unchecked.calls.length, pinned.calls.length]).toEqual([0, 1]);
    });

    test('an unpinned load in flight is not shared with a pinned call: each resolves the runtime of its own tag', async () => {
      const unpinnedGlobal = fakeRailGlobal();
      const pinnedGlobal = fakeRailGlobal();
      const byIntegrity = (event: Event) => {
        const script = event.target as HTMLScriptElement;
        if (script.src === SCRIPT_SRC) window.Rail = script.integrity ? pinnedGlobal : unpinnedGlobal;
      };
      document.addEventListener('load', byIntegrity, true);
      cleanups.push(() => document.removeEventListener('load', byIntegrity, true));
      const { loadRail } = await freshLoader();
      const unpinned = loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC });
      await Promise.resolve();
      await Promise.resolve();
      const pinned = loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, integrity: INTEGRITY });
      await expect(Promise.all([unpinned, pinned])).resolves.toHaveLength(2);
      expect(pinnedGlobal.calls).toHaveLength(1);
      expect(railScripts().map((script) => script.integrity)).toEqual(['', INTEGRITY]);
    });

    test('a tag on the page with another integrity is not waited for: its own pinned tag is injected', async () => {
      tagThatNeverRuns(OTHER_INTEGRITY);
      cleanups.push(defineGlobalOnLoad(SCRIPT_SRC, fakeRailGlobal()));
      const { loadRail } = await freshLoader();
      await expect(loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, integrity: INTEGRITY })).resolves.not.toBeNull();
      expect(railScripts().map((script) => script.integrity)).toEqual([OTHER_INTEGRITY, INTEGRITY]);
    });

    test('a pinned load in flight serves an unpinned call too (the pin is stricter)', async () => {
      cleanups.push(defineGlobalOnLoad(SCRIPT_SRC, fakeRailGlobal()));
      const { loadRail } = await freshLoader();
      const pinned = loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, integrity: INTEGRITY });
      await Promise.resolve();
      await Promise.resolve();
      const unpinned = loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC });
      await expect(Promise.all([pinned, unpinned])).resolves.toHaveLength(2);
      expect(railScripts()).toHaveLength(1);
      expect(railScripts()[0]?.integrity).toBe(INTEGRITY);
    });
  });

  test('resolves from an existing window.Rail without injecting', async () => {
    const global = fakeRailGlobal();
    window.Rail = global;
    const { loadRail } = await freshLoader();
    await expect(loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC })).resolves.not.toBeNull();
    expect(railScripts()).toHaveLength(0);
    expect(global.calls).toHaveLength(1);
  });

  test.each([
    ['without', undefined],
    ['with', INTEGRITY],
  ])('a tag already on the page that failed does not hang it (%s integrity): it injects its own and resolves', async (_name, integrity) => {
    scriptLoading('error');
    const failed = document.createElement('script');
    failed.src = SCRIPT_SRC;
    if (integrity) failed.integrity = integrity;
    const errored = new Promise((resolve) => failed.addEventListener('error', resolve));
    document.head.appendChild(failed);
    await errored;
    scriptLoading('load');
    cleanups.push(defineGlobalOnLoad(SCRIPT_SRC, fakeRailGlobal()));
    const { loadRail } = await freshLoader();
    await expect(loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, integrity })).resolves.not.toBeNull();
    expect(railScripts()).toHaveLength(2);
  });

  test('rejects with LoadError failed_to_load, removes the tag and lets a later call retry', async () => {
    scriptLoading('error');
    const { loadRail, LoadError } = await freshLoader();
    const failure = await loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LoadError);
    expect(failure).toMatchObject({ name: 'LoadError', code: 'failed_to_load' });
    expect(railScripts()).toHaveLength(0);

    scriptLoading('load');
    cleanups.push(defineGlobalOnLoad(SCRIPT_SRC, fakeRailGlobal()));
    await expect(loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC })).resolves.not.toBeNull();
    expect(railScripts()).toHaveLength(1);
  });

  test('rejects with LoadError global_missing when the script loads without defining Rail', async () => {
    const { loadRail } = await freshLoader();
    await expect(loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC })).rejects.toMatchObject({ code: 'global_missing' });
  });

  test('resolves a relative scriptSrc against the page', async () => {
    const absolute = new URL('/v1/', document.baseURI).href;
    cleanups.push(defineGlobalOnLoad(absolute, fakeRailGlobal()));
    const { loadRail } = await freshLoader();
    await expect(loadRail(PUBLISHABLE_KEY, { scriptSrc: '/v1/' })).resolves.not.toBeNull();
    expect(railScripts()[0]?.src).toBe(absolute);
  });

  test.each(['http://js.rail.test/v1/', 'http://localhost:80@evil.test/v1/', 'javascript:alert(1)', 'data:text/javascript,window.Rail=1', 'ftp://js.rail.test/v1/'])(
    'rejects scriptSrc %s (https: only, or http: on localhost) with a TypeError before touching the page',
    async (scriptSrc) => {
      const { loadRail } = await freshLoader();
      await expect(loadRail(PUBLISHABLE_KEY, { scriptSrc })).rejects.toThrow(new TypeError(`Expected option scriptSrc https: (http: on localhost), got "${new URL(scriptSrc).href}".`));
      expect(railScripts()).toHaveLength(0);
    },
  );

  test.each(['http://localhost:8081/v1/', 'http://127.0.0.1/v1/', 'https://js.rail.test/v1/'])('accepts scriptSrc %s', async (scriptSrc) => {
    cleanups.push(defineGlobalOnLoad(scriptSrc, fakeRailGlobal()));
    const { loadRail } = await freshLoader();
    await expect(loadRail(PUBLISHABLE_KEY, { scriptSrc })).resolves.not.toBeNull();
  });

  test('resolves null without a window (server-side rendering)', async () => {
    const { loadRail } = await freshLoader();
    vi.stubGlobal('window', undefined);
    try {
      await expect(loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC })).resolves.toBeNull();
    } finally {
      vi.unstubAllGlobals();
    }
    expect(railScripts()).toHaveLength(0);
  });

  test('rejects invalid options before touching the page', async () => {
    const { loadRail } = await freshLoader();
    await expect(loadRail(PUBLISHABLE_KEY, { scriptSrc: SCRIPT_SRC, extra: 1 } as never)).rejects.toBeInstanceOf(TypeError);
    expect(railScripts()).toHaveLength(0);
  });
});
