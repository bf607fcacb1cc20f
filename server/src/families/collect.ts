import { registerCollectRoutes } from '../http/routes/collect/routes';
import { registerCollectSimulatorPage } from '../http/routes/collect/simulator-page';
import { registerSettlementWalletRoute } from '../http/routes/collect/wallet-route';
import type { Family } from './family';

export const collectFamily: Family = {
  name: 'collect',
  routes: (app, deps) => {
    registerCollectRoutes(app, deps);
    registerSettlementWalletRoute(app, deps);
    registerCollectSimulatorPage(app, deps, { jsOrigin: new URL(deps.publicJsUrl).origin });
  },
};
