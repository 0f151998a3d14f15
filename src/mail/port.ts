/**
 * The mail port: one message to one reader, sent in one attempt. What sends it (SMTP, in
 * smtp.ts) is an adapter behind it, so that retries (delivery.ts) and the routes that mail
 * never see a transport, and a test can stand in for one.
 */

export interface MailMessage {
  /** The one address it goes to. */
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative to `text`, when the publisher gave a template for one. */
  html?: string;
}

export interface Mailer {
  /**
   * Sends the message once; rejects with a MailNotSent when the server did not take it, or when
   * `signal` aborted first.
   */
  send(message: MailMessage, signal: AbortSignal): Promise<void>;
}

/** What a failed attempt says about itself, as far as retrying is concerned. */
export interface MailFailure {
  /** The transport's code (ECONNECTION, ETIMEDOUT, EAUTH, EENVELOPE, …), when it gave one. */
  code: string | undefined;
  /** The SMTP reply code, when the server answered. */
  responseCode: number | undefined;
  /** The SMTP command the server answered, when it did. */
  command: string | undefined;
  /** True when the same message would be refused again: retrying only adds delay. */
  permanent: boolean;
}

/** An attempt that did not send its message; its message names no address and no content. */
export class MailNotSent extends Error {
  constructor(readonly failure: MailFailure) {
    super(
      `mail not sent: ${[failure.code, failure.command, failure.responseCode].filter((x) => x !== undefined).join(' ')}`,
    );
    this.name = 'MailNotSent';
  }
}
