/**
 * REST shapes of the card vault: POST /vault/tokens, called only by the hosted frame (js_url origin) with a
 * publishable key and the payment's client_secret. The request is the only body in the whole API that carries
 * card data; the answer carries an opaque single-use psp_token and a display summary (never the number).
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { passesLuhn } from '../luhn';

export const VAULT_LIMITS = {
  cardNumberMin: 12,
  cardNumberMax: 19,
  holderNameMax: 100,
  /** Longest a psp_token lives (never beyond the client_secret's expiry). */
  tokenTtlSeconds: 15 * 60,
  /** Expiry years accepted ahead of the current year. */
  maxYearsAhead: 20,
} as const;

/** `tok_` + 20 base62 characters. */
export const PSP_TOKEN_PATTERN = /^tok_[A-Za-z0-9]{20}$/;


/**
 * POST /vault/tokens body. Messages name the rule, never the value (zod issues carry no input either).
 * card_exp_year takes "YYYY" or "YY" (20YY); the server checks the expiry against its own clock.
 */
export const CreateVaultTokenRequest = lazySchema(() =>
  z
    .strictObject({
      client_secret: z.string().min(1).max(256),
      card_number: z
        .string()
        .regex(/^\d{12,19}$/, 'card_number must be 12 to 19 digits')
        .refine(passesLuhn, 'card_number is not a valid card number'),
      card_exp_month: z.string().regex(/^(0[1-9]|1[0-2])$/, 'card_exp_month must be "01" to "12"'),
      card_exp_year: z.string().regex(/^(\d{2}|\d{4})$/, 'card_exp_year must be "YYYY" or "YY"'),
      card_cvc: z.string().regex(/^\d{3,4}$/, 'card_cvc must be 3 or 4 digits'),
      card_holder_name: z.string().trim().min(1).max(VAULT_LIMITS.holderNameMax).optional(),
    })
    .meta({ id: 'CreateVaultTokenRequest' }));
export type CreateVaultTokenRequest = z.infer<typeof CreateVaultTokenRequest>;

/** What may be shown about a card: PCI DSS 3.4.1 allows at most BIN + last 4; Rail shows the last 4 only. */
export const CardSummary = lazySchema(() =>
  z
    .object({
      last4: z.string(),
      card_network: z.string().nullable(),
      exp_month: z.string(),
      exp_year: z.string(),
    })
    .meta({ id: 'CardSummary' }));
export type CardSummary = z.infer<typeof CardSummary>;

export const CreateVaultTokenResponse = lazySchema(() =>
  z
    .object({
      psp_token: z.string(),
      expires_at: z.string(),
      card: CardSummary.unwrap().extend({ card_holder_name: z.string().nullable() }),
    })
    .meta({ id: 'VaultToken' }));
export type CreateVaultTokenResponse = z.infer<typeof CreateVaultTokenResponse>;
