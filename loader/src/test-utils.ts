import type { Rail, RailConstructor } from './types';

export const PUBLISHABLE_KEY = 'rail_open_test_' + 'a'.repeat(32);
export const SCRIPT_SRC = 'https://js.rail.test/v1/';
/** A well-formed SRI value (sha384 of the empty string). */
export const INTEGRITY = 'sha384-OLBgp1GsljhM2TJ+sbHjaiH9txEUvgdDTAzHv2P24donTt6/529l+9Ua0vFImLlb';

interface HappyDomSettings {
  disableJavaScriptFileLoading: boolean;
  handleDisabledFileLoadingAsSuccess: boolean;
}

/** happy-dom's browser settings: script tags then "load" or "error" without any network. */
export function scriptLoading(outcome: 'load' | 'error'): void {
  const settings = (window as unknown as { happyDOM: { settings: HappyDomSettings } }).happyDOM.settings;
  settings.disableJavaScriptFileLoading = true;
  settings.handleDisabledFileLoadingAsSuccess = outcome === 'load';
}

/** A fake runtime global that records its calls. */
export function fakeRailGlobal(): RailConstructor & { calls: unknown[][] } {
  const calls: unknown[][] = [];
  const constructor = ((...args: unknown[]) => {
    calls.push(args);
    return { elements: () => ({}), confirmPayment: async () => ({}), retrievePayment: async () => ({}) } as unknown as Rail;
  }) as RailConstructor & { calls: unknown[][] };
  constructor.calls = calls;
  return constructor;
}

/** Defines window.Rail when the script for `src` fires load, as the real runtime script would. */
export function defineGlobalOnLoad(src: string, global: RailConstructor | undefined): () => void {
  const listener = (event: Event) => {
    if ((event.target as HTMLScriptElement).src === src && global) window.Rail = global;
  };
  // load does not bubble, but a capturing listener on document still sees it.
  document.addEventListener('load', listener, true);
  return () => document.removeEventListener('load', listener, true);
}

export function railScripts(): HTMLScriptElement[] {
  return [...document.querySelectorAll<HTMLScriptElement>('script')];
}
