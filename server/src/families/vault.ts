import { registerVaultRoutes } from '../http/routes/vault/routes';
import type { Family } from './family';

export const vaultFamily: Family = {
  name: 'vault',
  routes: (app, deps) => registerVaultRoutes(app, deps, { jsOrigin: new URL(deps.publicJsUrl).origin }),
};
