/** Records of customers and ephemeral keys (see records.ts for the conventions). */
import type { JsonObject } from '../../../../protocol/api/payments';
import type { Scope } from '../../kernel/store-types';

export interface CustomerRecord extends Scope {
  customerId: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  phoneCountryCode: string | null;
  description: string | null;
  address: JsonObject | null;
  metadata: JsonObject | null;
  taxRegistrationId: string | null;
  documentDetails: JsonObject | null;
  defaultPaymentMethodId: string | null;
  createdAt: Date;
  updatedAt: Date;
  /**
   * Set when the customer was deleted: the row stays as a tombstone with every personal field cleared, so the id is
   * never given to another customer (docs/open-points.md).
   */
  deletedAt: Date | null;
}

/** Customer fields an update may change (undefined: keep; null: clear). */
export type CustomerPatch = Partial<
  Pick<
    CustomerRecord,
    | 'name'
    | 'email'
    | 'phone'
    | 'phoneCountryCode'
    | 'description'
    | 'address'
    | 'metadata'
    | 'taxRegistrationId'
    | 'documentDetails'
    | 'defaultPaymentMethodId'
  >
> & { updatedAt: Date };

export interface EphemeralKeyRecord extends Scope {
  keyId: string;
  customerId: string;
  /** SHA-256 hex of the `epk_...` secret; the plaintext is never stored. */
  secretHash: string;
  createdAt: Date;
  expiresAt: Date;
  /** The API key that created it; null on keys created before this was recorded (migration 0022). */
  issuerKeyId: string | null;
}

/** What the ephemeral key look-up reads of the issuing API key; absent when no row has the recorded key id. */
export interface EphemeralKeyIssuer {
  revokedAt: Date | null;
  expiresAt: Date | null;
}
