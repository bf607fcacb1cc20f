import { z } from 'zod';
import { lazySchema } from './lazy-schema';

/** Payment statuses (Hyperswitch v1 IntentStatus names; see docs/open-points.md for the ones the spec leaves open). */
export const PAYMENT_STATUSES = [
  'requires_payment_method',
  'requires_confirmation',
  'requires_customer_action',
  'requires_capture',
  'processing',
  // Hyperswitch's IntentStatus for a payment an operator must look at: here, one the rail never settled in time.
  'requires_merchant_action',
  'succeeded',
  'failed',
  'cancelled',
  'cancelled_post_capture',
  'partially_captured',
  'partially_captured_and_capturable',
  // Hyperswitch's IntentStatus for an authorization that lapsed uncaptured (manual capture).
  'expired',
] as const;
export const PaymentStatus = lazySchema(() => z.enum(PAYMENT_STATUSES));
export type PaymentStatus = z.infer<typeof PaymentStatus>;

/** Statuses after which a payment never changes again (the frame stops polling at these). */
export const FINAL_PAYMENT_STATUSES: readonly PaymentStatus[] = [
  'succeeded',
  'failed',
  'cancelled',
  'cancelled_post_capture',
  'partially_captured',
  // A lapsed manual-capture authorization.
  'expired',
];

/**
 * next_action variants (Hyperswitch's `type` names). Every URL here was produced by the server; the runtime
 * navigates only to URLs that arrive in a next_action.
 */
export const NextAction = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('redirect_to_url'), redirect_to_url: z.string() }),
    z.object({
      type: z.literal('qr_code_information'),
      qr_code_url: z.string().nullable(),
      image_data_url: z.string().nullable(),
      display_to_timestamp: z.number().int().nullable(),
    }),
    z.object({
      type: z.literal('wait_screen_information'),
      display_from_timestamp: z.number().int(),
      display_to_timestamp: z.number().int().nullable(),
      poll_interval_ms: z.number().int(),
    }),
    z.object({
      type: z.literal('display_bank_transfer_information'),
      bank_transfer_steps_and_charges_details: z.record(z.string(), z.unknown()),
    }),
    z.object({
      type: z.literal('crypto_payment_information'),
      wallet_address: z.string(),
      network: z.string(),
      pay_currency: z.string(),
      pay_amount: z.string(),
      hosted_page_url: z.string(),
    }),
    // External 3DS (request_external_three_ds_authentication): the client authenticates at the first URL, then
    // completes the authorization at the second (Hyperswitch ThreeDsData).
    z.object({
      type: z.literal('three_ds_invoke'),
      three_ds_data: z.object({
        three_ds_authentication_url: z.string(),
        three_ds_authorize_url: z.string(),
        three_ds_method_details: z.object({ three_ds_method_data_submission: z.boolean() }),
        message_version: z.string(),
        directory_server_id: z.string(),
      }),
    }),
  ]));
export type NextAction = z.infer<typeof NextAction>;
