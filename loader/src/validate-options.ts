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

const OPTION_NAMES = ['scriptSrc', 'customBackendUrl', 'profileId', 'nonce', 'integrity'];

// Browsers ignore an integrity value they cannot parse and run the script unchecked, so only the exact shape of
// one standard-base64 digest passes; a truncated copy fails here instead.
const INTEGRITY = /^sha(256-[A-Za-z\d+/]{43}=|384-[A-Za-z\d+/]{64}|512-[A-Za-z\d+/]{86}==)$/;

const describe = (value: unknown) => (value === null ? 'null' : typeof value);

/** Throws a TypeError saying what was expected and what arrived. */
export function validateOptions(publishableKey: unknown, options: unknown): LoadRailOptions {
  if (typeof publishableKey !== 'string' || !publishableKey.startsWith('rail_open_')) {
    throw new TypeError(
      `Expected publishableKey to be a string starting with "rail_open_", got ${
        typeof publishableKey === 'string' ? (publishableKey.startsWith('rail_full_') ? 'a secret key' : 'another string') : describe(publishableKey)
      }.`,
    );
  }
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`Expected options to be an object like {scriptSrc: "https://.../v1/"}, got ${describe(options)}.`);
  }
  for (const [name, value] of Object.entries(options)) {
    if (!OPTION_NAMES.includes(name)) {
      throw new TypeError(`Expected options among ${OPTION_NAMES.join(', ')}, got unknown option "${name}".`);
    }
    if (value !== undefined && typeof value !== 'string') {
      throw new TypeError(`Expected option ${name} to be a string, got ${describe(value)}.`);
    }
  }
  const { scriptSrc, integrity } = options as LoadRailOptions;
  if (!scriptSrc) {
    throw new TypeError('Expected option scriptSrc to be the runtime URL ({js_url}/v1/), got undefined.');
  }
  if (integrity !== undefined && !INTEGRITY.test(integrity)) {
    throw new TypeError(`Expected option integrity to be one sha256-, sha384- or sha512- hash in base64, got "${integrity}".`);
  }
  return options as LoadRailOptions;
}
