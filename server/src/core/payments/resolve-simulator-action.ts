import type { PaymentRecord } from '../../storage/payments/records';
import type { RailName } from '../../kernel/account-settings-types';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { applyRailOutcome } from './payment-outcome';
import { secretsEqual } from '../auth/secrets';

export interface SimulatorActionInput {
  accountId: string;
  paymentId: string;
  /** The per-payment secret from the simulator page URL. */
  challenge: string;
  /** The rail whose page this is (card: 3DS, crypto: hosted page, upi: intent / QR approval, bank_transfer: the payer). */
  rail: RailName;
}

const NOT_APPLICABLE = 'This simulator page does not apply: the payment is unknown, the link is wrong, or the payment no longer waits for it.';

/**
 * The test-mode payment a simulator page acts on. The page URL carries the account, the payment and a random
 * challenge the simulator kept in the payment's rail state; all three must match, and the payment must still wait
 * for the customer on that rail. Test mode only: live payments never reach a simulator.
 */
export async function findSimulatorPayment(deps: CoreDeps, input: SimulatorActionInput): Promise<PaymentRecord> {
  const payment = await deps.store.payments.findPayment({ accountId: input.accountId, mode: 'test' }, input.paymentId);
  const expected = payment?.railState?.['challenge'];
  if (
    payment === undefined ||
    payment.status !== 'requires_customer_action' ||
    payment.rail !== input.rail ||
    typeof expected !== 'string' ||
    !secretsEqual(input.challenge, expected)
  ) {
    throw new ApiError('ERR_4070', NOT_APPLICABLE);
  }
  return payment;
}

/**
 * Applies the customer's answer on a simulator page ("Complete authentication" / "Pay" / "Approve" / "Receive
 * payment": complete; the other button: fail) through the rail's sync and the transition table: the status and its
 * outbox event commit in one transaction. A second submission finds the payment resolved and answers ERR_4070.
 */
export async function resolveSimulatorAction(
  deps: CoreDeps,
  input: SimulatorActionInput & { decision: 'complete' | 'fail' },
): Promise<PaymentRecord> {
  const payment = await findSimulatorPayment(deps, input);
  const adapter = deps.rails.adapterFor('test', input.rail);
  if (adapter === undefined || payment.railReference === null) throw new ApiError('ERR_4070', NOT_APPLICABLE);
  const outcome = await adapter.sync({
    mode: 'test',
    paymentId: payment.paymentId,
    amount: payment.amount,
    railReference: payment.railReference,
    railState: payment.railState,
    customerDecision: input.decision,
    now: deps.clock.now(),
  });
  const resolved = await applyRailOutcome(deps, payment, outcome, 'rail_sync');
  if (resolved.status === 'requires_customer_action') throw new ApiError('ERR_4070', NOT_APPLICABLE);
  return resolved;
}
