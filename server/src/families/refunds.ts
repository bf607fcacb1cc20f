import { registerRefundRoutes } from '../http/routes/refunds/routes';
import type { Family } from './family';

export const refundsFamily: Family = { name: 'refunds', routes: (app, deps) => registerRefundRoutes(app, deps) };
