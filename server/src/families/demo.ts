import { registerDemoRoutes } from '../http/routes/demo/routes';
import type { Family } from './family';

/** The demo merchant backend and page; registered only when the app has demo options (RAIL_DEMO). */
export const demoFamily: Family = {
  name: 'demo',
  routes: (app, deps) => {
    if (deps.demo !== undefined) registerDemoRoutes(app, deps, deps.demo, { publicBaseUrl: deps.publicBaseUrl, publicJsUrl: deps.publicJsUrl });
  },
};
