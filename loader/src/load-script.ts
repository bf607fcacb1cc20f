import type { RailConstructor } from './types.js';

export type LoadErrorCode = 'failed_to_load' | 'global_missing' | 'integrity_mismatch';

/**
 * The runtime script could not be used: it did not load (`failed_to_load`), loaded without `window.Rail`
 * (`global_missing`), or `integrity` was asked for while the page already has the runtime from a tag without that
 * integrity (`integrity_mismatch`).
 */
export class LoadError extends Error {
  override name = 'LoadError';
  declare readonly code: LoadErrorCode;
  constructor(code: LoadErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

// One in-flight promise per script URL and integrity; a failure deletes it so a later call can retry.
const loading = new Map<string, Promise<RailConstructor>>();

/** Resolves window.Rail, loading `src` at most once at a time. */
export async function loadScript(scriptSrc: string, nonce?: string, integrity?: string): Promise<RailConstructor> {
  const src = new URL(scriptSrc, document.baseURI).href;
  // A script tag already on the page for this URL, whoever added it, is waited for instead of a second one.
  const existing = [...document.scripts].find((script) => script.src === src);
  const key = src + ' ' + integrity;
  // A pinned load vouches only for a tag with the same pin; a runtime from any other tag was never checked.
  if (integrity && (existing ? existing.integrity !== integrity : window.Rail)) {
    throw new LoadError('integrity_mismatch', 'Rail was loaded without integrity ' + integrity);
  }
  if (window.Rail) return window.Rail;
  let promise = loading.get(key);
  if (!promise) {
    const tag = existing ?? document.createElement('script');
    if (!existing) {
      tag.src = src;
      tag.async = true;
      if (nonce) tag.nonce = nonce;
      if (integrity) {
        tag.integrity = integrity;
        // Integrity needs a CORS response: without it the browser blocks a cross-origin script that has one.
        tag.crossOrigin = 'anonymous';
      }
    }
    promise = new Promise<RailConstructor>((resolve, reject) => {
      const fail = (code: LoadErrorCode, message: string) => {
        loading.delete(key);
        reject(new LoadError(code, message + src));
      };
      tag.addEventListener('load', () => (window.Rail ? resolve(window.Rail) : fail('global_missing', 'No window.Rail after ')));
      tag.addEventListener('error', () => {
        // A failed tag never fires again; drop it so a retry injects a fresh one.
        tag.remove();
        fail('failed_to_load', 'Failed to load ');
      });
    });
    // Remembered before the tag goes in: a failure may be reported at once, and must find it to forget it.
    loading.set(key, promise);
    if (!existing) document.head.append(tag);
  }
  return promise;
}
