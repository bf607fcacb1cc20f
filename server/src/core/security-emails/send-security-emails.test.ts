/**
 * The security e-mail outbox against a real SMTP server (smtp-server from npm, on a random local port): what a key
 * change queues is delivered once, stays pending with a growing delay while SMTP is down, and is delivered when it
 * comes back; two senders at once never send one e-mail twice. Both engines.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SmtpMailer } from '../../mail/smtp-mailer';
import { apiRequest, expectOk } from '../../test-support/api-assertions';
import { forEachEngine } from '../../test-support/engines';
import { createHarness, type Harness } from '../../test-support/harness';
import { totpCode, totpStep } from '../auth/totp';
import { sendDueSecurityEmails } from './send-security-emails';

interface Received {
  from: string;
  to: string[];
  data: string;
}

async function startSmtp(port = 0): Promise<{ server: SMTPServer; port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          data: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, port: (server.server.address() as AddressInfo).port, received };
}

/** The Subject header, unfolded and with its RFC 2047 Q-encoded words decoded. */
function subjectOf(message: string): string {
  const folded = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(message)?.[1] ?? '';
  return folded
    .replace(/\r?\n[ \t]/g, ' ')
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?Q\?(.*?)\?=/gi, (_, word: string) => word.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (__, hex: string) => String.fromCharCode(parseInt(hex, 16))));
}

const stopSmtp = (server: SMTPServer) => new Promise<void>((resolve) => server.close(() => resolve()));

forEachEngine('security e-mails over SMTP', (engine) => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await createHarness(engine);
    const { email, password, totpSecret } = h.boot.createdOperator!;
    token = (await expectOk<{ session_token: string }>(await apiRequest(h, 'POST', '/v1/sessions', { key: null, body: { email, password } }))).session_token;
    await expectOk(await apiRequest(h, 'POST', '/v1/sessions/verify', { key: null, headers: { authorization: `Bearer ${token}` }, body: { code: totpCode(totpSecret, totpStep(h.clock.now())) } }));
  });
  afterAll(async () => h?.close());

  const createKey = async (name: string) =>
    expectOk<{ key_id: string }>(await apiRequest(h, 'POST', '/v1/api-keys', { key: null, headers: { authorization: `Bearer ${token}` }, body: { name } }));
  const pending = async () => h.db.selectFrom('security_emails').selectAll().where('sent_at', 'is', null).execute();

  test('delivered once to the operator; listed as sent', async () => {
    const smtp = await startSmtp();
    const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${smtp.port}`, from: 'Rail security <security@rail.local>' });
    try {
      await createKey('mailed once');
      expect(await sendDueSecurityEmails(h.core, mailer)).toBe(1);
      expect(smtp.received).toHaveLength(1);
      expect(smtp.received[0]).toMatchObject({ from: 'security@rail.local', to: [h.boot.createdOperator!.email] });
      expect(subjectOf(smtp.received[0]!.data)).toBe('[Rail] New test API key "mailed once"');
      expect(await sendDueSecurityEmails(h.core, mailer)).toBe(0);
      expect(smtp.received).toHaveLength(1);
      const { data } = await expectOk<{ data: { subject: string; status: string; attempts: number }[] }>(
        await apiRequest(h, 'GET', '/v1/security-emails', { key: null, headers: { authorization: `Bearer ${token}` } }),
      );
      expect(data.find((email) => email.subject.includes('"mailed once"'))).toMatchObject({ status: 'sent', attempts: 1 });
    } finally {
      mailer.close();
      await stopSmtp(smtp.server);
    }
  });

  test('SMTP down: kept pending with a delay and the error; delivered when it is back', async () => {
    const down = await startSmtp();
    const port = down.port;
    await stopSmtp(down.server);
    const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: 'security@rail.local', timeoutMs: 2000 });
    try {
      await createKey('while down');
      expect(await sendDueSecurityEmails(h.core, mailer)).toBe(0);
      const [failed] = await pending();
      expect(failed).toMatchObject({ attempts: 1 });
      expect(failed!.last_error).toMatch(/ECONNREFUSED/);
      expect(new Date(failed!.next_attempt_at).getTime()).toBe(h.clock.now().getTime() + 30_000);
      // Not due yet: nothing is tried.
      const up = await startSmtp(port);
      try {
        expect(await sendDueSecurityEmails(h.core, mailer)).toBe(0);
        h.clock.advance(30_000);
        expect(await sendDueSecurityEmails(h.core, mailer)).toBe(1);
        expect(up.received.map((mail) => subjectOf(mail.data))).toEqual(['[Rail] New test API key "while down"']);
        expect(await pending()).toHaveLength(0);
      } finally {
        await stopSmtp(up.server);
      }
    } finally {
      mailer.close();
    }
  });

  test('two senders at once send each e-mail once', async () => {
    const smtp = await startSmtp();
    const mailers = [0, 1].map(() => new SmtpMailer({ url: `smtp://127.0.0.1:${smtp.port}`, from: 'security@rail.local' }));
    try {
      for (let i = 0; i < 5; i++) await createKey(`burst ${i}`);
      const sent = await Promise.all(mailers.map((mailer) => sendDueSecurityEmails(h.core, mailer)));
      expect(sent[0]! + sent[1]!).toBe(5);
      expect(smtp.received).toHaveLength(5);
      expect(await pending()).toHaveLength(0);
    } finally {
      for (const mailer of mailers) mailer.close();
      await stopSmtp(smtp.server);
    }
  });
});
