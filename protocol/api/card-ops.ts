/**
 * REST shapes of the card payment operations (spec "Card payment operations [card rails]"): card issuer list,
 * wallet session tokens, external 3DS authentication, complete authorize, post session tokens and the 3DS decision
 * rules. Request objects are strict; inner shapes the spec does not show follow Hyperswitch v1 and are rows of
 * docs/open-points.md.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { NextAction, PaymentStatus } from '../payments';
import { CARD_NETWORKS } from './enums';
import { Country, Currency, JsonObject, MinorAmount, PaymentMethod, PaymentMethodType, ThreeDsMethodCompInd } from './payments';

const ClientSecret = lazySchema(() => z.string().min(1).max(256));

/** GET /card_issuers: page size when `limit` is absent, and its maximum (a documented policy value). */
export const CARD_ISSUER_LIMITS = { defaultLimit: 10, maxLimit: 100 } as const;

/** GET /card_issuers query: `query` matches issuer names case-insensitively; `limit` 0..100 (0 answers none). */
export const CardIssuerListQuery = z.strictObject({
  get query() { return z.string().max(255).optional(); },
  get limit() {
    return z
      .string()
      .regex(/^\d{1,4}$/, `limit must be an integer from 0 to ${CARD_ISSUER_LIMITS.maxLimit}`)
      .transform(Number)
      .pipe(z.int().min(0).max(CARD_ISSUER_LIMITS.maxLimit))
      .optional();
  },
});
export type CardIssuerListQuery = z.infer<typeof CardIssuerListQuery>;

export const CardIssuer = lazySchema(() =>
  z.object({ id: z.string(), issuer_name: z.string() }).meta({ id: 'CardIssuer' }));
export const CardIssuerListResponse = lazySchema(() =>
  z.object({ issuers: z.array(CardIssuer.unwrap()) }).meta({ id: 'CardIssuerListResponse' }));
export type CardIssuerListResponse = z.infer<typeof CardIssuerListResponse>;

/** POST /payments/session_tokens body. */
export const SessionTokenRequest = lazySchema(() =>
  z
    .strictObject({
      payment_id: z.string().min(1).max(64),
      client_secret: ClientSecret.unwrap(),
      wallets: z.array(PaymentMethodType.unwrap()).max(20),
      merchant_connector_details: JsonObject.unwrap().optional(),
    })
    .meta({ id: 'SessionTokenRequest' }));
export type SessionTokenRequest = z.infer<typeof SessionTokenRequest>;

/** One wallet's session token (Hyperswitch SessionToken, tagged by wallet_name); its fields depend on the wallet. */
export const WalletSessionToken = lazySchema(() =>
  z.looseObject({ wallet_name: z.string(), connector: z.string() }).meta({ id: 'WalletSessionToken' }));
export type WalletSessionToken = z.infer<typeof WalletSessionToken>;

export const SessionTokenResponse = lazySchema(() =>
  z
    .object({ payment_id: z.string(), client_secret: z.string(), session_token: z.array(WalletSessionToken.unwrap()) })
    .meta({ id: 'SessionTokenResponse' }));
export type SessionTokenResponse = z.infer<typeof SessionTokenResponse>;

/** POST /payments/{payment_id}/3ds/authentication body. */
export const ExternalThreeDsAuthenticationRequest = lazySchema(() =>
  z
    .strictObject({
      client_secret: ClientSecret.unwrap(),
      sdk_information: JsonObject.unwrap().optional(),
      device_channel: z.enum(['APP', 'BRW']),
      threeds_method_comp_ind: ThreeDsMethodCompInd.unwrap(),
    })
    .meta({ id: 'ExternalThreeDsAuthenticationRequest' }));
export type ExternalThreeDsAuthenticationRequest = z.infer<typeof ExternalThreeDsAuthenticationRequest>;

/** EMV 3DS transStatus: Y authenticated (frictionless), C challenge required, N not authenticated. */
export const TransStatus = lazySchema(() => z.enum(['Y', 'C', 'N']));
export type TransStatus = z.infer<typeof TransStatus>;

export const ExternalThreeDsAuthenticationResponse = lazySchema(() =>
  z
    .object({
      trans_status: TransStatus.unwrap(),
      acs_url: z.string().nullable(),
      challenge_request: z.string().nullable(),
      challenge_request_key: z.string().nullable(),
      acs_reference_number: z.string().nullable(),
      acs_trans_id: z.string().nullable(),
      three_dsserver_trans_id: z.string().nullable(),
      acs_signed_content: z.string().nullable(),
      three_ds_requestor_url: z.string().nullable(),
      three_ds_requestor_app_url: z.string().nullable(),
      error_message: z.string().nullable(),
    })
    .meta({ id: 'ExternalThreeDsAuthenticationResponse' }));
export type ExternalThreeDsAuthenticationResponse = z.infer<typeof ExternalThreeDsAuthenticationResponse>;

/** POST /payments/{payment_id}/complete_authorize body. */
export const CompleteAuthorizeRequest = lazySchema(() =>
  z
    .strictObject({
      client_secret: ClientSecret.unwrap(),
      shipping: JsonObject.unwrap().optional(),
      threeds_method_comp_ind: ThreeDsMethodCompInd.unwrap().optional(),
    })
    .meta({ id: 'CompleteAuthorizeRequest' }));
export type CompleteAuthorizeRequest = z.infer<typeof CompleteAuthorizeRequest>;

/** POST /payments/{payment_id}/post_session_tokens body. */
export const PostSessionTokensRequest = lazySchema(() =>
  z
    .strictObject({
      client_secret: ClientSecret.unwrap(),
      payment_method_type: PaymentMethodType.unwrap(),
      payment_method: PaymentMethod.unwrap(),
    })
    .meta({ id: 'PostSessionTokensRequest' }));
export type PostSessionTokensRequest = z.infer<typeof PostSessionTokensRequest>;

/** The wallet order the client SDK opens (Hyperswitch next_action `invoke_sdk_client` with the connector's order id). */
export const InvokeSdkClient = lazySchema(() =>
  z.object({
    type: z.literal('invoke_sdk_client'),
    next_action_data: z.object({ wallet_name: z.string(), order_id: z.string(), next_action: z.literal('confirm') }),
  }));

export const PostSessionTokensResponse = lazySchema(() =>
  z
    .object({ payment_id: z.string(), next_action: z.union([InvokeSdkClient.unwrap(), NextAction.unwrap()]).nullable(), status: PaymentStatus.unwrap() })
    .meta({ id: 'PostSessionTokensResponse' }));
export type PostSessionTokensResponse = z.infer<typeof PostSessionTokensResponse>;

/** Hyperswitch ThreeDSDecision values. */
export const THREE_DS_DECISIONS = [
  'no_three_ds',
  'challenge_requested',
  'challenge_preferred',
  'three_ds_exemption_requested_tra',
  'three_ds_exemption_requested_low_value',
  'issuer_three_ds_exemption_requested',
] as const;
export const ThreeDsDecision = lazySchema(() => z.enum(THREE_DS_DECISIONS));
export type ThreeDsDecision = z.infer<typeof ThreeDsDecision>;

/** POST /three_ds_decision/execute body (Hyperswitch ThreeDsDecisionRuleExecuteRequest's inner fields). */
export const ThreeDsDecisionExecuteRequest = lazySchema(() =>
  z
    .strictObject({
      routing_id: z.string().min(1).max(64),
      payment: z.strictObject({ amount: MinorAmount.unwrap(), currency: Currency.unwrap() }),
      payment_method: z.strictObject({ card_network: z.enum(CARD_NETWORKS).optional() }).optional(),
      customer_device: z
        .strictObject({
          platform: z.enum(['web', 'android', 'ios']).optional(),
          device_type: z.enum(['mobile', 'tablet', 'desktop', 'gaming_console']).optional(),
          display_size: z.string().max(32).optional(),
        })
        .optional(),
      issuer: z.strictObject({ name: z.string().max(255).optional(), country: Country.unwrap().optional() }).optional(),
      acquirer: z.strictObject({ country: Country.unwrap().optional(), fraud_rate: z.number().min(0).max(100).optional() }).optional(),
    })
    .meta({ id: 'ThreeDsDecisionExecuteRequest' }));
export type ThreeDsDecisionExecuteRequest = z.infer<typeof ThreeDsDecisionExecuteRequest>;

export const ThreeDsDecisionExecuteResponse = lazySchema(() =>
  z.object({ decision: ThreeDsDecision.unwrap() }).meta({ id: 'ThreeDsDecisionExecuteResponse' }));
export type ThreeDsDecisionExecuteResponse = z.infer<typeof ThreeDsDecisionExecuteResponse>;
