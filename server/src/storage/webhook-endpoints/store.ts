import type { InsertResult, Scope } from '../../kernel/store-types';
import type { WebhookEndpointRecord } from './records';

export interface WebhookEndpointStore {
  /** One endpoint per account and mode: a second is a duplicate. */
  insertWebhookEndpoint(endpoint: WebhookEndpointRecord): Promise<InsertResult>;
  findWebhookEndpointById(accountId: string, endpointId: string): Promise<WebhookEndpointRecord | undefined>;
  findWebhookEndpointOfMode(scope: Scope): Promise<WebhookEndpointRecord | undefined>;
  listWebhookEndpoints(accountId: string): Promise<WebhookEndpointRecord[]>;
  /** Writes url, enabled and updatedAt (never the secrets: a rotation at the same moment is kept); false when gone. */
  updateWebhookEndpointSettings(accountId: string, endpointId: string, change: { url: string; enabled: boolean; updatedAt: Date }): Promise<boolean>;
  /**
   * Replaces the secret `expected` with `secret`, the old one signing until `previousUntil`, only while it is still
   * the current secret and no earlier rotation's overlap is open at `at`; false otherwise.
   */
  rotateWebhookSecret(accountId: string, endpointId: string, rotation: { expected: string; secret: string; previousUntil: Date; at: Date }): Promise<boolean>;
  deleteWebhookEndpoint(accountId: string, endpointId: string): Promise<boolean>;
}

/** The webhook endpoint stores, as storage/stores.ts composes them into Stores. */
export interface WebhookEndpointsStores {
  webhookEndpoints: WebhookEndpointStore;
}
