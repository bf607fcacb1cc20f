/** `GET {js_url}/v1/manifest.json`: the runtime's pinned URL and its Subresource Integrity, for deployment tooling. */
export type RuntimeManifest = {
  runtime: {
    /** `{js_url}/v1/rail.<hash>.js`, the runtime's content-addressed URL. */
    src: string;
    /** `sha384-<base64>` of the bytes served at `src` (and at /v1/). */
    integrity: string;
  };
};
