/**
 * @rail/loader: injects the Rail runtime script once and resolves an initialized instance. No side effect on import.
 * @example
 * const rail = await loadRail('rail_open_test_...', { scriptSrc: 'https://js.example.com/v1/' });
 * rail?.elements({ clientSecret }).create('payment').mount('#payment');
 */
import { loadScript } from './load-script.js';
import type { Rail } from './types.js';
import { validateOptions, type LoadRailOptions } from './validate-options.js';

export { LoadError, type LoadErrorCode } from './load-script.js';
export type { LoadRailOptions } from './validate-options.js';
export type * from './types.js';

/**
 * Loads `{js_url}/v1/` (at most once per URL; a failure can be retried) and returns `Rail(publishableKey, ...)`.
 * Resolves null when there is no `window` (server-side rendering); rejects with a TypeError for invalid options
 * and a LoadError (`failed_to_load`, `global_missing`) when the script cannot be used.
 */
export async function loadRail(publishableKey: string, options: LoadRailOptions): Promise<Rail | null> {
  // async: invalid options reject (never throw synchronously).
  const { scriptSrc, nonce, integrity, ...railOptions } = validateOptions(publishableKey, options);
  // Resolve to null when imported server side, so isomorphic apps can call it unconditionally.
  if (typeof window === 'undefined') return null;
  // What is left are the runtime's options (customBackendUrl, profileId).
  return (await loadScript(scriptSrc, nonce, integrity))(publishableKey, railOptions);
}
