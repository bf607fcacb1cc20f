import type { RailConstructor } from './types.js';

export type LoadErrorCode = 'failed_to_load' | 'global_missing' | 'integrity_mismatch';

/**
 * The runtime script could not be used: it did not load (`failed_to_load`), loaded without `window.Rail`
 * (`global_missing`), or `integrity` was asked for while the page already has the runtime from a tag without that
 * integrity (`integrity_mismatch`).
 */
export class LoadError extends Error {
  override name = 'LoadError';
  constructor(
    readonly code: LoadErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

// One in-flight promise per script URL and integrity; a failure deletes it so a later call can retry.
const loading = new Map<string, Promise<RailConstructor>>();

/** A script tag already on the page for this (absolute) URL, whoever added it. */
export function findScript(src: string): HTMLScriptElement | undefined {
  return [...document.querySelectorAll<HTMLScriptElement>('script[src]')].find((script) => script.src === src);
}

/** A new async script tag for `src`; the caller listens to it before inserting it. */
export function createScript(src: string, nonce?: string, integrity?: string): HTMLScriptElement {
  const script = document.createElement('script');
  script.src = src;
  script.async = true;
  if (nonce) script.nonce = nonce;
  if (integrity) {
    script.integrity = integrity;
    // Integrity needs a CORS response: without it the browser blocks a cross-origin script that has one.
    script.crossOrigin = 'anonymous';
  }
  return script;
}

/** Resolves window.Rail, loading `src` at most once at a time. */
export function loadScript(scriptSrc: string, nonce?: string, integrity?: string): Promise<RailConstructor> {
  const src = new URL(scriptSrc, document.baseURI).href;
  const existing = findScript(src);
  // A pinned load vouches only for a tag with the same pin; a runtime from any other tag was never checked.
  if (integrity && (existing ? existing.integrity !== integrity : window.Rail)) {
    return Promise.reject(new LoadError('integrity_mismatch', `Rail is on the page without integrity ${integrity}.`));
  }
  if (window.Rail) return Promise.resolve(window.Rail);
  const key = src + ' ' + (integrity ?? '');
  let promise = loading.get(key);
  if (!promise) {
    promise = new Promise<RailConstructor>((resolve, reject) => {
      const script = existing ?? createScript(src, nonce, integrity);
      script.addEventListener('load', () =>
        window.Rail ? resolve(window.Rail) : reject(new LoadError('global_missing', `Loaded ${src} but window.Rail is missing.`)),
      );
      script.addEventListener('error', (cause) => {
        // A failed tag never fires again; drop it so a retry injects a fresh one.
        script.remove();
        reject(new LoadError('failed_to_load', `Failed to load the Rail runtime from ${src}.`, { cause }));
      });
      if (!existing) (document.head || document.body).appendChild(script);
    }).catch((error) => {
      loading.delete(key);
      throw error;
    });
    loading.set(key, promise);
  }
  return promise;
}
