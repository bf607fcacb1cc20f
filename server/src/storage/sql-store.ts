import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Mode, KeyType } from '../../../protocol/ids';
import type { Currency } from '../../../protocol/currency';
import type { NextAction, PaymentStatus } from '../../../protocol/payments';
import type { CaptureMethod, FutureUsage, JsonObject, PaymentMethodData } from '../../../protocol/api/payments';
import type { PaymentMethod, PaymentMethodType } from '../../../protocol/api/enums';
import type { AccountSettings } from '../kernel/account-settings-types';
import type { Engine } from './database';
import { migrateToLatest } from './migrations/index';
import { SqlCustomerStore, SqlEphemeralKeyStore } from './customers/sql-store';
import type { CustomerStore, EphemeralKeyStore } from './customers/store';
import type { PaymentAttemptStore, PaymentListStore } from './payments/store';
import { SqlPaymentAttemptStore, SqlPaymentListStore } from './payments/sql-store';
import { SqlRefundStore } from './refunds/sql-store';
import { SqlWebhookStore } from './events/sql-store';
import type { WebhookStore } from './events/store';
import { SqlIdempotencyStore } from './idempotency/sql-store';
import type {
  AccountRecord,
  ApiKeyRecord,
  InsertResult,
  OperatorRecord,
  OutboxEventRecord,
  PaymentPatch,
  PaymentRecord,
  ProfileRecord,
  Scope,
} from './records';
import { SqlVaultTokenStore } from './vault/sql-store';
import type { AccountsTable, ApiKeysTable, Database, PaymentsTable, WebhookEventsTable } from './schema';
import type {
  AccountStore,
  ApiKeyStore,
  IdempotencyStore,
  OperatorStore,
  OutboxStore,
  PaymentStore,
  ProfileStore,
  RefundStore,
  Store,
  Stores,
  VaultTokenStore,
} from './stores';

type Db = Kysely<Database> | Transaction<Database>;

const iso = (date: Date): string => date.toISOString();
const isoOrNull = (date: Date | null): string | null => (date === null ? null : date.toISOString());
const dateOrNull = (value: string | null): Date | null => (value === null ? null : new Date(value));
const jsonOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));
function parseJson<T>(value: string | null): T | null {
  return value === null ? null : (JSON.parse(value) as T);
}

/** Rows changed by an INSERT ... ON CONFLICT DO NOTHING: 0 means the key already existed. */
export function insertResult(result: { numInsertedOrUpdatedRows?: bigint | undefined }): InsertResult {
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n ? 'inserted' : 'duplicate';
}

export function toAccount(row: Selectable<AccountsTable>): AccountRecord {
  return {
    accountId: row.account_id,
    slug: row.slug,
    name: row.name,
    settings: JSON.parse(row.settings) as AccountSettings,
    createdAt: new Date(row.created_at),
  };
}

/** The account columns a key look-up joins in (account_id comes from the key's own table). */
export const JOINED_ACCOUNT_COLUMNS = [
  'accounts.slug as account_slug',
  'accounts.name as account_name',
  'accounts.settings as account_settings',
  'accounts.created_at as account_created_at',
] as const;

/** The account of a row selected with JOINED_ACCOUNT_COLUMNS. */
export function toJoinedAccount(row: {
  account_id: string;
  account_slug: string;
  account_name: string;
  account_settings: string;
  account_created_at: string;
}): AccountRecord {
  return toAccount({
    account_id: row.account_id,
    slug: row.account_slug,
    name: row.account_name,
    settings: row.account_settings,
    created_at: row.account_created_at,
  });
}

function toApiKey(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    keyId: row.key_id,
    accountId: row.account_id,
    mode: row.mode as Mode,
    keyType: row.key_type as KeyType,
    name: row.name,
    prefix: row.prefix,
    keyHash: row.key_hash,
    createdAt: new Date(row.created_at),
    revokedAt: dateOrNull(row.revoked_at),
    expiresAt: dateOrNull(row.expires_at),
  };
}

export function toPayment(row: Selectable<PaymentsTable>): PaymentRecord {
  return {
    accountId: row.account_id,
    mode: row.mode as Mode,
    paymentId: row.payment_id,
    profileId: row.profile_id,
    status: row.status as PaymentStatus,
    amount: row.amount,
    currency: row.currency as Currency,
    amountCapturable: row.amount_capturable,
    amountReceived: row.amount_received,
    amountToCapture: row.amount_to_capture,
    shippingCost: row.shipping_cost,
    orderTaxAmount: row.order_tax_amount,
    captureMethod: row.capture_method as CaptureMethod,
    customerId: row.customer_id,
    description: row.description,
    returnUrl: row.return_url,
    setupFutureUsage: row.setup_future_usage as FutureUsage | null,
    paymentMethod: row.payment_method as PaymentMethod | null,
    paymentMethodType: row.payment_method_type as PaymentMethodType | null,
    paymentMethodData: parseJson<PaymentMethodData>(row.payment_method_data),
    metadata: parseJson<JsonObject>(row.metadata),
    merchantOrderReferenceId: row.merchant_order_reference_id,
    clientSecret: row.client_secret,
    clientSecretExpiresAt: new Date(row.client_secret_expires_at),
    nextAction: parseJson<NextAction>(row.next_action),
    errorCode: row.error_code,
    errorMessage: row.error_message,
    errorReason: row.error_reason,
    rail: row.rail,
    connector: row.connector,
    railReference: row.rail_reference,
    railState: parseJson<JsonObject>(row.rail_state),
    requestFingerprint: row.request_fingerprint,
    requestFields: JSON.parse(row.request_fields) as JsonObject,
    cancellationReason: row.cancellation_reason ?? null,
    version: row.version,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function fromPayment(payment: PaymentRecord): PaymentsTable {
  return {
    account_id: payment.accountId,
    mode: payment.mode,
    payment_id: payment.paymentId,
    profile_id: payment.profileId,
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    amount_capturable: payment.amountCapturable,
    amount_received: payment.amountReceived,
    amount_to_capture: payment.amountToCapture,
    shipping_cost: payment.shippingCost,
    order_tax_amount: payment.orderTaxAmount,
    capture_method: payment.captureMethod,
    customer_id: payment.customerId,
    description: payment.description,
    return_url: payment.returnUrl,
    setup_future_usage: payment.setupFutureUsage,
    payment_method: payment.paymentMethod,
    payment_method_type: payment.paymentMethodType,
    payment_method_data: jsonOrNull(payment.paymentMethodData),
    metadata: jsonOrNull(payment.metadata),
    merchant_order_reference_id: payment.merchantOrderReferenceId,
    client_secret: payment.clientSecret,
    client_secret_expires_at: iso(payment.clientSecretExpiresAt),
    next_action: jsonOrNull(payment.nextAction),
    error_code: payment.errorCode,
    error_message: payment.errorMessage,
    error_reason: payment.errorReason,
    rail: payment.rail,
    connector: payment.connector,
    rail_reference: payment.railReference,
    rail_state: jsonOrNull(payment.railState),
    request_fingerprint: payment.requestFingerprint,
    request_fields: JSON.stringify(payment.requestFields),
    cancellation_reason: payment.cancellationReason ?? null,
    version: payment.version,
    created_at: iso(payment.createdAt),
    updated_at: iso(payment.updatedAt),
  };
}

function patchColumns(patch: PaymentPatch): Partial<PaymentsTable> {
  const columns: Partial<PaymentsTable> = { updated_at: iso(patch.updatedAt) };
  if (patch.status !== undefined) columns.status = patch.status;
  if (patch.amountCapturable !== undefined) columns.amount_capturable = patch.amountCapturable;
  if (patch.amountReceived !== undefined) columns.amount_received = patch.amountReceived;
  if (patch.returnUrl !== undefined) columns.return_url = patch.returnUrl;
  if (patch.setupFutureUsage !== undefined) columns.setup_future_usage = patch.setupFutureUsage;
  if (patch.paymentMethod !== undefined) columns.payment_method = patch.paymentMethod;
  if (patch.paymentMethodType !== undefined) columns.payment_method_type = patch.paymentMethodType;
  if (patch.paymentMethodData !== undefined) columns.payment_method_data = jsonOrNull(patch.paymentMethodData);
  if (patch.nextAction !== undefined) columns.next_action = jsonOrNull(patch.nextAction);
  if (patch.errorCode !== undefined) columns.error_code = patch.errorCode;
  if (patch.errorMessage !== undefined) columns.error_message = patch.errorMessage;
  if (patch.errorReason !== undefined) columns.error_reason = patch.errorReason;
  if (patch.rail !== undefined) columns.rail = patch.rail;
  if (patch.connector !== undefined) columns.connector = patch.connector;
  if (patch.railReference !== undefined) columns.rail_reference = patch.railReference;
  if (patch.railState !== undefined) columns.rail_state = jsonOrNull(patch.railState);
  if (patch.amount !== undefined) columns.amount = patch.amount;
  if (patch.currency !== undefined) columns.currency = patch.currency;
  if (patch.amountToCapture !== undefined) columns.amount_to_capture = patch.amountToCapture;
  if (patch.shippingCost !== undefined) columns.shipping_cost = patch.shippingCost;
  if (patch.orderTaxAmount !== undefined) columns.order_tax_amount = patch.orderTaxAmount;
  if (patch.captureMethod !== undefined) columns.capture_method = patch.captureMethod;
  if (patch.customerId !== undefined) columns.customer_id = patch.customerId;
  if (patch.description !== undefined) columns.description = patch.description;
  if (patch.metadata !== undefined) columns.metadata = jsonOrNull(patch.metadata);
  if (patch.merchantOrderReferenceId !== undefined) columns.merchant_order_reference_id = patch.merchantOrderReferenceId;
  if (patch.clientSecretExpiresAt !== undefined) columns.client_secret_expires_at = iso(patch.clientSecretExpiresAt);
  if (patch.requestFields !== undefined) columns.request_fields = JSON.stringify(patch.requestFields);
  if (patch.cancellationReason !== undefined) columns.cancellation_reason = patch.cancellationReason;
  return columns;
}

export function toEvent(row: Selectable<WebhookEventsTable>): OutboxEventRecord {
  return {
    eventId: row.event_id,
    accountId: row.account_id,
    mode: row.mode as Mode,
    eventType: row.event_type,
    objectType: row.object_type as OutboxEventRecord['objectType'],
    objectId: row.object_id,
    payload: JSON.parse(row.payload) as JsonObject,
    createdAt: new Date(row.created_at),
  };
}

class SqlAccountStore implements AccountStore {
  constructor(private readonly db: Db) {}

  async insertAccount(account: AccountRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('accounts')
      .values({
        account_id: account.accountId,
        slug: account.slug,
        name: account.name,
        settings: JSON.stringify(account.settings),
        created_at: iso(account.createdAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findAccountBySlug(slug: string): Promise<AccountRecord | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('slug', '=', slug).executeTakeFirst();
    return row && toAccount(row);
  }

  async updateAccountSettings(accountId: string, settings: AccountSettings): Promise<void> {
    await this.db
      .updateTable('accounts')
      .set({ settings: JSON.stringify(settings), name: settings.merchantName })
      .where('account_id', '=', accountId)
      .execute();
  }
}

class SqlProfileStore implements ProfileStore {
  constructor(private readonly db: Db) {}

  async insertProfile(profile: ProfileRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('business_profiles')
      .values({
        profile_id: profile.profileId,
        account_id: profile.accountId,
        name: profile.name,
        is_default: profile.isDefault ? 1 : 0,
        created_at: iso(profile.createdAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findDefaultProfile(accountId: string): Promise<ProfileRecord | undefined> {
    const row = await this.db
      .selectFrom('business_profiles')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('is_default', '=', 1)
      .orderBy('created_at')
      .orderBy('profile_id')
      .executeTakeFirst();
    return row && { profileId: row.profile_id, accountId: row.account_id, name: row.name, isDefault: true, createdAt: new Date(row.created_at) };
  }

  async findProfile(accountId: string, profileId: string): Promise<ProfileRecord | undefined> {
    const row = await this.db
      .selectFrom('business_profiles')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('profile_id', '=', profileId)
      .executeTakeFirst();
    return (
      row && {
        profileId: row.profile_id,
        accountId: row.account_id,
        name: row.name,
        isDefault: row.is_default === 1,
        createdAt: new Date(row.created_at),
      }
    );
  }
}

class SqlApiKeyStore implements ApiKeyStore {
  constructor(private readonly db: Db) {}

  async insertApiKey(key: ApiKeyRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('api_keys')
      .values({
        key_id: key.keyId,
        account_id: key.accountId,
        mode: key.mode,
        key_type: key.keyType,
        name: key.name,
        prefix: key.prefix,
        key_hash: key.keyHash,
        created_at: iso(key.createdAt),
        revoked_at: isoOrNull(key.revokedAt),
        expires_at: isoOrNull(key.expiresAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findApiKeyByHash(keyHash: string): Promise<{ key: ApiKeyRecord; account: AccountRecord } | undefined> {
    const row = await this.db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.account_id', 'api_keys.account_id')
      .selectAll('api_keys')
      .select(JOINED_ACCOUNT_COLUMNS)
      .where('api_keys.key_hash', '=', keyHash)
      .executeTakeFirst();
    return row && { key: toApiKey(row), account: toJoinedAccount(row) };
  }

  async hasUsableKeys(scope: Scope, now: Date): Promise<boolean> {
    const row = await this.db
      .selectFrom('api_keys')
      .select('key_id')
      .where('account_id', '=', scope.accountId)
      .where('mode', '=', scope.mode)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', iso(now))]))
      .executeTakeFirst();
    return row !== undefined;
  }
}

class SqlOperatorStore implements OperatorStore {
  constructor(private readonly db: Db) {}

  async insertOperator(operator: OperatorRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('operators')
      .values({
        operator_id: operator.operatorId,
        account_id: operator.accountId,
        email: operator.email,
        password_hash: operator.passwordHash,
        totp_secret: operator.totpSecret,
        scopes: JSON.stringify(operator.scopes),
        created_at: iso(operator.createdAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async countOperators(accountId: string): Promise<number> {
    const row = await this.db
      .selectFrom('operators')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }
}

class SqlPaymentStore implements PaymentStore {
  constructor(private readonly db: Db) {}

  async insertPayment(payment: PaymentRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('payments')
      .values(fromPayment(payment))
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findPayment(scope: Scope, paymentId: string): Promise<PaymentRecord | undefined> {
    const row = await this.db
      .selectFrom('payments')
      .selectAll()
      .where('account_id', '=', scope.accountId)
      .where('mode', '=', scope.mode)
      .where('payment_id', '=', paymentId)
      .executeTakeFirst();
    return row && toPayment(row);
  }

  async updatePaymentIfStatus(
    scope: Scope,
    paymentId: string,
    expectedStatuses: readonly PaymentStatus[],
    patch: PaymentPatch,
  ): Promise<PaymentRecord | undefined> {
    if (expectedStatuses.length === 0) return undefined;
    const row = await this.db
      .updateTable('payments')
      .set({ ...patchColumns(patch), version: sql<number>`version + 1` })
      .where('account_id', '=', scope.accountId)
      .where('mode', '=', scope.mode)
      .where('payment_id', '=', paymentId)
      .where('status', 'in', [...expectedStatuses])
      .returningAll()
      .executeTakeFirst();
    return row && toPayment(row);
  }
}

class SqlOutboxStore implements OutboxStore {
  constructor(private readonly db: Db) {}

  async insertEvent(event: OutboxEventRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('webhook_events')
      .values({
        event_id: event.eventId,
        account_id: event.accountId,
        mode: event.mode,
        event_type: event.eventType,
        object_type: event.objectType,
        object_id: event.objectId,
        payload: JSON.stringify(event.payload),
        delivery_status: 'pending',
        attempt_count: 0,
        next_attempt_at: iso(event.createdAt),
        created_at: iso(event.createdAt),
        updated_at: iso(event.createdAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async listEventsForObject(scope: Scope, objectId: string): Promise<OutboxEventRecord[]> {
    const rows = await this.db
      .selectFrom('webhook_events')
      .selectAll()
      .where('account_id', '=', scope.accountId)
      .where('mode', '=', scope.mode)
      .where('object_id', '=', objectId)
      .orderBy('created_at')
      .orderBy('event_id')
      .execute();
    return rows.map(toEvent);
  }
}

function storesFor(db: Db): Stores {
  return {
    accounts: new SqlAccountStore(db),
    profiles: new SqlProfileStore(db),
    apiKeys: new SqlApiKeyStore(db),
    operators: new SqlOperatorStore(db),
    payments: new SqlPaymentStore(db),
    outbox: new SqlOutboxStore(db),
    customers: new SqlCustomerStore(db),
    ephemeralKeys: new SqlEphemeralKeyStore(db),
    attempts: new SqlPaymentAttemptStore(db),
    paymentList: new SqlPaymentListStore(db),
    refunds: new SqlRefundStore(db),
    webhooks: new SqlWebhookStore(db),
    idempotency: new SqlIdempotencyStore(db),
    vaultTokens: new SqlVaultTokenStore(db),
  };
}

/** The Kysely implementation of Store, on SQLite or PostgreSQL. */
export class SqlStore implements Store {
  readonly accounts: AccountStore;
  readonly profiles: ProfileStore;
  readonly apiKeys: ApiKeyStore;
  readonly operators: OperatorStore;
  readonly payments: PaymentStore;
  readonly outbox: OutboxStore;
  readonly customers: CustomerStore;
  readonly ephemeralKeys: EphemeralKeyStore;
  readonly attempts: PaymentAttemptStore;
  readonly paymentList: PaymentListStore;
  readonly refunds: RefundStore;
  readonly webhooks: WebhookStore;
  readonly idempotency: IdempotencyStore;
  readonly vaultTokens: VaultTokenStore;
  readonly #db: Kysely<Database>;
  #closed = false;

  constructor(
    db: Kysely<Database>,
    readonly engine: Engine,
  ) {
    this.#db = db;
    const stores = storesFor(db);
    this.accounts = stores.accounts;
    this.profiles = stores.profiles;
    this.apiKeys = stores.apiKeys;
    this.operators = stores.operators;
    this.payments = stores.payments;
    this.outbox = stores.outbox;
    this.customers = stores.customers;
    this.ephemeralKeys = stores.ephemeralKeys;
    this.attempts = stores.attempts;
    this.paymentList = stores.paymentList;
    this.refunds = stores.refunds;
    this.webhooks = stores.webhooks;
    this.idempotency = stores.idempotency;
    this.vaultTokens = stores.vaultTokens;
  }

  /** Applies pending migrations. */
  async migrate(): Promise<void> {
    await migrateToLatest(this.#db as Kysely<unknown>);
  }

  transaction<T>(work: (tx: Stores) => Promise<T>): Promise<T> {
    return this.#db.transaction().execute((trx) => work(storesFor(trx)));
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.#db);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#db.destroy();
  }
}
