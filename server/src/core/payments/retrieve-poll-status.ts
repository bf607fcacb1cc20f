import type { PollStatusResponse } from '../../../../protocol/api/payment-ops';
import { authorizePaymentAccess, missingClientSecret } from '../auth/auth';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { syncWithRail } from './retrieve-payment';

const POLL_PREFIX = 'poll_';

/**
 * GET /poll/status/{poll_id} (publishable key and the payment's client_secret, like every publishable-key call
 * about a payment: docs/security.md). A poll exists for each payment that waited for the customer; its id is
 * `poll_<payment_id>`. pending while the payment waits (the rail is asked first, as on retrieve), completed once it
 * has left the wait, not_found for an id that names no payment or a payment that never waited.
 */
export async function retrievePollStatus(
  deps: CoreDeps,
  auth: AuthContext,
  pollId: string,
  clientSecret: string | undefined,
): Promise<PollStatusResponse> {
  const notFound: PollStatusResponse = { poll_id: pollId, status: 'not_found' };
  if (clientSecret === undefined) throw missingClientSecret();
  const payment = pollId.startsWith(POLL_PREFIX) ? await deps.store.payments.findPayment(auth, pollId.slice(POLL_PREFIX.length)) : undefined;
  if (payment === undefined) return notFound;
  authorizePaymentAccess(auth, payment, clientSecret, deps.clock.now());
  if (payment.status === 'requires_customer_action') {
    const current = await syncWithRail(deps, payment, auth);
    return { poll_id: pollId, status: current.status === 'requires_customer_action' ? 'pending' : 'completed' };
  }
  const attempt = await deps.store.attempts.findAttemptByPollId(auth, pollId);
  return attempt === undefined ? notFound : { poll_id: pollId, status: 'completed' };
}
