import { registerSubscriptionRoutes } from '../http/routes/subscriptions/routes';
import type { Family } from './family';

export const subscriptionsFamily: Family = { name: 'subscriptions', routes: (app, deps) => registerSubscriptionRoutes(app, deps) };
