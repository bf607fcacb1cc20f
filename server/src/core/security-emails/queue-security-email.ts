import type { Clock } from '../../kernel/clock';
import type { IdGenerator } from '../../kernel/ids';
import type { AccountRecord } from '../../storage/accounts/records';
import type { Stores } from '../../storage/stores';

/**
 * Writes a security e-mail to every operator of the account, in the caller's transaction: the change and the
 * e-mail that reports it commit together. The sender (send-security-emails.ts) delivers it later, with retries.
 */
export async function queueSecurityEmail(
  tx: Stores,
  deps: { clock: Clock; ids: IdGenerator },
  account: AccountRecord,
  message: { subject: string; body: string },
): Promise<void> {
  const now = deps.clock.now();
  for (const operator of await tx.operators.listOperators(account.accountId)) {
    await tx.securityEmails.insertSecurityEmail({
      emailId: deps.ids.id('securityEmail'),
      accountId: account.accountId,
      to: operator.email,
      subject: `[Rail] ${message.subject}`,
      body: `${message.body}\n\nAccount: ${account.name} (${account.accountId})\nTime: ${now.toISOString()}\n\nIf you did not expect this, revoke the key at once (DELETE /v1/api-keys/{id}) and rotate the others.\n`,
      createdAt: now,
      nextAttemptAt: now,
      attempts: 0,
      sentAt: null,
      lastError: null,
    });
  }
}
