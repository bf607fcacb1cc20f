import { registerKeyRoutes } from '../http/routes/keys/routes';
import type { Family } from './family';

/** Key management (the spec's Reporting API under /v1): scopes and API keys. */
export const keysFamily: Family = { name: 'keys', routes: (app, deps) => registerKeyRoutes(app, deps) };
