/**
 * Mailing a reader their password reset link (`delivery: "email"`): the link to the reset page
 * (PASSWORD_RESET_URL) arrives at the reader's address from MAIL_FROM and resets the password,
 * while the answer, the database and the log never hold the token. A mail server that will not
 * take the message is retried, then answered with 503 MAIL_UNAVAILABLE, the token voided; a
 * service without mail says so. While the service mails resets, only an admin is shown a token. Each against a mail server in this process, on loopback.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { smtpMailer } from '../../../src/mail/smtp.js';
import { loadMailTemplates } from '../../../src/mail/templates.js';
import { DEFAULT_READER_SETTINGS } from '../../../src/use-cases/readers/settings.js';
import { issueKey, onlyError } from '../../support/fixtures.js';
import { createReader, resetDocument, signIn } from '../../support/readers.js';
import { startService, type Service } from '../../support/service.js';
import { SMTP_PASSWORD, startSmtpServer, subjectOf, type TestSmtpServer } from '../../support/smtp.js';
import { createStaff, signInSession } from '../../support/staff.js';
import { forEachStore } from '../../support/stores.js';

const RESET_PAGE = 'https://www.example.com/account/reset?token={token}';
const MAIL_FROM = 'The Daily Example <no-reply@example.com>';
const NEW_PASSWORD = 'a password chosen from the mail';
const LINK = /https:\/\/www\.example\.com\/account\/reset\?token=([^\s"<]+)/;
const RETRY = { attempts: 3, backoffMs: 20 };

const mailDocument = (delivery: unknown = 'email') => ({
  data: { type: 'password-reset-tokens', attributes: { delivery } },
});

/** A log destination the test reads whole. */
function memoryLog() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { text: () => lines.join(''), logger: { level: 'debug', stream } };
}

/** The token in the link a mail carries. */
function tokenIn(text: string | undefined): string {
  const match = LINK.exec(text ?? '');
  assert.ok(match, `no reset link in ${text}`);
  return decodeURIComponent(match[1] as string);
}

forEachStore((kind) => {
  describe('a password reset mailed to the reader', () => {
    let smtp: TestSmtpServer;
    let service: Service;
    let log: ReturnType<typeof memoryLog>;
    before(async () => {
      smtp = await startSmtpServer();
      log = memoryLog();
      service = await startService(kind, {
        readers: { ...DEFAULT_READER_SETTINGS, resetPage: RESET_PAGE },
        mail: { mailer: smtpMailer({ url: smtp.url, from: MAIL_FROM }), retry: RETRY },
        logger: log.logger,
      });
    });
    after(async () => {
      await service?.close();
      await smtp?.close();
    });

    const mailReset = (userId: string) => service.client.post(`/users/${userId}/password-reset-tokens`, mailDocument());

    it('mails the link from MAIL_FROM to the reader; the token in it resets the password', async () => {
      const reader = await createReader(service.client);
      const response = await mailReset(reader.id);
      assert.equal(response.status, 201, response.text);
      assert.deepEqual(response.body.meta, { mailed: true });
      assert.equal(response.body.data.type, 'password-reset-tokens');
      assert.deepEqual(response.body.data.relationships.user.data, { type: 'users', id: reader.id });

      const mail = await smtp.nextMail();
      assert.deepEqual(mail.to, [reader.email]);
      assert.equal(mail.from, 'no-reply@example.com');
      assert.equal(mail.header('from'), MAIL_FROM);
      assert.equal(mail.header('to'), reader.email);
      assert.equal(subjectOf(mail), 'Reset your password');
      const text = mail.parts.get('text/plain');
      assert.match(text ?? '', /within 60 minutes/);
      assert.equal(mail.parts.has('text/html'), false, 'an HTML part without a template of the publisher');
      const token = tokenIn(text);
      assert.match(token, new RegExp(`^prt_${reader.id}_[A-Za-z0-9_-]{43}$`));
      assert.ok(!response.text.includes(token.slice(-43)), 'the answer holds the token');

      const reset = await service.client.post('/password-resets', resetDocument(token, NEW_PASSWORD));
      assert.equal(reset.status, 204, reset.text);
      assert.equal((await signIn(service.client, reader.email, NEW_PASSWORD)).status, 201);
    });

    it('keeps the token nowhere but in the mail: not in the database, not in the log', async () => {
      const reader = await createReader(service.client);
      assert.equal((await mailReset(reader.id)).status, 201);
      const token = tokenIn((await smtp.nextMail()).parts.get('text/plain'));
      const secret = token.slice(-43);
      assert.ok(!(await service.rawDump()).includes(secret), 'the token is in the database');
      assert.ok(!log.text().includes(secret), 'the token is in the log');
      assert.ok(!log.text().includes(SMTP_PASSWORD), "the mail server's password is in the log");
    });

    it('records the issue as mailed (delivery), never the token', async () => {
      const reader = await createReader(service.client);
      const response = await mailReset(reader.id);
      await smtp.nextMail();
      const trail = await service.client.get(
        `/audit-events?filter[resourceType]=password-reset-tokens&filter[resourceId]=${response.body.data.id}`,
      );
      assert.deepEqual(
        trail.body.data.map((e: any) => [e.attributes.action, e.attributes.attributes]),
        [['create', ['delivery']]],
      );
    });

    it('answers 404 for a user that does not exist, mailing nothing', async () => {
      const before = smtp.attempts;
      onlyError(await mailReset('987654321'), 404);
      assert.equal(smtp.attempts, before);
    });

    it('retries a mail server that refuses for now: 201 once it takes the message', async () => {
      const reader = await createReader(service.client);
      const before = smtp.attempts;
      smtp.refuseNext(1, { code: 451, at: 'data' });
      const response = await mailReset(reader.id);
      assert.equal(response.status, 201, response.text);
      assert.equal(smtp.attempts - before, 2);
      const mail = await smtp.nextMail();
      const token = tokenIn(mail.parts.get('text/plain'));
      // The refused attempt carried the same link: whichever arrives, it works.
      assert.equal(tokenIn(smtp.refused.at(-1)?.parts.get('text/plain')), token);
      assert.equal((await service.client.post('/password-resets', resetDocument(token, NEW_PASSWORD))).status, 204);
    });

    it('answers 503 MAIL_UNAVAILABLE after three refused attempts, and voids the token', async () => {
      const reader = await createReader(service.client);
      const before = smtp.attempts;
      smtp.refuseNext(3, { code: 451, at: 'data' });
      const response = await mailReset(reader.id);
      const error = onlyError(response, 503);
      assert.equal(error.code, 'MAIL_UNAVAILABLE');
      assert.match(error.detail, /voided/);
      assert.equal(response.headers.get('retry-after'), '30');
      assert.equal(smtp.attempts - before, 3);
      // The server saw the link before refusing it: the token in it no longer works.
      const token = tokenIn(smtp.refused.at(-1)?.parts.get('text/plain'));
      const refused = onlyError(await service.client.post('/password-resets', resetDocument(token, NEW_PASSWORD)), 422);
      assert.equal(refused.code, 'RESET_TOKEN_INVALID');
      assert.deepEqual(await service.sql('SELECT id FROM password_reset_tokens WHERE user_id = ?', [reader.id]), []);
      const trail = await service.client.get('/audit-events?filter[resourceType]=password-reset-tokens&page[size]=100');
      assert.deepEqual(
        trail.body.data.filter((e: any) => e.attributes.userId === reader.id).map((e: any) => e.attributes.action),
        ['create', 'delete'],
      );
      assert.ok(!log.text().includes(token.slice(-43)), 'the token is in the log');
    });

    it('does not retry a refusal for good (5xx): one attempt, then 503 MAIL_UNAVAILABLE', async () => {
      const reader = await createReader(service.client);
      const before = smtp.attempts;
      smtp.refuseNext(1, { code: 550, at: 'rcpt' });
      assert.equal(onlyError(await mailReset(reader.id), 503).code, 'MAIL_UNAVAILABLE');
      assert.equal(smtp.attempts - before, 1);
      assert.deepEqual(await service.sql('SELECT id FROM password_reset_tokens WHERE user_id = ?', [reader.id]), []);
    });

    it('shows the token only to an admin: write and reset-tokens get 403 RESET_TOKEN_WITHHELD, and mail it', async () => {
      for (const scope of ['write', 'reset-tokens'] as const) {
        const reader = await createReader(service.client);
        const other = service.client.as((await issueKey(service.client, [scope])).secret);
        const refused = onlyError(await other.post(`/users/${reader.id}/password-reset-tokens`, undefined), 403);
        assert.equal(refused.code, 'RESET_TOKEN_WITHHELD', scope);
        assert.match(refused.detail, /only to an admin credential while the service mails resets/);
        assert.deepEqual(refused.source, { pointer: '/data/attributes/delivery' });
        assert.deepEqual(await service.sql('SELECT id FROM password_reset_tokens WHERE user_id = ?', [reader.id]), []);
        const mailed = await other.post(`/users/${reader.id}/password-reset-tokens`, mailDocument());
        assert.equal(mailed.status, 201, mailed.text);
        assert.deepEqual(mailed.body.meta, { mailed: true });
        assert.deepEqual((await smtp.nextMail()).to, [reader.email]);
      }
    });

    it("shows an agent's console session no token either: 403 RESET_TOKEN_WITHHELD", async () => {
      const reader = await createReader(service.client);
      const session = await signInSession(service.client, await createStaff(service.client, 'agent'));
      const refused = await session.client.post(`/users/${reader.id}/password-reset-tokens`, undefined);
      assert.equal(onlyError(refused, 403).code, 'RESET_TOKEN_WITHHELD');
    });

    it("still answers an admin's POST without a body with the token, and the link to the reset page", async () => {
      const reader = await createReader(service.client);
      const before = smtp.attempts;
      const response = await service.client.post(`/users/${reader.id}/password-reset-tokens`, undefined);
      assert.equal(response.status, 201, response.text);
      const { token, resetUrl } = response.body.meta;
      assert.equal(resetUrl, RESET_PAGE.replace('{token}', encodeURIComponent(token)));
      assert.equal(smtp.attempts, before, 'a mail was sent');
    });

    it('refuses another delivery, a client id and another type', async () => {
      const reader = await createReader(service.client);
      const path = `/users/${reader.id}/password-reset-tokens`;
      const sms = onlyError(await service.client.post(path, mailDocument('sms')), 422);
      assert.deepEqual(sms.source, { pointer: '/data/attributes/delivery' });
      const withId = { data: { ...mailDocument().data, id: '5' } };
      assert.equal(onlyError(await service.client.post(path, withId), 403).code, 'CLIENT_ID_NOT_SUPPORTED');
      const other = { data: { type: 'users', attributes: { delivery: 'email' } } };
      assert.equal(onlyError(await service.client.post(path, other), 409).code, 'TYPE_CONFLICT');
      assert.deepEqual(await service.sql('SELECT id FROM password_reset_tokens WHERE user_id = ?', [reader.id]), []);
    });
  });

  describe('a password reset mailed with the templates of MAIL_TEMPLATES_DIR', () => {
    let smtp: TestSmtpServer;
    let service: Service;
    let directory: string;
    before(async () => {
      smtp = await startSmtpServer();
      directory = mkdtempSync(join(tmpdir(), 'circulation-templates-'));
      writeFileSync(join(directory, 'password-reset.subject.txt'), 'Your new password, {givenName}\n');
      writeFileSync(join(directory, 'password-reset.txt'), 'Dear {givenName} {familyName}: {resetUrl}\n');
      writeFileSync(
        join(directory, 'password-reset.html'),
        '<p>Dear {givenName}, <a href="{resetUrl}">reset</a></p>\n',
      );
      service = await startService(kind, {
        readers: { ...DEFAULT_READER_SETTINGS, resetPage: RESET_PAGE },
        mail: {
          mailer: smtpMailer({ url: smtp.url, from: MAIL_FROM }),
          templates: loadMailTemplates(directory),
          retry: RETRY,
        },
      });
    });
    after(async () => {
      await service?.close();
      await smtp?.close();
      rmSync(directory, { recursive: true, force: true });
    });

    it("sends the publisher's subject, text and HTML, the reader's name escaped in the HTML", async () => {
      const reader = await createReader(service.client, 'a reader password', {
        givenName: 'Ada <b>&',
        familyName: 'Lovelace',
      });
      const response = await service.client.post(`/users/${reader.id}/password-reset-tokens`, mailDocument());
      assert.equal(response.status, 201, response.text);
      const mail = await smtp.nextMail();
      assert.equal(subjectOf(mail), 'Your new password, Ada <b>&');
      const text = mail.parts.get('text/plain') ?? '';
      assert.match(text, /^Dear Ada <b>& Lovelace: https:\/\//);
      const html = mail.parts.get('text/html') ?? '';
      assert.match(
        html,
        /^<p>Dear Ada &lt;b&gt;&amp;, <a href="https:\/\/www\.example\.com\/account\/reset\?token=prt_/,
      );
      assert.equal(tokenIn(html), tokenIn(text));
    });
  });

  describe('a password reset mailed through a mail server that is not there', () => {
    let service: Service;
    before(async () => {
      // A port nothing listens on any more.
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as { port: number };
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      service = await startService(kind, {
        readers: { ...DEFAULT_READER_SETTINGS, resetPage: RESET_PAGE },
        mail: { mailer: smtpMailer({ url: `smtp://127.0.0.1:${port}`, from: MAIL_FROM }), retry: RETRY },
      });
    });
    after(() => service?.close());

    it('answers 503 MAIL_UNAVAILABLE and leaves no token', async () => {
      const reader = await createReader(service.client);
      const response = await service.client.post(`/users/${reader.id}/password-reset-tokens`, mailDocument());
      assert.equal(onlyError(response, 503).code, 'MAIL_UNAVAILABLE');
      assert.ok(response.headers.get('retry-after'));
      assert.deepEqual(await service.sql('SELECT id FROM password_reset_tokens WHERE user_id = ?', [reader.id]), []);
    });
  });

  describe('a password reset asked to be mailed by a service without mail', () => {
    let plain: Service;
    let linked: Service;
    before(async () => {
      plain = await startService(kind);
      linked = await startService(kind, { readers: { ...DEFAULT_READER_SETTINGS, resetPage: RESET_PAGE } });
    });
    after(async () => {
      await plain?.close();
      await linked?.close();
    });

    it('answers 503 MAIL_NOT_CONFIGURED naming what is missing, and issues no token', async () => {
      for (const [service, missing] of [
        [plain, /SMTP_URL and PASSWORD_RESET_URL/],
        [linked, /SMTP_URL/],
      ] as const) {
        const reader = await createReader(service.client);
        const response = await service.client.post(`/users/${reader.id}/password-reset-tokens`, mailDocument());
        const error = onlyError(response, 503);
        assert.equal(error.code, 'MAIL_NOT_CONFIGURED');
        assert.match(error.detail, missing);
        assert.deepEqual(await service.sql('SELECT id FROM password_reset_tokens WHERE user_id = ?', [reader.id]), []);
      }
    });

    it('answers with meta.resetUrl only when PASSWORD_RESET_URL is set', async () => {
      const reader = await createReader(plain.client);
      const bare = await plain.client.post(`/users/${reader.id}/password-reset-tokens`, undefined);
      assert.deepEqual(Object.keys(bare.body.meta), ['token']);
      const other = await createReader(linked.client);
      const withLink = await linked.client.post(`/users/${other.id}/password-reset-tokens`, undefined);
      const { token, resetUrl } = withLink.body.meta;
      assert.equal(resetUrl, `https://www.example.com/account/reset?token=${token}`);
      const reset = await linked.client.post('/password-resets', resetDocument(tokenIn(resetUrl), NEW_PASSWORD));
      assert.equal(reset.status, 204, reset.text);
    });
  });
});
