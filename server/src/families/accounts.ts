import { registerAccountRoutes } from '../http/routes/accounts/routes';
import type { Family } from './family';

export const accountsFamily: Family = { name: 'accounts', routes: (app, deps) => registerAccountRoutes(app, deps) };
