/** Kysely implementations of CustomerStore and EphemeralKeyStore (SQLite and PostgreSQL). */
import { sql, type Kysely, type Selectable, type UpdateObject } from 'kysely';
import type { Database } from '../schema';
import type { JsonObject } from '../../../../protocol/api/payments';
import type { CustomerPatch, CustomerRecord, EphemeralKeyRecord } from './records';
import type { CustomersTable, EphemeralKeysTable } from './schema';
import type { CustomersStores, CustomerStore, EphemeralKeyStore, EphemeralKeyWithAccount } from './store';
import type { AccountRecord } from '../accounts/records';
import type { InsertResult, Scope } from '../../kernel/store-types';
import { JOINED_ACCOUNT_COLUMNS, toJoinedAccount } from '../accounts/sql-store';
import { dateOrNull, type Db, inScope, insertResult, iso, jsonOrNull } from '../sql-rows';

const parseObject = (value: string | null): JsonObject | null => (value === null ? null : (JSON.parse(value) as JsonObject));

function toCustomer(row: Selectable<CustomersTable>): CustomerRecord {
  return {
    accountId: row.account_id,
    mode: row.mode,
    customerId: row.customer_id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    phoneCountryCode: row.phone_country_code,
    description: row.description,
    address: parseObject(row.address),
    metadata: parseObject(row.metadata),
    taxRegistrationId: row.tax_registration_id,
    documentDetails: parseObject(row.document_details),
    defaultPaymentMethodId: row.default_payment_method_id,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    deletedAt: row.deleted_at === null ? null : new Date(row.deleted_at),
  };
}

function patchColumns(patch: CustomerPatch): Partial<CustomersTable> {
  const columns: Partial<CustomersTable> = { updated_at: iso(patch.updatedAt) };
  if (patch.name !== undefined) columns.name = patch.name;
  if (patch.email !== undefined) columns.email = patch.email;
  if (patch.phone !== undefined) columns.phone = patch.phone;
  if (patch.phoneCountryCode !== undefined) columns.phone_country_code = patch.phoneCountryCode;
  if (patch.description !== undefined) columns.description = patch.description;
  if (patch.address !== undefined) columns.address = jsonOrNull(patch.address);
  if (patch.metadata !== undefined) columns.metadata = jsonOrNull(patch.metadata);
  if (patch.taxRegistrationId !== undefined) columns.tax_registration_id = patch.taxRegistrationId;
  if (patch.documentDetails !== undefined) columns.document_details = jsonOrNull(patch.documentDetails);
  if (patch.defaultPaymentMethodId !== undefined) columns.default_payment_method_id = patch.defaultPaymentMethodId;
  return columns;
}

function toEphemeralKey(row: Selectable<EphemeralKeysTable>): EphemeralKeyRecord {
  return {
    keyId: row.key_id,
    accountId: row.account_id,
    mode: row.mode,
    customerId: row.customer_id,
    secretHash: row.secret_hash,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    issuerKeyId: row.issuer_key_id,
  };
}

export class SqlCustomerStore implements CustomerStore {
  constructor(private readonly db: Db) {}

  async insertCustomer(customer: CustomerRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('customers')
      .values({
        account_id: customer.accountId,
        mode: customer.mode,
        customer_id: customer.customerId,
        name: customer.name,
        email: customer.email,
        phone: customer.phone,
        phone_country_code: customer.phoneCountryCode,
        description: customer.description,
        address: jsonOrNull(customer.address),
        metadata: jsonOrNull(customer.metadata),
        tax_registration_id: customer.taxRegistrationId,
        document_details: jsonOrNull(customer.documentDetails),
        default_payment_method_id: customer.defaultPaymentMethodId,
        created_at: iso(customer.createdAt),
        updated_at: iso(customer.updatedAt),
        deleted_at: customer.deletedAt === null ? null : iso(customer.deletedAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findCustomer(scope: Scope, customerId: string): Promise<CustomerRecord | undefined> {
    const row = await this.db
      .selectFrom('customers')
      .selectAll()
      .where(inScope(scope))
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    return row && toCustomer(row);
  }

  async listCustomers(scope: Scope, page: { offset: number; limit: number }): Promise<CustomerRecord[]> {
    if (page.limit === 0) return [];
    const rows = await this.db
      .selectFrom('customers')
      .selectAll()
      .where(inScope(scope))
      .where('deleted_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('customer_id')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return rows.map(toCustomer);
  }

  updateCustomer(scope: Scope, customerId: string, patch: CustomerPatch): Promise<CustomerRecord | undefined> {
    return this.#updateLiveCustomer(scope, customerId, patchColumns(patch));
  }

  holdLiveCustomer(scope: Scope, customerId: string): Promise<CustomerRecord | undefined> {
    // An update that changes nothing: it takes the row's lock (PostgreSQL) or the write lock (SQLite) all the same.
    return this.#updateLiveCustomer(scope, customerId, { updated_at: sql.ref('updated_at') });
  }

  async #updateLiveCustomer(scope: Scope, customerId: string, columns: UpdateObject<Database, 'customers'>) {
    const row = await this.db
      .updateTable('customers')
      .set(columns)
      .where(inScope(scope))
      .where('customer_id', '=', customerId)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    return row && toCustomer(row);
  }

  async markCustomerDeleted(scope: Scope, customerId: string, now: Date): Promise<CustomerRecord | undefined> {
    const before = await this.findCustomer(scope, customerId);
    if (before === undefined || before.deletedAt !== null) return undefined;
    const result = await this.db
      .updateTable('customers')
      .set({
        name: null,
        email: null,
        phone: null,
        phone_country_code: null,
        description: null,
        address: null,
        metadata: null,
        tax_registration_id: null,
        document_details: null,
        default_payment_method_id: null,
        updated_at: iso(now),
        deleted_at: iso(now),
      })
      .where(inScope(scope))
      .where('customer_id', '=', customerId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return (result.numUpdatedRows ?? 0n) > 0n ? before : undefined;
  }
}

export class SqlEphemeralKeyStore implements EphemeralKeyStore {
  constructor(private readonly db: Db) {}

  async insertEphemeralKey(key: EphemeralKeyRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('ephemeral_keys')
      .values({
        key_id: key.keyId,
        account_id: key.accountId,
        mode: key.mode,
        customer_id: key.customerId,
        secret_hash: key.secretHash,
        created_at: iso(key.createdAt),
        expires_at: iso(key.expiresAt),
        issuer_key_id: key.issuerKeyId,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findEphemeralKeyBySecretHash(secretHash: string): Promise<EphemeralKeyWithAccount | undefined> {
    const row = await this.db
      .selectFrom('ephemeral_keys')
      .innerJoin('accounts', 'accounts.account_id', 'ephemeral_keys.account_id')
      .leftJoin('api_keys as issuer', 'issuer.key_id', 'ephemeral_keys.issuer_key_id')
      .selectAll('ephemeral_keys')
      .select(JOINED_ACCOUNT_COLUMNS)
      .select(['issuer.key_id as issuer_found_key_id', 'issuer.revoked_at as issuer_revoked_at', 'issuer.expires_at as issuer_expires_at'])
      .where('ephemeral_keys.secret_hash', '=', secretHash)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const issuer = row.issuer_found_key_id === null ? undefined : { revokedAt: dateOrNull(row.issuer_revoked_at), expiresAt: dateOrNull(row.issuer_expires_at) };
    return { key: toEphemeralKey(row), account: toJoinedAccount(row), ...(issuer !== undefined ? { issuer } : {}) };
  }

  async deleteEphemeralKey(scope: Scope, keyId: string): Promise<EphemeralKeyRecord | undefined> {
    const row = await this.db
      .deleteFrom('ephemeral_keys')
      .where(inScope(scope))
      .where('key_id', '=', keyId)
      .returningAll()
      .executeTakeFirst();
    return row && toEphemeralKey(row);
  }

  async deleteEphemeralKeysOfCustomer(scope: Scope, customerId: string): Promise<number> {
    const result = await this.db
      .deleteFrom('ephemeral_keys')
      .where(inScope(scope))
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** The customers stores on one connection or transaction. */
export function customersSqlStores(db: Db): CustomersStores {
  return { customers: new SqlCustomerStore(db), ephemeralKeys: new SqlEphemeralKeyStore(db) };
}
