/**
 * Sending while a request waits: a refusal for now is retried after a pause that doubles, a
 * refusal for good is not, and no attempt starts past the deadline. Against a mailer standing in
 * for the SMTP adapter; the adapter's own failures are read by `mailFailureOf`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deliver, MailUndelivered } from '../../src/mail/delivery.js';
import { MailNotSent, type MailFailure, type Mailer, type MailMessage } from '../../src/mail/port.js';
import { mailFailureOf } from '../../src/mail/smtp.js';

const MESSAGE: MailMessage = { to: 'ada@example.com', subject: 'Reset', text: 'https://example.com/r?t=x' };
const FOR_NOW: MailFailure = { code: 'EENVELOPE', responseCode: 451, command: 'RCPT TO', permanent: false };
const FOR_GOOD: MailFailure = { code: 'EENVELOPE', responseCode: 550, command: 'RCPT TO', permanent: true };

/** A mailer that fails with these failures in turn, then sends; it notes when each attempt began. */
function mailerFailing(...failures: MailFailure[]): Mailer & { starts: number[] } {
  const starts: number[] = [];
  return {
    starts,
    async send() {
      starts.push(Date.now());
      const failure = failures.shift();
      if (failure) throw new MailNotSent(failure);
    },
  };
}

const policy = { attempts: 3, backoffMs: 30 };

describe('delivering a mail while a request waits', () => {
  it('sends at once when the first attempt goes through', async () => {
    const mailer = mailerFailing();
    await deliver(mailer, MESSAGE, { deadline: Date.now() + 5000, policy });
    assert.equal(mailer.starts.length, 1);
  });

  it('retries a refusal for now, pausing longer each time', async () => {
    const mailer = mailerFailing(FOR_NOW, FOR_NOW);
    const told: number[] = [];
    await deliver(mailer, MESSAGE, { deadline: Date.now() + 5000, policy, onFailure: (_f, n) => told.push(n) });
    const [a = 0, b = 0, c = 0] = mailer.starts;
    assert.equal(mailer.starts.length, 3);
    assert.ok(b - a >= 29 && c - b >= 59, `pauses of ${b - a} and ${c - b} ms`);
    assert.deepEqual(told, [1, 2]);
  });

  it('gives up after the last attempt, saying how many and the last failure', async () => {
    const mailer = mailerFailing(FOR_NOW, FOR_NOW, FOR_NOW);
    await assert.rejects(
      deliver(mailer, MESSAGE, { deadline: Date.now() + 5000, policy }),
      (error) => error instanceof MailUndelivered && error.attempts === 3 && error.last === FOR_NOW,
    );
  });

  it('does not retry a refusal for good', async () => {
    const mailer = mailerFailing(FOR_GOOD);
    await assert.rejects(deliver(mailer, MESSAGE, { deadline: Date.now() + 5000, policy }), MailUndelivered);
    assert.equal(mailer.starts.length, 1);
  });

  it('starts no attempt, and no pause, that would end past the deadline', async () => {
    const mailer = mailerFailing(FOR_NOW, FOR_NOW);
    await assert.rejects(
      deliver(mailer, MESSAGE, { deadline: Date.now() + 20, policy: { attempts: 3, backoffMs: 1000 } }),
      (error) => error instanceof MailUndelivered && error.attempts === 1,
    );
    assert.equal(mailer.starts.length, 1);
    const never = mailerFailing();
    await assert.rejects(deliver(never, MESSAGE, { deadline: Date.now() - 1, policy }), MailUndelivered);
    assert.equal(never.starts.length, 0);
  });

  it('aborts an attempt still running at the deadline', async () => {
    const hanging: Mailer = {
      send: (_message, signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new MailNotSent({ ...FOR_NOW, code: 'EABORT' }))),
        ),
    };
    const started = Date.now();
    // AbortSignal.timeout's timer keeps no process alive; in the service, the server does.
    const alive = setTimeout(() => {}, 5000);
    await assert.rejects(deliver(hanging, MESSAGE, { deadline: started + 50, policy }), MailUndelivered);
    clearTimeout(alive);
    assert.ok(Date.now() - started < 1000);
  });

  it('lets a fault of its own caller through, rather than retry it', async () => {
    const broken: Mailer = {
      send: async () => {
        throw new TypeError('a bug');
      },
    };
    await assert.rejects(deliver(broken, MESSAGE, { deadline: Date.now() + 5000, policy }), TypeError);
  });
});

describe("what nodemailer's errors say about retrying", () => {
  it('counts a 5xx reply (but 503), bad credentials and a bad envelope as for good', () => {
    assert.equal(mailFailureOf({ code: 'EENVELOPE', responseCode: 550, permanent: true }).permanent, true);
    assert.equal(mailFailureOf({ code: 'EAUTH', responseCode: 535, permanent: true }).permanent, true);
    assert.equal(mailFailureOf({ code: 'EAUTH' }).permanent, true);
    assert.equal(mailFailureOf({ code: 'EENVELOPE' }).permanent, true);
  });

  it('counts a lost connection, a timeout and a 4xx reply as for now', () => {
    assert.equal(mailFailureOf({ code: 'ECONNECTION' }).permanent, false);
    assert.equal(mailFailureOf({ code: 'ETIMEDOUT' }).permanent, false);
    assert.equal(mailFailureOf({ code: 'EENVELOPE', responseCode: 451, permanent: false }).permanent, false);
    assert.equal(mailFailureOf({ code: 'EPROTOCOL', responseCode: 503, permanent: false }).permanent, false);
    assert.equal(mailFailureOf(new Error('anything else')).permanent, false);
  });

  it('keeps nothing of the message or the reply, which may quote the address', () => {
    const failure = mailFailureOf(
      Object.assign(new Error('550 <ada@example.com> unknown'), {
        code: 'EENVELOPE',
        response: '550 <ada@example.com> unknown',
        responseCode: 550,
        command: 'RCPT TO',
        permanent: true,
      }),
    );
    assert.deepEqual(failure, { code: 'EENVELOPE', responseCode: 550, command: 'RCPT TO', permanent: true });
    assert.ok(!new MailNotSent(failure).message.includes('ada@'));
  });
});
