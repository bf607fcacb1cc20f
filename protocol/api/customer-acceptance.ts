/**
 * The customer's acceptance of a mandate, with Hyperswitch v1 names (CustomerAcceptance, OnlineMandate). One schema for
 * every request that carries it: payment create, update and confirm (customer_acceptance, and mandate_data's in
 * protocol/api/payments.ts) and a subscription's payment_details. Request objects are
 * strict (api-conventions §4). What the spec leaves open is in docs/open-points.md ("Customer acceptance").
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';

export const CUSTOMER_ACCEPTANCE_LIMITS = { userAgentMax: 1024 } as const;

/** Where an online acceptance was given (Hyperswitch OnlineMandate: user_agent required, ip_address optional). */
export const OnlineAcceptance = lazySchema(() =>
  z
    .strictObject({
      ip_address: z.union([z.ipv4(), z.ipv6()], { error: 'ip_address must be an IPv4 or IPv6 address' }).optional(),
      user_agent: z.string().min(1).max(CUSTOMER_ACCEPTANCE_LIMITS.userAgentMax),
    })
    .meta({ id: 'OnlineAcceptance' }));

const AcceptedAt = lazySchema(() => z.iso.datetime({ offset: true }));

/**
 * acceptance_type online or offline; accepted_at a date-time when sent; an online acceptance carries its online
 * block, as Hyperswitch's mandate validation requires (an offline one may carry one too).
 */
export const CustomerAcceptance = lazySchema(() =>
  z
    .discriminatedUnion('acceptance_type', [
      z.strictObject({ acceptance_type: z.literal('online'), accepted_at: AcceptedAt.unwrap().optional(), online: OnlineAcceptance.unwrap() }),
      z.strictObject({ acceptance_type: z.literal('offline'), accepted_at: AcceptedAt.unwrap().optional(), online: OnlineAcceptance.unwrap().optional() }),
    ])
    .meta({ id: 'CustomerAcceptance' }));
export type CustomerAcceptance = z.infer<typeof CustomerAcceptance>;
