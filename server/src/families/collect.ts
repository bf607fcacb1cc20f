import { registerCollectRoutes } from '../http/routes/collect/routes';
import { registerCollectSimulatorPage } from '../http/routes/collect/simulator-page';
import type { Family } from './family';

export const collectFamily: Family = {
  name: 'collect',
  routes: (app, deps) => {
    registerCollectRoutes(app, deps);
    registerCollectSimulatorPage(app, deps, { jsOrigin: new URL(deps.publicJsUrl).origin });
  },
};
