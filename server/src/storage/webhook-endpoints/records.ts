import type { Mode } from '../../../../protocol/ids';

/** A webhook endpoint an operator registered for one mode of an account (docs/webhooks.md "Endpoints"). */
export interface WebhookEndpointRecord {
  endpointId: string;
  accountId: string;
  mode: Mode;
  url: string;
  /** `whsec_` + base64 key (Standard Webhooks); deliveries are signed with it. */
  secret: string;
  /** The secret a rotation replaced, still signing beside the new one until previousSecretUntil. */
  previousSecret: string | null;
  previousSecretUntil: Date | null;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}
