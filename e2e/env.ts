/** Fixed addresses and keys of the e2e stack. The merchant page and the runtime live on different origins. */
export const E2E = {
  apiPort: 18080,
  jsPort: 18081,
  merchantPort: 18090,
  /** A second merchant-server listener: another origin, used to embed a rogue cross-origin iframe. */
  roguePort: 18091,
  baseUrl: 'http://127.0.0.1:18080',
  jsUrl: 'http://127.0.0.1:18081',
  merchantUrl: 'http://localhost:18090',
  rogueUrl: 'http://127.0.0.1:18091',
  secretKey: 'rail_full_test_e2eSecretKey0000000000000000000000001',
  publishableKey: 'rail_open_test_e2ePublishableKey00000000000000000001',
} as const;
