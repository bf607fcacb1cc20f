import type { InsertResult, Scope } from '../../kernel/store-types';
import type { WebhookEndpointRecord } from './records';

export interface WebhookEndpointStore {
  /** One endpoint per account and mode: a second is a duplicate. */
  insertWebhookEndpoint(endpoint: WebhookEndpointRecord): Promise<InsertResult>;
  findWebhookEndpointById(accountId: string, endpointId: string): Promise<WebhookEndpointRecord | undefined>;
  findWebhookEndpointOfMode(scope: Scope): Promise<WebhookEndpointRecord | undefined>;
  listWebhookEndpoints(accountId: string): Promise<WebhookEndpointRecord[]>;
  /** Writes url, enabled, secrets and updatedAt of an existing endpoint. */
  updateWebhookEndpoint(endpoint: WebhookEndpointRecord): Promise<void>;
  deleteWebhookEndpoint(accountId: string, endpointId: string): Promise<boolean>;
}

/** The webhook endpoint stores, as storage/stores.ts composes them into Stores. */
export interface WebhookEndpointsStores {
  webhookEndpoints: WebhookEndpointStore;
}
