import type { Selectable } from 'kysely';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { WebhookEndpointRecord } from './records';
import type { WebhookEndpointsTable } from './schema';
import type { WebhookEndpointsStores, WebhookEndpointStore } from './store';
import { dateOrNull, type Db, inScope, insertResult, iso, isoOrNull } from '../sql-rows';

export function toWebhookEndpoint(row: Selectable<WebhookEndpointsTable>): WebhookEndpointRecord {
  return {
    endpointId: row.endpoint_id,
    accountId: row.account_id,
    mode: row.mode,
    url: row.url,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretUntil: dateOrNull(row.previous_secret_until),
    enabled: Number(row.enabled) === 1,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

class SqlWebhookEndpointStore implements WebhookEndpointStore {
  constructor(private readonly db: Db) {}

  async insertWebhookEndpoint(endpoint: WebhookEndpointRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('webhook_endpoints')
      .values({
        account_id: endpoint.accountId,
        mode: endpoint.mode,
        endpoint_id: endpoint.endpointId,
        url: endpoint.url,
        secret: endpoint.secret,
        previous_secret: endpoint.previousSecret,
        previous_secret_until: isoOrNull(endpoint.previousSecretUntil),
        enabled: endpoint.enabled ? 1 : 0,
        created_at: iso(endpoint.createdAt),
        updated_at: iso(endpoint.updatedAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findWebhookEndpointById(accountId: string, endpointId: string): Promise<WebhookEndpointRecord | undefined> {
    const row = await this.db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId).where('endpoint_id', '=', endpointId).executeTakeFirst();
    return row && toWebhookEndpoint(row);
  }

  async findWebhookEndpointOfMode(scope: Scope): Promise<WebhookEndpointRecord | undefined> {
    const row = await this.db.selectFrom('webhook_endpoints').selectAll().where(inScope(scope)).executeTakeFirst();
    return row && toWebhookEndpoint(row);
  }

  async listWebhookEndpoints(accountId: string): Promise<WebhookEndpointRecord[]> {
    const rows = await this.db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId).orderBy('mode').execute();
    return rows.map(toWebhookEndpoint);
  }

  async updateWebhookEndpointSettings(accountId: string, endpointId: string, change: { url: string; enabled: boolean; updatedAt: Date }): Promise<boolean> {
    const result = await this.db
      .updateTable('webhook_endpoints')
      .set({ url: change.url, enabled: change.enabled ? 1 : 0, updated_at: iso(change.updatedAt) })
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async rotateWebhookSecret(accountId: string, endpointId: string, rotation: { expected: string; secret: string; previousUntil: Date; at: Date }): Promise<boolean> {
    const result = await this.db
      .updateTable('webhook_endpoints')
      .set({ secret: rotation.secret, previous_secret: rotation.expected, previous_secret_until: iso(rotation.previousUntil), updated_at: iso(rotation.at) })
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId)
      .where('secret', '=', rotation.expected)
      .where((eb) => eb.or([eb('previous_secret_until', 'is', null), eb('previous_secret_until', '<=', iso(rotation.at))]))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async deleteWebhookEndpoint(accountId: string, endpointId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('webhook_endpoints').where('account_id', '=', accountId).where('endpoint_id', '=', endpointId).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

export function webhookEndpointsSqlStores(db: Db): WebhookEndpointsStores {
  return { webhookEndpoints: new SqlWebhookEndpointStore(db) };
}
