/**
 * Security e-mails over SMTP (RAIL_SMTP_URL, e.g. smtp://user:pass@mail.example.com:587 or smtps://...:465), with
 * nodemailer. One pooled transport per process; a refusal or an unreachable server rejects, and the outbox retries.
 */
import { createRequire } from 'node:module';
import type Nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';

export interface SmtpMailerOptions {
  url: string;
  from: string;
  /** Per-connection time limit, so a hung server cannot hold the sender. */
  timeoutMs?: number;
}

export class SmtpMailer {
  readonly #transport: Transporter;
  readonly #from: string;

  constructor(options: SmtpMailerOptions) {
    const timeout = options.timeoutMs ?? 10_000;
    const url = new URL(options.url);
    // Loaded here, not at import: a server without RAIL_SMTP_URL never loads nodemailer (it costs start-up time).
    const nodemailer = createRequire(import.meta.url)('nodemailer') as typeof Nodemailer;
    this.#transport = nodemailer.createTransport({
      host: url.hostname,
      port: url.port === '' ? (url.protocol === 'smtps:' ? 465 : 587) : Number(url.port),
      secure: url.protocol === 'smtps:',
      ...(url.username !== '' ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
    this.#from = options.from;
  }

  async send(message: { to: string; subject: string; text: string }): Promise<void> {
    await this.#transport.sendMail({ from: this.#from, to: message.to, subject: message.subject, text: message.text });
  }

  close(): void {
    this.#transport.close();
  }
}
