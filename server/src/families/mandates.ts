import { registerMandateRoutes } from '../http/routes/mandates/routes';
import type { Family } from './family';

export const mandatesFamily: Family = { name: 'mandates', routes: (app, deps) => registerMandateRoutes(app, deps) };
