/**
 * The typed records the stores read and write. They are the server's internal model (camelCase, Date, parsed
 * JSON); the wire format lives in protocol/ and the SQL row shapes in storage/schema.ts.
 */
import type { Mode, KeyType } from '../../../protocol/ids';
import type { Currency } from '../../../protocol/currency';
import type { NextAction, PaymentStatus } from '../../../protocol/payments';
import type {
  CaptureMethod,
  FutureUsage,
  JsonObject,
  PaymentMethodData,
} from '../../../protocol/api/payments';
import type { PaymentMethod, PaymentMethodType } from '../../../protocol/api/enums';
import type { AccountSettings } from '../kernel/account-settings-types';

/** Every merchant-data look-up is scoped to one account and one mode (test keys see test data only). */
export interface Scope {
  accountId: string;
  mode: Mode;
}

export interface AccountRecord {
  accountId: string;
  /** Stable name used by bootstrap to find the default account ("default"). */
  slug: string;
  name: string;
  settings: AccountSettings;
  createdAt: Date;
}

export interface ProfileRecord {
  profileId: string;
  accountId: string;
  name: string;
  isDefault: boolean;
  createdAt: Date;
}

export interface ApiKeyRecord {
  keyId: string;
  accountId: string;
  mode: Mode;
  keyType: KeyType;
  name: string;
  /** Non-secret prefix shown in listings, e.g. `rail_full_test_AbC123`. */
  prefix: string;
  /** SHA-256 hex of the whole key; the plaintext is never stored. */
  keyHash: string;
  createdAt: Date;
  revokedAt: Date | null;
  expiresAt: Date | null;
}

export interface OperatorRecord {
  operatorId: string;
  accountId: string;
  email: string;
  /** scrypt hash (see core/secrets.ts). */
  passwordHash: string;
  /** TOTP secret, base32. */
  totpSecret: string;
  scopes: string[];
  createdAt: Date;
}

export interface PaymentRecord extends Scope {
  paymentId: string;
  profileId: string;
  status: PaymentStatus;
  amount: number;
  currency: Currency;
  amountCapturable: number;
  amountReceived: number | null;
  amountToCapture: number | null;
  shippingCost: number | null;
  orderTaxAmount: number | null;
  captureMethod: CaptureMethod;
  customerId: string | null;
  description: string | null;
  returnUrl: string | null;
  setupFutureUsage: FutureUsage | null;
  paymentMethod: PaymentMethod | null;
  paymentMethodType: PaymentMethodType | null;
  paymentMethodData: PaymentMethodData | null;
  metadata: JsonObject | null;
  merchantOrderReferenceId: string | null;
  clientSecret: string;
  clientSecretExpiresAt: Date;
  nextAction: NextAction | null;
  errorCode: string | null;
  errorMessage: string | null;
  errorReason: string | null;
  /** Rail that took the payment at confirm (e.g. "upi"), and the adapter's connector name. */
  rail: string | null;
  connector: string | null;
  railReference: string | null;
  /** Adapter-owned state between authorize and a later sync (e.g. when a pending UPI collect resolves). */
  railState: JsonObject | null;
  /** SHA-256 of the canonical create body: payment_id idempotency (same id + same body replays). */
  requestFingerprint: string;
  /** The validated create body as sent, for fields that have no column of their own. */
  requestFields: JsonObject;
  /** Why the payment was cancelled (POST /payments/{id}/cancel); null otherwise. Column added by migration 0002. */
  cancellationReason?: string | null;
  /** Incremented on every update. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Fields an update may change. */
export type PaymentPatch = Partial<
  Pick<
    PaymentRecord,
    | 'status'
    | 'amountCapturable'
    | 'amountReceived'
    | 'returnUrl'
    | 'setupFutureUsage'
    | 'paymentMethod'
    | 'paymentMethodType'
    | 'paymentMethodData'
    | 'nextAction'
    | 'errorCode'
    | 'errorMessage'
    | 'errorReason'
    | 'rail'
    | 'connector'
    | 'railReference'
    | 'railState'
    // Update (POST /payments/{id}), update_metadata and cancel.
    | 'amount'
    | 'currency'
    | 'amountToCapture'
    | 'shippingCost'
    | 'orderTaxAmount'
    | 'captureMethod'
    | 'customerId'
    | 'description'
    | 'metadata'
    | 'merchantOrderReferenceId'
    | 'clientSecretExpiresAt'
    | 'requestFields'
    | 'cancellationReason'
  >
> & { updatedAt: Date };

/** A row of the outbox: an event to deliver to the merchant's webhook endpoint (dispatcher: a later issue). */
export interface OutboxEventRecord extends Scope {
  eventId: string;
  eventType: string;
  objectType: 'payment' | 'refund' | 'dispute' | 'mandate';
  objectId: string;
  /** The full envelope as it will be delivered. */
  payload: JsonObject;
  createdAt: Date;
}

export type InsertResult = 'inserted' | 'duplicate';

/** Who an Idempotency-Key belongs to: the account and mode of the key, and the key kind (secret or publishable). */
export interface IdempotencyScope extends Scope {
  keyKind: string;
}

/** A response as the idempotency store keeps it: status, the headers that matter, body text. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One Idempotency-Key row: a claim while the first request runs, then its stored response. */
export interface IdempotencyKeyRecord extends IdempotencyScope {
  key: string;
  fingerprint: string;
  method: string;
  path: string;
  status: 'in_flight' | 'done';
  claimToken: string;
  lockedAt: Date;
  response: StoredResponse | null;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * A card in the vault behind one psp_token. Only ciphertext and display fields are stored: the number (and holder
 * name) in cardCiphertext, the CVC in cvcCiphertext (set to null at first use).
 */
export interface VaultTokenRecord extends Scope {
  /** The psp_token: `tok_` + 20 base62. */
  tokenId: string;
  /** The payment whose client_secret minted it; the token confirms this payment only. */
  paymentId: string;
  cardCiphertext: string;
  cvcCiphertext: string | null;
  last4: string;
  cardNetwork: string | null;
  expMonth: string;
  expYear: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}
