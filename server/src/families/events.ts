import { registerEventRoutes } from '../http/routes/events/routes';
import { registerWebhookEndpointRoutes } from '../http/routes/webhook-endpoints/routes';
import { defaultWebhookDeliveryConfig } from '../webhooks/delivery';
import type { Family } from './family';

export const eventsFamily: Family = {
  name: 'events',
  routes: (app, deps) => {
    const webhooks = deps.webhooks ?? defaultWebhookDeliveryConfig();
    registerEventRoutes(app, deps, webhooks);
    registerWebhookEndpointRoutes(app, deps, webhooks);
  },
};
