import { registerEventRoutes } from '../http/routes/events/routes';
import { defaultWebhookDeliveryConfig } from '../webhooks/delivery';
import type { Family } from './family';

export const eventsFamily: Family = {
  name: 'events',
  routes: (app, deps) => registerEventRoutes(app, deps, deps.webhooks ?? defaultWebhookDeliveryConfig()),
};
