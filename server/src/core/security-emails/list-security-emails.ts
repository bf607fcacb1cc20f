import type { SecurityEmail } from '../../../../protocol/api/keys';
import type { CoreDeps } from '../shared/deps';
import type { OperatorContext } from '../sessions/operator-context';

const LIST_LIMIT = 100;

/** GET /v1/security-emails (operator session): the account's last 100 security e-mails, sent or still pending. */
export async function listSecurityEmails(deps: CoreDeps, context: OperatorContext): Promise<SecurityEmail[]> {
  const emails = await deps.store.securityEmails.listSecurityEmails(context.account.accountId, LIST_LIMIT);
  return emails.map((email) => ({
    id: email.emailId,
    to: email.to,
    subject: email.subject,
    body: email.body,
    created: email.createdAt.toISOString(),
    status: email.sentAt === null ? 'pending' : 'sent',
    sent_at: email.sentAt?.toISOString() ?? null,
    attempts: email.attempts,
  }));
}
