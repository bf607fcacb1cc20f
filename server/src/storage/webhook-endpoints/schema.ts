import type { Mode } from '../../../../protocol/ids';

export interface WebhookEndpointsTable {
  account_id: string;
  mode: Mode;
  endpoint_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  enabled: number;
  created_at: string;
  updated_at: string;
}

/** The webhook endpoints table, as storage/schema.ts composes it into the database. */
export interface WebhookEndpointsSchema {
  webhook_endpoints: WebhookEndpointsTable;
}
