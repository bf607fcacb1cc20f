import type { PollStatusResponse } from '../../../../protocol/api/payment-ops';
import { missingClientSecret } from '../auth/auth';
import { findPaymentOfCaller } from './find-payment';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { syncWithRail } from './retrieve-payment';

const POLL_PREFIX = 'poll_';

/**
 * GET /poll/status/{poll_id} (publishable key and the payment's client_secret, like every publishable-key call
 * about a payment: docs/security.md). A poll exists for each payment that waited for the customer; its id is
 * `poll_<payment_id>`. pending while the payment waits (the rail is asked first, as on retrieve), completed once it
 * has left the wait, not_found for an id not of that shape or a payment that never waited; ERR_1005 alike for a
 * payment id that names no payment and for another payment's client_secret.
 */
export async function retrievePollStatus(
  deps: CoreDeps,
  auth: AuthContext,
  pollId: string,
  clientSecret: string | undefined,
): Promise<PollStatusResponse> {
  const notFound: PollStatusResponse = { poll_id: pollId, status: 'not_found' };
  if (clientSecret === undefined) throw missingClientSecret();
  // Not a poll id's shape: no payment could answer it. A payment id that names no payment is ERR_1005, as another
  // payment's client_secret is (findPaymentOfCaller).
  if (!pollId.startsWith(POLL_PREFIX)) return notFound;
  const payment = await findPaymentOfCaller(deps, auth, pollId.slice(POLL_PREFIX.length), clientSecret);
  if (payment.status === 'requires_customer_action') {
    const current = await syncWithRail(deps, payment, auth);
    return { poll_id: pollId, status: current.status === 'requires_customer_action' ? 'pending' : 'completed' };
  }
  const attempt = await deps.store.attempts.findAttemptByPollId(auth, pollId);
  return attempt === undefined ? notFound : { poll_id: pollId, status: 'completed' };
}
