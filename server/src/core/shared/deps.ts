import type { CollectProviderRegistry } from '../../rails/collect-provider';
import type { RailRegistry } from '../../rails/rail-adapter';
import type { Store } from '../../storage/stores';
import type { Clock } from '../../kernel/clock';
import type { IdGenerator } from '../../kernel/ids';
import type { CardVault } from '../../vault/card-vault';
import type { OperatorSecretBox } from '../../vault/operator-secret-box';
import type { FileBlobStore } from '../../storage/files/store';
import type { ClientRailSyncs } from '../payments/client-rail-syncs';
import type { SubscriptionRecord } from '../../storage/subscriptions/records';

/** What every core operation may use. Concrete adapters are chosen in main.ts (or a test harness). */
export interface CoreDeps {
  store: Store;
  rails: RailRegistry;
  clock: Clock;
  ids: IdGenerator;
  /**
   * Where the bytes of uploaded files live (disk beside SQLite, file_blobs on PostgreSQL; compose.ts chooses).
   * Optional like the vault, so deps built for other operations' unit tests need not make one.
   */
  fileBlobs?: FileBlobStore;
  /**
   * The card vault (POST /vault/tokens, psp_token confirms). Optional so deps built without one (unit tests of
   * other operations) need not make a key; without it the vault answers ERR_4004 like an account without cards.
   */
  vault?: CardVault;
  /** The Collect API's providers per mode; absent (or no provider for the mode): Collect answers ERR_3010. */
  collect?: CollectProviderRegistry;
  /** Time limits of rail calls and of the recovery of what they leave behind; DEFAULT_RECOVERY_POLICY when absent. */
  recovery?: RecoveryPolicy;
  /** Seals operators' TOTP secrets with the vault key; without it no operator can verify a session (ERR_5005). */
  operatorSecrets?: OperatorSecretBox;
  /** Operator sessions and key rotation; DEFAULT_KEY_POLICY when absent. */
  keys?: KeyPolicy;
  /** How often browsers' reads ask rails about a payment (one per process); absent, they always ask. */
  clientRailSyncs?: ClientRailSyncs;
  /**
   * Where this core's next renewal tick of a listing (outstanding or due renewals of an account and mode) resumes,
   * when the last one stopped at its bound before the end of it (core/subscriptions/renew-subscriptions.ts). One per
   * composed core, so that cores in one process (tests, several stores) never resume each other's ticks. Optional so
   * deps built for other operations' unit tests need not make one; absent, every tick starts from the first.
   */
  renewalTickResumesAfter?: Map<string, SubscriptionRecord>;
}

/** Lifetimes and limits of operator sessions and key management (docs/keys.md). */
export interface KeyPolicy {
  /** How long a session token works after login. */
  sessionTtlMs: number;
  /** How long a two-factor verification keeps key management open (the spec's "fresh" step-up). */
  stepUpWindowMs: number;
  /** How long a rotated key keeps working beside its replacement (spec: 24 hours). */
  rotationGraceMs: number;
  /** At most `limit` rotations per account per `windowSeconds` (RAIL_KEY_ROTATION_LIMIT). */
  rotationLimit: { limit: number; windowSeconds: number };
}

export const DEFAULT_KEY_POLICY: KeyPolicy = {
  sessionTtlMs: 8 * 60 * 60_000,
  stepUpWindowMs: 5 * 60_000,
  rotationGraceMs: 24 * 60 * 60_000,
  rotationLimit: { limit: 10, windowSeconds: 60 * 60 },
};

/** How long Rail waits for a rail, and when it goes back to what a crash or a silent rail left in flight. */
export interface RecoveryPolicy {
  /** A rail call that has not answered by then is left to recovery; the request answers with what is stored. */
  railCallTimeoutMs: number;
  /** A payment in processing or a refund in pending this long unchanged is asked about again (longer than the above). */
  recoverAfterMs: number;
  /** How long one instance holds an object it is asking the rail about. */
  leaseMs: number;
  /** A payment the rail has not settled this long after its confirm goes to requires_merchant_action, a refund to review. */
  deadlineMs: number;
}

export const DEFAULT_RECOVERY_POLICY: RecoveryPolicy = {
  railCallTimeoutMs: 20_000,
  recoverAfterMs: 60_000,
  leaseMs: 30_000,
  deadlineMs: 24 * 60 * 60_000,
};
