/**
 * The password-reset mail's templates: placeholders filled with their values (HTML-escaped in the
 * HTML), an empty value left out, the publisher's files replacing the built-ins one by one, and a
 * file that would mail something unusable refused when it is read, at start.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  DEFAULT_MAIL_TEMPLATES,
  escapeHtml,
  loadMailTemplates,
  renderPasswordReset,
  TemplateError,
  type PasswordResetValues,
} from '../../src/mail/templates.js';

const VALUES: PasswordResetValues = {
  resetUrl: 'https://www.example.com/reset?token=prt_7_abc&x=1',
  email: 'ada@example.com',
  givenName: 'Ada',
  familyName: 'Lovelace',
  expiresInMinutes: 60,
};

const template = (text: string, html?: string, subject = 'Reset') => ({ subject, text, html });

describe('rendering a password-reset mail', () => {
  it('fills every placeholder with its value', () => {
    const mail = renderPasswordReset(
      template(
        '{givenName} {familyName} <{email}>: {resetUrl} for {expiresInMinutes} minutes',
        undefined,
        'Hi {givenName}',
      ),
      VALUES,
    );
    assert.deepEqual(mail, {
      subject: 'Hi Ada',
      text: 'Ada Lovelace <ada@example.com>: https://www.example.com/reset?token=prt_7_abc&x=1 for 60 minutes',
    });
  });

  it('escapes the values in the HTML, and only there', () => {
    const values = { ...VALUES, givenName: `<script>alert("x")</script> & 'co'` };
    const mail = renderPasswordReset(
      template('{givenName}', '<p>{givenName}</p><a href="{resetUrl}">reset</a>'),
      values,
    );
    assert.equal(mail.text, values.givenName);
    assert.equal(
      mail.html,
      '<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;</p>' +
        '<a href="https://www.example.com/reset?token=prt_7_abc&amp;x=1">reset</a>',
    );
  });

  it('leaves out a placeholder without a value, rather than showing it or "undefined"', () => {
    const mail = renderPasswordReset(template('Hello {givenName}{familyName}!'), {
      ...VALUES,
      givenName: undefined,
      familyName: undefined,
    });
    assert.equal(mail.text, 'Hello !');
  });

  it('does not fill in what a value brings that looks like a placeholder', () => {
    const mail = renderPasswordReset(template('{givenName} {resetUrl}'), { ...VALUES, givenName: '{resetUrl}' });
    assert.equal(mail.text, `{resetUrl} ${VALUES.resetUrl}`);
  });

  it('keeps a value with a line break from starting a header of its own in the subject', () => {
    const mail = renderPasswordReset(template('{resetUrl}', undefined, 'For {givenName}'), {
      ...VALUES,
      givenName: 'Ada\r\nBcc: someone@example.com',
    });
    assert.equal(mail.subject, 'For Ada Bcc: someone@example.com');
  });

  it('sends only text by default, with the link and how long it lasts', () => {
    const mail = renderPasswordReset(DEFAULT_MAIL_TEMPLATES.passwordReset, VALUES);
    assert.equal(mail.subject, 'Reset your password');
    assert.ok(mail.text.includes(VALUES.resetUrl));
    assert.match(mail.text, /within 60 minutes/);
    assert.equal(mail.html, undefined);
  });

  it('escapes the five characters HTML gives meaning to', () => {
    assert.equal(escapeHtml(`<>&"'`), '&lt;&gt;&amp;&quot;&#39;');
  });
});

describe('the templates of MAIL_TEMPLATES_DIR', () => {
  const directories: string[] = [];
  after(() => directories.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const directoryWith = (files: Record<string, string>) => {
    const directory = mkdtempSync(join(tmpdir(), 'circulation-templates-'));
    directories.push(directory);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(directory, name), text);
    return directory;
  };
  const assertRefused = (files: Record<string, string>, pattern: RegExp) =>
    assert.throws(
      () => loadMailTemplates(directoryWith(files)),
      (error: unknown) => error instanceof TemplateError && pattern.test(error.message),
    );

  it('are the built-in ones without a directory', () => {
    assert.equal(loadMailTemplates(undefined), DEFAULT_MAIL_TEMPLATES);
  });

  it('replace each built-in by a file of its name, and keep the others', () => {
    const templates = loadMailTemplates(directoryWith({ 'password-reset.txt': 'Go to {resetUrl} now.\n' }));
    assert.deepEqual(templates.passwordReset, {
      subject: DEFAULT_MAIL_TEMPLATES.passwordReset.subject,
      text: 'Go to {resetUrl} now.\n',
      html: undefined,
    });
    const all = loadMailTemplates(
      directoryWith({
        'password-reset.subject.txt': '  Your password, {givenName}  \n',
        'password-reset.txt': '{resetUrl}',
        'password-reset.html': '<a href="{resetUrl}">Reset</a>',
      }),
    );
    assert.deepEqual(all.passwordReset, {
      subject: 'Your password, {givenName}',
      text: '{resetUrl}',
      html: '<a href="{resetUrl}">Reset</a>',
    });
  });

  it('refuse a placeholder that is not one, naming the file and the ones there are', () => {
    assertRefused(
      { 'password-reset.txt': '{resetURL}' },
      /^password-reset\.txt: \{resetURL\} is not a placeholder; use \{resetUrl\}/,
    );
    assertRefused({ 'password-reset.subject.txt': 'Hi {name}' }, /^password-reset\.subject\.txt: \{name\}/);
  });

  it('refuse a text or HTML without the link', () => {
    assertRefused({ 'password-reset.txt': 'Hello {givenName}' }, /^password-reset\.txt: has no \{resetUrl\}/);
    assertRefused({ 'password-reset.html': '<p>Hello</p>' }, /^password-reset\.html: has no \{resetUrl\}/);
  });

  it('refuse a subject of more than one line', () => {
    assertRefused({ 'password-reset.subject.txt': 'One\nTwo\n' }, /must be one line/);
  });

  it('leave CSS braces in an HTML template alone', () => {
    const html = '<style>p { color: red }</style><a href="{resetUrl}">Reset</a>';
    const templates = loadMailTemplates(directoryWith({ 'password-reset.html': html }));
    assert.equal(
      renderPasswordReset(templates.passwordReset, VALUES).html?.startsWith('<style>p { color: red }'),
      true,
    );
  });
});
