/** Where security e-mails go out (mail/smtp-mailer.ts over SMTP); the sender only needs this. */
export interface Mailer {
  send(message: { to: string; subject: string; text: string }): Promise<void>;
}
