import { registerOperatorRoutes } from '../http/routes/operators/routes';
import type { Family } from './family';

/** Operators managed by operators: invitations, removal, two-person two-factor resets. */
export const operatorsFamily: Family = { name: 'operators', routes: (app, deps) => registerOperatorRoutes(app, deps) };
