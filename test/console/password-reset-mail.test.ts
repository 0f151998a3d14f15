/**
 * A password reset from the console, as the service is set up to give one: with mail, the agent
 * sends the reader an email and is told where it went, never seeing the token; without mail but
 * with a reset page, an admin gets the whole link, ready to copy, never a bare token, and an agent
 * no link at all (whoever sees the token could take the account). (Without either, an admin gets
 * the bare token: reader-actions.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { Role } from '../../src/domain/staff.js';
import { smtpMailer } from '../../src/mail/smtp.js';
import { DEFAULT_READER_SETTINGS } from '../../src/use-cases/readers/settings.js';
import {
  missingChromium,
  screenshot,
  signInThroughConsole,
  startConsole,
  type ConsoleRig,
} from '../support/console.js';
import { createReader, resetDocument, signIn } from '../support/readers.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';
import { createStaff } from '../support/staff.js';
import { forEachStore } from '../support/stores.js';

const RESET_PAGE = 'https://www.example.com/reset?token={token}';
const LINK = /https:\/\/www\.example\.com\/reset\?token=([^\s"<]+)/;
const NEW_PASSWORD = 'a password from the console';

function tokenIn(text: string | undefined): string {
  const match = LINK.exec(text ?? '');
  assert.ok(match, `no reset link in ${text}`);
  return decodeURIComponent(match[1] as string);
}

/** A fresh browser, signed in as a new agent (or another role), on the reader's page. */
async function openAsAgent(rig: ConsoleRig, userId: string, role: Role = 'agent'): Promise<Page> {
  const page = await rig.newPage();
  await signInThroughConsole(page, rig.service.baseUrl, await createStaff(rig.service.client, role));
  await page.goto(`${rig.service.baseUrl}/console#/readers/${userId}`);
  await page.getByRole('heading', { name: 'Account' }).waitFor();
  return page;
}

forEachStore((kind) => {
  describe('a password reset email sent from the console', { skip: missingChromium }, () => {
    let smtp: TestSmtpServer;
    let rig: ConsoleRig;
    before(async () => {
      smtp = await startSmtpServer();
      rig = await startConsole(kind, {
        readers: { ...DEFAULT_READER_SETTINGS, resetPage: RESET_PAGE },
        mail: {
          mailer: smtpMailer({ url: smtp.url, from: 'no-reply@example.com' }),
          retry: { attempts: 3, backoffMs: 20 },
        },
      });
    });
    after(async () => {
      await rig?.close();
      await smtp?.close();
    });

    it('mails the reader the link, and tells the agent where it went', async () => {
      const reader = await createReader(rig.service.client);
      const page = await openAsAgent(rig, reader.id);
      assert.equal(await page.getByRole('button', { name: /password-reset token|reset link/ }).count(), 0);
      await page.getByRole('button', { name: 'Send password reset email' }).click();
      await page.getByRole('status').getByText(`A password reset email was sent to ${reader.email}.`).waitFor();
      await screenshot(page, `password-reset-mailed-${kind}`);
      const mail = await smtp.nextMail();
      assert.deepEqual(mail.to, [reader.email]);
      const token = tokenIn(mail.parts.get('text/plain'));
      assert.ok(!(await page.content()).includes(token.slice(-43)), 'the page shows the token');
      const reset = await rig.service.client.post('/password-resets', resetDocument(token, NEW_PASSWORD));
      assert.equal(reset.status, 204, reset.text);
      assert.equal((await signIn(rig.service.client, reader.email, NEW_PASSWORD)).status, 201);
    });

    it('mails it for an admin too, who is not shown the token either', async () => {
      const reader = await createReader(rig.service.client);
      const page = await openAsAgent(rig, reader.id, 'admin');
      await page.getByRole('button', { name: 'Send password reset email' }).click();
      await page.getByRole('status').getByText(`A password reset email was sent to ${reader.email}.`).waitFor();
      const token = tokenIn((await smtp.nextMail()).parts.get('text/plain'));
      assert.ok(!(await page.content()).includes(token.slice(-43)), 'the page shows the token');
    });

    it('says so when the mail server would not take it', async () => {
      const reader = await createReader(rig.service.client);
      const page = await openAsAgent(rig, reader.id);
      smtp.refuseNext(3, { code: 451, at: 'rcpt' });
      await page.getByRole('button', { name: 'Send password reset email' }).click();
      await page
        .getByRole('alert')
        .getByText(/The mail server did not take the message/)
        .waitFor();
      assert.equal(await page.getByText('A password reset email was sent').count(), 0);
    });
  });

  describe('a password reset link made in the console, without mail', { skip: missingChromium }, () => {
    let rig: ConsoleRig;
    before(async () => {
      rig = await startConsole(kind, { readers: { ...DEFAULT_READER_SETTINGS, resetPage: RESET_PAGE } });
    });
    after(() => rig?.close());

    it('shows an admin the whole link, ready to copy, and no bare token', async () => {
      const reader = await createReader(rig.service.client);
      const page = await openAsAgent(rig, reader.id, 'admin');
      assert.equal(await page.getByRole('button', { name: 'Send password reset email' }).count(), 0);
      await page.getByRole('button', { name: 'Create a password reset link' }).click();
      const field = page.getByLabel(/Password reset link/);
      await field.waitFor();
      const link = await field.inputValue();
      assert.equal(await field.getAttribute('readonly'), '');
      assert.equal(await page.locator('#reset-token').count(), 0);
      await page.getByRole('button', { name: 'Copy link' }).click();
      await page.getByText(/Copied\.|Selected: press/).waitFor();
      await screenshot(page, `password-reset-link-${kind}`);
      const reset = await rig.service.client.post('/password-resets', resetDocument(tokenIn(link), NEW_PASSWORD));
      assert.equal(reset.status, 204, reset.text);
    });

    it('offers a supervisor no link, saying only an admin can make one', async () => {
      const reader = await createReader(rig.service.client);
      const page = await openAsAgent(rig, reader.id, 'supervisor');
      await page.getByText('Only an admin can make a password reset link').waitFor();
      assert.equal(await page.getByRole('button', { name: /reset link|reset email|password-reset token/ }).count(), 0);
    });
  });
});
