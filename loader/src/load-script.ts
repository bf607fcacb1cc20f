import type { RailConstructor } from './types.js';
import { expected } from './validate-options.js';

export type LoadErrorCode = 'failed_to_load' | 'global_missing';

/** The runtime script could not be used: it did not load (`failed_to_load`) or loaded without `window.Rail` (`global_missing`). */
export class LoadError extends Error {
  override name = 'LoadError';
  declare readonly code: LoadErrorCode;
  constructor(code: LoadErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

// Per script URL: the load of the loader's own latest tag and that tag's integrity. A failure deletes its own load so
// a later call can retry, never a newer one that replaced it.
const loading = new Map<string, [Promise<RailConstructor>, string | undefined]>();

/**
 * Resolves window.Rail, loading `src` at most once at a time. Only the loader's own tags are waited for: a tag
 * already on the page may have failed long ago, and no event would ever say so.
 */
export async function loadScript(scriptSrc: string, nonce?: string, integrity?: string): Promise<RailConstructor> {
  const url = new URL(scriptSrc, document.baseURI);
  const src = url.href;
  if (!/^(https:|http:(localhost|127\.0\.0\.1)$)/.test(url.protocol + url.hostname)) throw expected('option scriptSrc https: (http: on localhost)', `"${src}"`);
  // Unpinned, any runtime will do; pinned, only the one its own pinned tag defined (resolved or in flight).
  if (!integrity && window.Rail) return window.Rail;
  let [promise, pin] = loading.get(src) ?? [];
  if (!promise || (integrity && pin !== integrity)) {
    const tag = document.createElement('script');
    tag.src = src;
    tag.async = true;
    if (nonce) tag.nonce = nonce;
    if (integrity) {
      tag.integrity = integrity;
      // Integrity needs a CORS response: without it the browser blocks a cross-origin script that has one.
      tag.crossOrigin = 'anonymous';
    }
    promise = new Promise<RailConstructor>((resolve, reject) => {
      const fail = (code: LoadErrorCode, message: string) => {
        // A newer pinned load of the same URL may have taken the memo meanwhile: forgetting it would inject another tag.
        if (loading.get(src)?.[0] === promise) loading.delete(src);
        reject(new LoadError(code, message + src));
      };
      // load fires right after the tag's script ran, so window.Rail is the one it defined. The tag is the loader's
      // own: nothing else sets its handlers.
      tag.onload = () => (window.Rail ? resolve(window.Rail) : fail('global_missing', 'No window.Rail after '));
      tag.onerror = () => {
        // A failed tag never fires again; drop it so a retry injects a fresh one.
        tag.remove();
        fail('failed_to_load', 'Failed to load ');
      };
    });
    // Remembered before the tag goes in: a failure may be reported at once, and must find it to forget it.
    loading.set(src, [promise, integrity]);
    document.head.append(tag);
  }
  return promise;
}
