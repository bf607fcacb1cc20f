/**
 * Fixed addresses and keys of the e2e stack. The merchant page and the runtime live on different origins.
 * RAIL_E2E_PORT_OFFSET shifts every port, so two runs (two checkouts on one machine) do not collide.
 */
const offset = Number(process.env.RAIL_E2E_PORT_OFFSET ?? 0);
// The stack takes 16 ports from 18080; whole hundreds keep two runs' ranges apart.
if (!Number.isInteger(offset) || offset < 0 || offset % 100 !== 0 || offset > 40_000) {
  throw new Error(`RAIL_E2E_PORT_OFFSET must be a whole number of hundreds from 0 to 40000, got "${process.env.RAIL_E2E_PORT_OFFSET}".`);
}
const apiPort = 18080 + offset;
const jsPort = 18081 + offset;
const merchantPort = 18090 + offset;
const roguePort = 18091 + offset;
/** `npm run dev` as the dev-hmr spec starts it: page, frame, API and the backend's own js listener. */
const dev = { pagePort: 18092 + offset, framePort: 18093 + offset, apiPort: 18094 + offset, jsPort: 18095 + offset };

export const E2E = {
  apiPort,
  jsPort,
  merchantPort,
  /** A second merchant-server listener: another origin, used to embed a rogue cross-origin iframe. */
  roguePort,
  baseUrl: `http://127.0.0.1:${apiPort}`,
  jsUrl: `http://127.0.0.1:${jsPort}`,
  merchantUrl: `http://localhost:${merchantPort}`,
  rogueUrl: `http://127.0.0.1:${roguePort}`,
  dev,
  secretKey: 'rail_full_test_e2eSecretKey0000000000000000000000001',
  publishableKey: 'rail_open_test_e2ePublishableKey00000000000000000001',
} as const;
