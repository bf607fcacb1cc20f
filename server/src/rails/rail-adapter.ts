/**
 * The one interface every rail adapter implements: the deterministic simulator now, provider adapters later.
 * Adapters only translate between the core and a rail; the core owns states and persistence.
 */
import type { Currency } from '../../../protocol/currency';
import type { Mode } from '../../../protocol/ids';
import type { NextAction } from '../../../protocol/payments';
import type { JsonObject, PaymentMethodData } from '../../../protocol/api/payments';
import type { CardNetwork, PaymentMethod, PaymentMethodType } from '../../../protocol/api/enums';
import type { RailName } from '../kernel/account-settings-types';
import type { CardDetails } from '../vault/card-details';

export interface AuthorizeRequest {
  accountId: string;
  mode: Mode;
  paymentId: string;
  /**
   * The attempt this authorization belongs to, recorded before the call: the idempotent reference under which the
   * rail can be asked again what it did (lookupAuthorization) after a crash or a timeout.
   */
  attemptId: string;
  amount: number;
  currency: Currency;
  paymentMethod: PaymentMethod;
  paymentMethodType: PaymentMethodType;
  paymentMethodData: PaymentMethodData;
  returnUrl: string | null;
  /** The card, decrypted from the vault for this one authorization (card rail only; never stored or logged). */
  card?: CardDetails;
  /** Card rail: what the payment asked of 3-D Secure (request_external_three_ds_authentication, force_3ds_challenge). */
  threeDs?: ThreeDsRequest;
  now: Date;
}

export interface ThreeDsRequest {
  external: boolean;
  forceChallenge: boolean;
}

export interface SyncRequest {
  mode: Mode;
  paymentId: string;
  amount: number;
  railReference: string;
  railState: JsonObject | null;
  /** The customer's answer on a simulator page (3DS challenge, crypto hosted page), when there is one. */
  customerDecision?: 'complete' | 'fail';
  now: Date;
}

/** What a rail answered; the transition table maps it to a status. */
export type RailOutcome =
  | { kind: 'authorized'; reference: string; amountReceived: number }
  | { kind: 'declined'; reference: string; errorCode: string; errorMessage: string; errorReason: string | null }
  | { kind: 'customer_action'; reference: string; nextAction: NextAction; state: JsonObject }
  /** Nothing new yet (sync only). */
  | { kind: 'pending'; reference: string };

export interface RefundRequest {
  accountId: string;
  mode: Mode;
  /** Also the idempotent reference of the refund on the rail: sending it again never refunds twice. */
  refundId: string;
  paymentId: string;
  /** The rail's reference of the payment being refunded. */
  paymentReference: string | null;
  amount: number;
  currency: Currency;
  reason: string | null;
  now: Date;
}

/** What a rail answered to a refund; the refund transition table maps it to a status. */
export type RefundOutcome =
  | { kind: 'succeeded'; reference: string }
  | { kind: 'failed'; reference: string; errorCode: string; errorMessage: string }
  /** The rail holds the refund for manual review. */
  | { kind: 'review'; reference: string }
  /** Accepted, outcome not known yet. */
  | { kind: 'pending'; reference: string };

/**
 * How long the rail holds an authorization open for capture (manual capture): its standard validity, and the longer
 * one an extended authorization gets, both counted from the authorization.
 */
export interface AuthorizationValidity {
  standardMs: number;
  extendedMs: number;
}

/** Asks the rail to raise an open authorization to a new total (incremental authorization). */
export interface IncrementAuthorizationRequest {
  accountId: string;
  mode: Mode;
  paymentId: string;
  /** The rail's reference of the authorization. */
  railReference: string | null;
  /**
   * This call's idempotent reference on the rail, `<attempt_id>_inc_<random>` (each call its own: the same payment's
   * total is asked again, by a later increase or to set it back): sent again, it changes the total once, and
   * lookupIncrement asks what became of it.
   */
  reference: string;
  /** The amount first authorized, the amount authorized now, and the total asked for. */
  originalAmount: number;
  currentAmount: number;
  newAmount: number;
  currency: Currency;
  now: Date;
}

/** The rail refused a change of an open authorization (an increase, a capture, a void, a cancel after capture). */
export interface RailRefusal {
  kind: 'declined';
  reference: string;
  errorCode: string;
  errorMessage: string;
}

/** What every capture, void and cancel after capture tells the rail: whose authorization, and which attempt's. */
interface AuthorizationChangeRequest {
  accountId: string;
  mode: Mode;
  paymentId: string;
  /** The attempt whose authorization changes. */
  attemptId: string;
  /** The rail's reference of the authorization. */
  railReference: string | null;
  now: Date;
}

export type IncrementAuthorizationOutcome =
  | { kind: 'authorized'; reference: string }
  | RailRefusal;

/**
 * Asks the rail to capture (part of) an open authorization: money moves. `captureId` (`<attempt_id>_<sequence>`) is
 * the capture's idempotent reference on the rail: sent again, it captures once, and lookupCapture asks what became
 * of it.
 */
export interface CaptureRequest extends AuthorizationChangeRequest {
  captureId: string;
  amount: number;
  /** The total authorized now (raised by incremental authorizations). */
  authorizedAmount: number;
  /**
   * Whether this is the authorization's last capture (capture_method manual, refund_uncaptured_amount, or nothing
   * left after it): the rail releases what it leaves uncaptured (a final capture, as acquirers call it).
   */
  final: boolean;
  currency: Currency;
}

export type CaptureOutcome =
  | { kind: 'captured'; reference: string; amount: number }
  | RailRefusal;

/**
 * Asks the rail to release an open authorization (void): nothing was captured, and the hold ends. `reference`
 * (`<attempt_id>_void_<request reference>`) is this void's idempotent reference on the rail, and what lookupVoid asks
 * about: each cancel request has its own, so a void the rail refused once can be asked again by another request.
 */
export interface VoidRequest extends AuthorizationChangeRequest {
  reference: string;
}

export type VoidOutcome =
  | { kind: 'voided'; reference: string }
  | RailRefusal;

/**
 * Asks the rail to cancel a captured authorization before settlement (cancel_post_capture): it reverses the
 * captures (`captured` in all) and releases what was left uncaptured (`releases`). `reference`
 * (`<attempt_id>_cpc_<request reference>`) is its idempotent reference: sent again, it cancels once, and
 * lookupCancelCaptures asks what became of it.
 */
export interface CancelCapturesRequest extends AuthorizationChangeRequest {
  reference: string;
  captured: number;
  releases: number;
  currency: Currency;
}

export type CancelCapturesOutcome =
  | { kind: 'cancelled'; reference: string }
  | RailRefusal;

/** External 3DS: the client's authentication request for a payment that waits with next_action three_ds_invoke. */
export interface ThreeDsAuthenticationRequest {
  accountId: string;
  mode: Mode;
  paymentId: string;
  railReference: string;
  railState: JsonObject | null;
  deviceChannel: 'APP' | 'BRW';
  threedsMethodCompInd: 'Y' | 'N' | 'U';
  now: Date;
}

/**
 * The directory server's answer (EMV 3DS transStatus): Y authenticated without a challenge, C a challenge at acsUrl,
 * N not authenticated; `state` replaces the payment's rail state. `not_waiting`: the rail holds no authentication
 * open for this payment.
 */
export type ThreeDsAuthenticationOutcome =
  | {
      kind: 'answered';
      transStatus: 'Y' | 'C' | 'N';
      acsTransId: string;
      serverTransId: string;
      acsReferenceNumber: string;
      acsUrl: string | null;
      challengeRequest: string | null;
      state: JsonObject;
    }
  | { kind: 'not_waiting' };

/** External 3DS: authorize the payment under its rail reference once its authentication succeeded. */
export interface CompleteAuthorizationRequest extends SyncRequest {
  accountId: string;
}

/** A wallet's session token for the client SDK (its fields depend on the wallet; docs/simulator.md). */
export type WalletSessionToken = { wallet_name: string; connector: string } & JsonObject;

export interface WalletSessionRequest {
  accountId: string;
  mode: Mode;
  paymentId: string;
  amount: number;
  currency: Currency;
  wallets: readonly PaymentMethodType[];
  now: Date;
}

/** post_session_tokens: the wallet order a client SDK opens before confirm. */
export type WalletOrderRequest = Omit<WalletSessionRequest, 'wallets'> & { wallet: PaymentMethodType };

/** Asks a rail what it did with a request Rail sent under `reference` (an attempt id, a refund id, a capture id, ...). */
export interface LookupRequest {
  accountId: string;
  mode: Mode;
  reference: string;
  now: Date;
}

/** The rail never received a request under that reference: nothing moved, it may be sent (again). */
export interface NotReceived {
  kind: 'not_received';
}

export interface RailAdapter {
  readonly rail: RailName;
  /** Connector name shown on the payment (`connector`). */
  readonly connector: string;
  /**
   * True when the rail keeps what it did in Rail's own store (the simulators' ledger, rails/rail-ledger.ts), written
   * after the confirm's claim: a sync that keeps the rail's answer keeps the claim, and a power loss that loses the
   * claim loses the call with it, as if it had never been made. So a confirm calls it without waiting for the claim's
   * sync, and a refund without waiting for the pending refund's (core/shared/rail-call.ts callRailAfterWrite).
   * Absent: a rail elsewhere, called only once they are durable.
   */
  readonly remembersInRailStore?: boolean;
  /** The payment method and types this adapter takes for a currency (an empty list: none). */
  paymentMethodTypes(currency: Currency): readonly { paymentMethod: PaymentMethod; paymentMethodType: PaymentMethodType }[];
  /** Card networks the acquirer takes (card rails only; listed by GET /account/payment_methods). */
  readonly cardNetworks?: readonly CardNetwork[];
  authorize(request: AuthorizeRequest): Promise<RailOutcome>;
  sync(request: SyncRequest): Promise<RailOutcome>;
  /**
   * Refunds (part of) a captured payment. Present on adapters that can refund; whether an account may use it in a
   * mode is the account's capability data (core/accounts/account-settings.ts), never decided here.
   */
  refund?(request: RefundRequest): Promise<RefundOutcome>;
  /**
   * Manual capture: how long an authorization stays capturable on this rail. Whether an account may authorize
   * without capturing is the account's capability data (manualCapture), never decided here.
   */
  readonly authorizationValidity?: AuthorizationValidity;
  /**
   * Captures (part of) an open authorization (manual capture); the core records the capture `pending` before it asks
   * (core/payments/capture-payment.ts). Present on rails that authorize without capturing.
   */
  capture?(request: CaptureRequest): Promise<CaptureOutcome>;
  /** Releases an open authorization (void of a requires_capture payment); present with capture. */
  voidAuthorization?(request: VoidRequest): Promise<VoidOutcome>;
  /** What the rail answered to the capture sent under a capture id (recovery). */
  lookupCapture?(request: LookupRequest): Promise<CaptureOutcome | NotReceived>;
  /** What the rail answered to the void sent under its reference (recovery). */
  lookupVoid?(request: LookupRequest): Promise<VoidOutcome | NotReceived>;
  /**
   * Reverses the captures of an authorization and releases its rest (cancel_post_capture); absent on rails that
   * cannot (a rail that takes captures but cannot cancel them refuses cancel_post_capture).
   */
  cancelCaptures?(request: CancelCapturesRequest): Promise<CancelCapturesOutcome>;
  /** What the rail answered to the cancel_post_capture sent under its reference (recovery). */
  lookupCancelCaptures?(request: LookupRequest): Promise<CancelCapturesOutcome | NotReceived>;
  /** Raises an open authorization (incremental authorization); absent on rails that cannot. */
  incrementAuthorization?(request: IncrementAuthorizationRequest): Promise<IncrementAuthorizationOutcome>;
  /** What the rail answered to the incremental authorization sent under its reference (recovery). */
  lookupIncrement?(request: LookupRequest): Promise<IncrementAuthorizationOutcome | NotReceived>;
  /** External 3DS: runs the authentication of a payment whose authorization waits for it (card rails). */
  authenticateThreeDs?(request: ThreeDsAuthenticationRequest): Promise<ThreeDsAuthenticationOutcome>;
  /**
   * External 3DS: authorizes a payment once its authentication succeeded; `pending` while it has not (no
   * authentication yet, or a challenge still open).
   */
  completeAuthorization?(request: CompleteAuthorizationRequest): Promise<RailOutcome>;
  /** Wallet session tokens for the wallets of `wallets` the rail offers (the others are left out). */
  walletSessionTokens?(request: WalletSessionRequest): WalletSessionToken[];
  /** Opens a wallet order for the client SDK (post_session_tokens); undefined when the rail has no such wallet. */
  openWalletOrder?(request: WalletOrderRequest): { orderId: string } | undefined;
  /** What the rail answered to the authorization sent under an attempt id (crash and timeout recovery). */
  lookupAuthorization?(request: LookupRequest): Promise<RailOutcome | NotReceived>;
  /** What the rail answered to the refund sent under a refund id. */
  lookupRefund?(request: LookupRequest): Promise<RefundOutcome | NotReceived>;
}

/** Which adapter serves a rail in a mode. Only main.ts (and tests) build one. */
export interface RailRegistry {
  adapterFor(mode: Mode, rail: RailName): RailAdapter | undefined;
}

/** A registry from a plain map. */
export function createRailRegistry(adapters: Partial<Record<Mode, Partial<Record<RailName, RailAdapter>>>>): RailRegistry {
  return { adapterFor: (mode, rail) => adapters[mode]?.[rail] };
}
