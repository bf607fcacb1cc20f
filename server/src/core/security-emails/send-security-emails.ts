import type { CoreDeps } from '../shared/deps';
import type { Mailer } from './mailer';

/** How long an instance holds an e-mail it is sending, so another instance does not send it too. */
const CLAIM_MS = 2 * 60_000;
const BACKOFF_BASE_MS = 30_000;
const BACKOFF_MAX_MS = 60 * 60_000;

/**
 * Sends the security e-mails that are due, oldest first. Each is claimed before it is sent (its next attempt moved
 * past the send), so two instances never both send one; a refusal or an unreachable server leaves it pending with a
 * growing delay (30 s doubling to 1 h), never dropped. Returns how many were sent.
 */
export async function sendDueSecurityEmails(deps: CoreDeps, mailer: Mailer, batch = 20): Promise<number> {
  const now = deps.clock.now();
  let sent = 0;
  for (const email of await deps.store.securityEmails.listDueSecurityEmails(now, batch)) {
    const claimed = await deps.store.securityEmails.claimSecurityEmail(email.emailId, email.nextAttemptAt, new Date(now.getTime() + CLAIM_MS));
    if (!claimed) continue;
    try {
      await mailer.send({ to: email.to, subject: email.subject, text: email.body });
      await deps.store.securityEmails.markSecurityEmailSent(email.emailId, deps.clock.now());
      sent += 1;
    } catch (error) {
      const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** email.attempts);
      const message = error instanceof Error ? error.message : String(error);
      await deps.store.securityEmails.markSecurityEmailFailed(email.emailId, message, new Date(deps.clock.now().getTime() + delay));
    }
  }
  return sent;
}
