/**
 * Row shapes of the SQL tables, shared by SQLite and PostgreSQL, composed from each family's schema.ts.
 * Dialect-neutral column types only: timestamps are ISO 8601 UTC text with milliseconds (fixed width, so they sort
 * and compare as text), JSON is text, booleans are integers 0/1, money is bigint minor units (parsed back to number;
 * see database.ts). Every merchant-data table leads with account_id (and mode) so a distributed PostgreSQL could
 * shard on it.
 */
import type { AccountsSchema } from './accounts/schema';
import type { CollectSchema } from './collect/schema';
import type { CustomersSchema } from './customers/schema';
import type { EventsSchema } from './events/schema';
import type { IdempotencySchema } from './idempotency/schema';
import type { PaymentsSchema } from './payments/schema';
import type { RefundsSchema } from './refunds/schema';
import type { VaultSchema } from './vault/schema';
import type { DisputesSchema } from './disputes/schema';
import type { FilesSchema } from './files/schema';
import type { RecoverySchema } from './recovery/schema';
import type { PaymentMethodsSchema } from './payment-methods/schema';
import type { MandatesSchema } from './mandates/schema';
import type { SubscriptionsSchema } from './subscriptions/schema';
import type { OperatorsSchema } from './operators/schema';
import type { WebhookEndpointsSchema } from './webhook-endpoints/schema';
import type { RateLimitsSchema } from './rate-limits/schema';

export interface Database
  extends AccountsSchema,
    PaymentsSchema,
    EventsSchema,
    CustomersSchema,
    RefundsSchema,
    IdempotencySchema,
    VaultSchema,
    DisputesSchema,
    FilesSchema,
    CollectSchema,
    RecoverySchema,
    PaymentMethodsSchema,
    MandatesSchema,
    SubscriptionsSchema,
    OperatorsSchema,
    WebhookEndpointsSchema,
    RateLimitsSchema {}
