/**
 * Deterministic bank transfer / mobile money simulator (test mode; KES, GHS, TZS, UGX). Confirm answers
 * requires_customer_action with display_bank_transfer_information: where to pay, the reference and the amount.
 * The details carry `simulator_url`, the simulator page where a tester plays the customer: "Receive payment"
 * succeeds the payment at once, "Fail payment" fails it. Left alone, the simulated customer pays (or not)
 * BANK_TRANSFER_RESOLVE_AFTER_MS after the confirm, and the next read (GET /payments/{id}) or background sync
 * applies the outcome with its event. Inputs (docs/simulator.md):
 * - bank transfer: `{"bank_transfer": {"local_bank_transfer": {"bank_code"?: string}}}`; bank_code "SIM_FAIL"
 *   fails ("bank_transfer_expired"), anything else succeeds.
 * - mobile money: payment_method `mobile_payment`, type `momo`, `{"mobile_payment": {"momo": {"msisdn": string}}}`;
 *   an msisdn ending in 0002 fails ("mobile_money_rejected"), anything else succeeds.
 */
import type { Currency } from '../../../../protocol/currency';
import type { JsonObject } from '../../../../protocol/api/payments';
import type { AuthorizeRequest, RailAdapter, RailOutcome, SyncRequest } from '../rail-adapter';
import { declined, simulatorPageUrl, type SimulatorOptions } from './card-simulator';
import { transferReferenceOf } from './transfer-reference';

/** When the simulated customer's transfer arrives (or the instructions lapse). */
export const BANK_TRANSFER_RESOLVE_AFTER_MS = 30_000;
/** How long the instructions are valid. */
export const BANK_TRANSFER_VALIDITY_MS = 24 * 60 * 60_000;

const CURRENCIES: readonly Currency[] = ['KES', 'GHS', 'TZS', 'UGX'];

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export class BankTransferSimulator implements RailAdapter {
  readonly rail = 'bank_transfer' as const;
  readonly connector = 'bank_transfer_simulator';

  constructor(private readonly options: SimulatorOptions) {}

  paymentMethodTypes(currency: Currency) {
    return CURRENCIES.includes(currency)
      ? ([
          { paymentMethod: 'bank_transfer', paymentMethodType: 'local_bank_transfer' },
          { paymentMethod: 'mobile_payment', paymentMethodType: 'momo' },
        ] as const)
      : [];
  }

  async authorize(request: AuthorizeRequest): Promise<RailOutcome> {
    const reference = `sim_${this.options.ids.secret(20)}`;
    // What the payer quotes is this transfer's own reference, written for a bank: no other transfer has it (a draw of 8
    // random characters, upper-cased, was shared with another payment's sooner or later, and would credit it).
    const payReference = transferReferenceOf(reference);
    const expiresAt = new Date(request.now.getTime() + BANK_TRANSFER_VALIDITY_MS).toISOString();
    const challenge = this.options.ids.secret(24);
    const simulatorUrl = simulatorPageUrl(this.options.publicBaseUrl, 'bank_transfer', request, challenge);
    let details: JsonObject;
    let fails: boolean;
    if (request.paymentMethod === 'mobile_payment') {
      const msisdn = record(record(request.paymentMethodData.mobile_payment)?.['momo'])?.['msisdn'];
      fails = typeof msisdn === 'string' && msisdn.endsWith('0002');
      details = {
        type: 'mobile_money',
        provider: 'Rail Simulator Mobile Money',
        business_number: '400200',
        account_reference: payReference,
        amount: request.amount,
        currency: request.currency,
        expires_at: expiresAt,
        instructions: 'Approve the payment prompt on your phone, or pay to the business number with the account reference.',
        simulator_url: simulatorUrl,
      };
    } else {
      const bankCode = record(record(request.paymentMethodData.bank_transfer)?.['local_bank_transfer'])?.['bank_code'];
      fails = bankCode === 'SIM_FAIL';
      details = {
        type: 'local_bank_transfer',
        receiver: {
          bank_name: 'Rail Simulator Bank',
          account_holder_name: 'Rail Collections (test)',
          account_number: 'RSB-TEST-ACCOUNT',
          bank_code: 'RSB',
        },
        reference: payReference,
        amount: request.amount,
        currency: request.currency,
        expires_at: expiresAt,
        instructions: 'Transfer the exact amount and quote the reference.',
        simulator_url: simulatorUrl,
      };
    }
    return {
      kind: 'customer_action',
      reference,
      nextAction: { type: 'display_bank_transfer_information', bank_transfer_steps_and_charges_details: details },
      state: {
        challenge,
        expires_at: expiresAt,
        resolve_at: new Date(request.now.getTime() + BANK_TRANSFER_RESOLVE_AFTER_MS).toISOString(),
        outcome: fails ? 'failed' : 'succeeded',
        failure_code: request.paymentMethod === 'mobile_payment' ? 'mobile_money_rejected' : 'bank_transfer_expired',
      },
    };
  }

  async sync(request: SyncRequest): Promise<RailOutcome> {
    const state = request.railState;
    const failed = () => {
      const code = String(state?.['failure_code'] ?? 'bank_transfer_expired');
      return declined(request.railReference, code, code);
    };
    const paid = (): RailOutcome => ({ kind: 'authorized', reference: request.railReference, amountReceived: request.amount });
    const expiresAt = state?.['expires_at'];
    const expired = typeof expiresAt === 'string' && request.now.getTime() >= Date.parse(expiresAt);
    // The simulator page plays the customer; it overrides the scripted outcome while the instructions are valid.
    if (request.customerDecision === 'fail') return failed();
    if (request.customerDecision === 'complete' && !expired) return paid();
    const resolveAt = state?.['resolve_at'];
    if (typeof resolveAt !== 'string' || request.now.getTime() < Date.parse(resolveAt)) return { kind: 'pending', reference: request.railReference };
    return state?.['outcome'] === 'failed' ? failed() : paid();
  }
}
