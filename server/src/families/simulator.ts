import { registerSimulatorRoutes } from '../http/routes/simulator/routes';
import type { Family } from './family';

/** The test simulator's pages (3DS challenge, crypto, UPI approval, bank transfer payer). */
export const simulatorFamily: Family = {
  name: 'simulator',
  routes: (app, deps) => registerSimulatorRoutes(app, deps, { jsOrigin: new URL(deps.publicJsUrl).origin }),
};
