import { registerSystemRoutes } from '../http/routes/system/routes';
import type { Family } from './family';

export const systemFamily: Family = {
  name: 'system',
  routes: (app, deps) => registerSystemRoutes(app, deps.store, deps.isReady ?? (() => true), deps.publicBaseUrl),
};
