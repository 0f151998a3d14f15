/**
 * The mails circulation sends, as templates the publisher can replace: the built-in ones below,
 * or files of the same names in MAIL_TEMPLATES_DIR, read once at start. A template holds
 * placeholders such as `{resetUrl}`, each replaced by its value (HTML-escaped in an HTML
 * template; a value left empty, such as a reader without a given name, becomes nothing). A file
 * naming a placeholder there is not, or a body without the link, stops the start: a typo would
 * otherwise mail readers a message they cannot act on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The values a password-reset mail may show. */
export interface PasswordResetValues {
  /** The page on the publisher's site, with the token in it. */
  resetUrl: string;
  email: string;
  givenName: string | undefined;
  familyName: string | undefined;
  expiresInMinutes: number;
}

export const PASSWORD_RESET_PLACEHOLDERS = [
  'resetUrl',
  'email',
  'givenName',
  'familyName',
  'expiresInMinutes',
] as const satisfies readonly (keyof PasswordResetValues)[];

/** The files of MAIL_TEMPLATES_DIR a password-reset mail is made of; each optional. */
export const PASSWORD_RESET_FILES = {
  subject: 'password-reset.subject.txt',
  text: 'password-reset.txt',
  html: 'password-reset.html',
} as const;

export interface PasswordResetTemplate {
  subject: string;
  text: string;
  /** Only when the publisher gave one: a built-in HTML part would not match their own text. */
  html: string | undefined;
}

export const DEFAULT_PASSWORD_RESET_TEMPLATE: PasswordResetTemplate = {
  subject: 'Reset your password',
  text: `Hello,

someone asked to reset the password of the account {email}. To choose a new password, open this
link within {expiresInMinutes} minutes:

{resetUrl}

The link works once. If you did not ask for it, ignore this email: your password stays as it is.
`,
  html: undefined,
};

export interface MailTemplates {
  passwordReset: PasswordResetTemplate;
}

export const DEFAULT_MAIL_TEMPLATES: MailTemplates = { passwordReset: DEFAULT_PASSWORD_RESET_TEMPLATE };

/** A template file that cannot be used; its message names the file and what is wrong. */
export class TemplateError extends Error {
  constructor(file: string, problem: string) {
    super(`${file}: ${problem}`);
    this.name = 'TemplateError';
  }
}

const PLACEHOLDER = /\{([A-Za-z]+)\}/g;

/** The templates of `directory`, each file there replacing its built-in; the built-ins without one. */
export function loadMailTemplates(directory: string | undefined): MailTemplates {
  if (directory === undefined) return DEFAULT_MAIL_TEMPLATES;
  const read = (file: string): string | undefined => {
    try {
      return readFileSync(join(directory, file), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new TemplateError(join(directory, file), `cannot be read (${(error as NodeJS.ErrnoException).code})`);
    }
  };
  const files = PASSWORD_RESET_FILES;
  const subject = read(files.subject);
  const text = read(files.text);
  const html = read(files.html);
  const template: PasswordResetTemplate = {
    // One line: a line break in a header would end it.
    subject: subject === undefined ? DEFAULT_PASSWORD_RESET_TEMPLATE.subject : subject.trim(),
    text: text ?? DEFAULT_PASSWORD_RESET_TEMPLATE.text,
    html,
  };
  check(files.subject, template.subject, false);
  if (/[\r\n]/.test(template.subject)) throw new TemplateError(files.subject, 'must be one line');
  check(files.text, template.text, true);
  if (template.html !== undefined) check(files.html, template.html, true);
  return { passwordReset: template };
}

function check(file: string, template: string, needsLink: boolean): void {
  const known: readonly string[] = PASSWORD_RESET_PLACEHOLDERS;
  for (const [, name] of template.matchAll(PLACEHOLDER)) {
    if (!known.includes(name as string)) {
      throw new TemplateError(file, `{${name}} is not a placeholder; use ${known.map((n) => `{${n}}`).join(', ')}`);
    }
  }
  if (needsLink && !template.includes('{resetUrl}')) {
    throw new TemplateError(file, 'has no {resetUrl}: the reader would get no link to reset their password');
  }
}

/** The subject, text and HTML of a password-reset mail with these values. */
export function renderPasswordReset(
  template: PasswordResetTemplate,
  values: PasswordResetValues,
): { subject: string; text: string; html?: string } {
  const plain = (value: string) => value;
  const rendered = {
    // A value with a line break must not start a header of its own.
    subject: fill(template.subject, values, (value) => value.replace(/[\r\n]+/g, ' ')),
    text: fill(template.text, values, plain),
  };
  return template.html === undefined ? rendered : { ...rendered, html: fill(template.html, values, escapeHtml) };
}

/** The template with each known placeholder replaced by its value, escaped; an empty value leaves nothing. */
export function fill(template: string, values: PasswordResetValues, escape: (value: string) => string): string {
  // One pass over the template: a value that itself looks like a placeholder stays as it is.
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    if (!(PASSWORD_RESET_PLACEHOLDERS as readonly string[]).includes(name)) return whole;
    const value: unknown = values[name as keyof PasswordResetValues];
    return value === undefined || value === null ? '' : escape(String(value));
  });
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] as string);
}
