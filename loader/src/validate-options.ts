export interface LoadRailOptions {
  /** The runtime script URL, `{js_url}/v1/`. */
  scriptSrc: string;
  /** API base URL the runtime's frame calls instead of the one that served the script. */
  customBackendUrl?: string;
  profileId?: string;
  /** Nonce for the injected script tag, for pages with a strict script-src CSP. */
  nonce?: string;
  /**
   * Subresource Integrity of the script at `scriptSrc` (`sha384-...`, from `{js_url}/v1/manifest.json`): the
   * injected tag gets it with `crossorigin="anonymous"`, and the browser refuses other bytes (`failed_to_load`).
   */
  integrity?: string;
}

const OPTION_NAMES = 'scriptSrc customBackendUrl profileId nonce integrity'.split(' ');

// Browsers ignore an integrity value they cannot parse and run the script unchecked, so only the exact shape of
// one standard-base64 digest passes; a truncated copy fails here instead.
const INTEGRITY = /^sha(256-[A-Za-z\d+/]{43}=|384-[A-Za-z\d+/]{64}|512-[A-Za-z\d+/]{86}==)$/;

const describe = (value: unknown) => (value === null ? 'null' : typeof value);

/** A TypeError saying what was expected and what arrived: `Expected <what>, got <got>.` */
export const expected = (what: string, got: string) => new TypeError(`Expected ${what}, got ${got}.`);

/** Throws a TypeError saying what was expected and what arrived. */
export function validateOptions(publishableKey: unknown, options: unknown): LoadRailOptions {
  if (typeof publishableKey !== 'string' || !publishableKey.startsWith('rail_open_')) {
    // A secret key is named, never echoed.
    throw expected('publishableKey "rail_open_..."', typeof publishableKey === 'string' && publishableKey.startsWith('rail_full_') ? 'a secret key' : describe(publishableKey));
  }
  if (!options || typeof options !== 'object') throw expected('options {scriptSrc, ...}', describe(options));
  for (const [name, value] of Object.entries(options)) {
    if (!OPTION_NAMES.includes(name)) throw expected(`options among ${OPTION_NAMES}`, `unknown option "${name}"`);
    if (value !== undefined && typeof value !== 'string') throw expected(`option ${name} to be a string`, describe(value));
  }
  const { scriptSrc, integrity } = options as LoadRailOptions;
  if (!scriptSrc) throw expected('option scriptSrc ({js_url}/v1/)', 'undefined');
  if (integrity !== undefined && !INTEGRITY.test(integrity)) {
    throw expected('option integrity "sha(256|384|512)-<base64>"', `"${integrity}"`);
  }
  return options as LoadRailOptions;
}
