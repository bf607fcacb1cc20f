import type { PollStatusResponse } from '../../../protocol/api/payment-ops';
import { requireKeyKind, type AuthContext } from './auth';
import type { CoreDeps } from './deps';
import { syncWithRail } from './retrieve-payment';

const POLL_PREFIX = 'poll_';

/**
 * GET /poll/status/{poll_id} (publishable key). A poll exists for each payment that waited for the customer; its
 * id is `poll_<payment_id>`. pending while the payment waits (the rail is asked first, as on retrieve), completed
 * once it has left the wait, not_found for any other id.
 */
export async function retrievePollStatus(deps: CoreDeps, auth: AuthContext, pollId: string): Promise<PollStatusResponse> {
  requireKeyKind(auth, ['publishable']);
  const notFound: PollStatusResponse = { poll_id: pollId, status: 'not_found' };
  if (!pollId.startsWith(POLL_PREFIX)) return notFound;
  const payment = await deps.store.payments.findPayment(auth, pollId.slice(POLL_PREFIX.length));
  if (payment === undefined) return notFound;
  if (payment.status === 'requires_customer_action') {
    const current = await syncWithRail(deps, payment);
    return { poll_id: pollId, status: current.status === 'requires_customer_action' ? 'pending' : 'completed' };
  }
  const attempt = await deps.store.attempts.findAttemptByPollId(auth, pollId);
  return attempt === undefined ? notFound : { poll_id: pollId, status: 'completed' };
}
