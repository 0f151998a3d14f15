/**
 * A mail server for the tests, in this process on a loopback port (smtp-server): what the
 * service sends arrives here, where a test reads it, so that no test reaches past the machine. It
 * can refuse the next attempts (at RCPT TO, or after the whole message at the end of DATA), to
 * show what the service does when mail fails.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { eventually } from './eventually.js';

export interface ReceivedMail {
  /** The envelope: who the server was asked to deliver to. */
  from: string;
  to: string[];
  /** The message as it came, headers and all. */
  raw: string;
  /** Each MIME part's decoded text, by its content type (text/plain, text/html). */
  parts: Map<string, string>;
  /** A header of the message (the first of the name), unfolded. */
  header(name: string): string | undefined;
}

export interface Refusal {
  /** The SMTP reply code: 4xx for "try later", 5xx for "never". */
  code: number;
  /** Where: on the recipient, or after the whole message was sent. */
  at: 'rcpt' | 'data';
}

export interface TestSmtpServer {
  /** The URL the service is given (SMTP_URL), with a user and password the server takes. */
  url: string;
  /** What the server took. */
  received: ReceivedMail[];
  /** What it was sent and refused at the end of DATA. */
  refused: ReceivedMail[];
  /** Every attempt to send, taken or not (each MAIL FROM). */
  attempts: number;
  /** Refuses the next `count` attempts so. */
  refuseNext(count: number, refusal: Refusal): void;
  /** The next mail taken (after those already read). */
  nextMail(): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export const SMTP_USER = 'circulation';
export const SMTP_PASSWORD = `smtp-password-${Math.random().toString(36).slice(2)}`;

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const refused: ReceivedMail[] = [];
  let read = 0;
  let refusals: Refusal[] = [];
  let attempts = 0;
  const refusal = (at: Refusal['at']): Error | null => {
    if (refusals[0]?.at !== at) return null;
    const { code } = refusals.shift() as Refusal;
    return Object.assign(new Error(code >= 500 ? 'Refused for good' : 'Try again later'), { responseCode: code });
  };
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) return callback(null, { user: SMTP_USER });
      callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onMailFrom(_address, _session, callback) {
      attempts += 1;
      callback();
    },
    onRcptTo(_address, _session, callback) {
      callback(refusal('rcpt'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const envelope = session.envelope;
        const mail = parseMail(
          envelope.mailFrom === false ? '' : envelope.mailFrom.address,
          envelope.rcptTo.map((r) => r.address),
          Buffer.concat(chunks).toString('utf8'),
        );
        const error = refusal('data');
        (error ? refused : received).push(mail);
        callback(error);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`,
    received,
    refused,
    get attempts() {
      return attempts;
    },
    refuseNext(count, how) {
      refusals = Array.from({ length: count }, () => how);
    },
    async nextMail() {
      await eventually(() => received.length > read, 'a mail to arrive');
      return received[read++] as ReceivedMail;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The headers and decoded text parts of a message: enough MIME for what the service sends. */
function parseMail(from: string, to: string[], raw: string): ReceivedMail {
  const [head = '', body = ''] = splitOnce(raw, /\r?\n\r?\n/);
  const headers = headersOf(head);
  const parts = new Map<string, string>();
  collectParts(headers, body, parts);
  return { from, to, raw, parts, header: (name) => headers.get(name.toLowerCase()) };
}

function splitOnce(text: string, separator: RegExp): [string, string] {
  const match = separator.exec(text);
  return match ? [text.slice(0, match.index), text.slice(match.index + match[0].length)] : [text, ''];
}

function headersOf(head: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    if (colon > 0 && !headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return headers;
}

function collectParts(headers: Map<string, string>, body: string, parts: Map<string, string>): void {
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.toLowerCase().startsWith('multipart/') && boundary) {
    for (const section of body.split(`--${boundary}`).slice(1)) {
      if (section.startsWith('--')) break;
      const [head = '', content = ''] = splitOnce(section.replace(/^\r?\n/, ''), /\r?\n\r?\n/);
      collectParts(headersOf(head), content, parts);
    }
    return;
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const bytes =
    encoding === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64')
      : encoding === 'quoted-printable'
        ? quotedPrintable(body)
        : Buffer.from(body, 'utf8');
  parts.set(type.split(';')[0]!.trim().toLowerCase(), bytes.toString('utf8').replace(/\r\n/g, '\n'));
}

function quotedPrintable(text: string): Buffer {
  const soft = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i += 1) {
    const hex = soft.slice(i + 1, i + 3);
    if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(soft[i] as string, 'utf8'));
  }
  return Buffer.from(bytes);
}

/** The decoded subject of a mail: encoded words (=?UTF-8?Q?…?=) made text again. */
export function subjectOf(mail: ReceivedMail): string {
  return (mail.header('subject') ?? '').replace(
    /=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi,
    (_whole, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : quotedPrintable(text.replace(/_/g, ' ')).toString('utf8'),
  );
}
