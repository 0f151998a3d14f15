/**
 * The SMTP adapter of the mail port, through nodemailer. SMTP_URL is given to nodemailer as it
 * is (its URL form: smtp://user:pass@host:587, smtps://… for TLS from the start), and is never
 * logged: it holds the password. Its timeouts are short, because a reader's request waits on
 * the attempt, and delivery.ts retries on a new connection instead.
 */
import { createTransport } from 'nodemailer';
import { MailNotSent, type MailFailure, type Mailer, type MailMessage } from './port.js';

export interface SmtpSettings {
  /** SMTP_URL. */
  url: string;
  /** MAIL_FROM: the From of every message. */
  from: string;
}

/** How long each step of an attempt may take: the whole request is bounded by its deadline too. */
export const SMTP_TIMEOUTS = { connectionTimeout: 5000, greetingTimeout: 5000, socketTimeout: 10_000 };

/** Codes of failures no retry mends: the server's credentials or the message itself are wrong. */
const PERMANENT_CODES = new Set(['EAUTH', 'ENOAUTH', 'ECONFIG', 'EENVELOPE', 'EMESSAGE', 'EMAXRECIPIENTS']);

export function smtpMailer(settings: SmtpSettings): Mailer {
  const transport = createTransport({
    url: settings.url,
    ...SMTP_TIMEOUTS,
    // Nothing a message carries may make the service read a file or fetch an address.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return {
    async send(message: MailMessage, signal: AbortSignal): Promise<void> {
      try {
        await transport.sendMail({ from: settings.from, ...message, signal });
      } catch (error) {
        // nodemailer's message may quote the server's reply, which may quote the address.
        throw new MailNotSent(mailFailureOf(error));
      }
    },
  };
}

/**
 * What nodemailer's error says about retrying: a 5xx reply (but 503) is for good, as are bad
 * credentials or a refused envelope; a lost connection, a timeout or a 4xx reply may pass.
 */
export function mailFailureOf(error: unknown): MailFailure {
  const e = (error ?? {}) as { code?: unknown; responseCode?: unknown; command?: unknown; permanent?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const command = typeof e.command === 'string' ? e.command : undefined;
  const permanent =
    e.permanent === true || (responseCode === undefined && code !== undefined && PERMANENT_CODES.has(code));
  return { code, responseCode, command, permanent };
}
