/** `GET {js_url}/v1/manifest.json`: the runtime's pinned URLs and their Subresource Integrity, for deployment tooling. */
export type RuntimeManifest = {
  /** The build this deployment serves at /v1/. */
  runtime: {
    /** `{js_url}/v1/rail.<hash>.js`, the runtime's content-addressed URL. */
    src: string;
    /** `sha384-<base64>` of the bytes served at `src` (and at /v1/). */
    integrity: string;
  };
  /**
   * Every archived release (runtime/releases/index.json, oldest first) this deployment still serves at its
   * content-addressed URL, so a page pinned to one keeps working through later deployments.
   */
  releases: RuntimeRelease[];
};

export type RuntimeRelease = {
  /** `{js_url}/v1/rail.<hash>.js` */
  src: string;
  /** `sha384-<base64>` of the bytes served at `src`. */
  integrity: string;
  /** The day the release was cut, `YYYY-MM-DD`. */
  released: string;
};

/** `GET {js_url}/v1/config.json`: this deployment's values the runtime script does not carry. */
export type RuntimeConfig = {
  /** The API's public base_url. */
  api_base_url: string;
};
