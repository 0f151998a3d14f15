/**
 * The small HTML pages a reader sees when they follow a link from a mail (confirming a newsletter,
 * unsubscribing): a heading, a sentence and at most one form that POSTs back to the same address.
 * No script, no style, nothing from elsewhere, under a policy that allows no more; every text that
 * comes from a record is escaped.
 */
import type { FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';

export const PAGE_MEDIA_TYPE = 'text/html; charset=utf-8';

/** Nothing may load or run; the one form may post only to the service itself. */
export const PAGE_POLICY = [
  "default-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The OpenAPI description of an answer that is one of these pages; with `example`, that page as its example. */
export function pageAnswer(description: string, example?: Page) {
  const media = { schema: Type.String(), ...(example && { example: renderPage(example) }) };
  return { description, content: { [PAGE_MEDIA_TYPE]: media } };
}

export interface Page {
  title: string;
  text: string;
  /** The form's button: its label, and the name and value it posts (RFC 8058's one-click field, say). */
  button?: { label: string; name: string; value: string };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

export function renderPage(page: Page): string {
  const title = escapeHtml(page.title);
  const form = page.button
    ? `<form method="post"><button type="submit" name="${escapeHtml(page.button.name)}" value="${escapeHtml(page.button.value)}">${escapeHtml(page.button.label)}</button></form>`
    : '';
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta name="robots" content="noindex"><title>${title}</title></head>` +
    `<body><main><h1>${title}</h1><p>${escapeHtml(page.text)}</p>${form}</main></body></html>\n`
  );
}

export function sendPage(reply: FastifyReply, status: number, page: Page) {
  return reply.status(status).type(PAGE_MEDIA_TYPE).send(renderPage(page));
}

/** The pages of a link that leads nowhere, whatever kind it is. */
export const LINK_PAGES = {
  /** Forged, altered, for another reader or newsletter, or of a reader who is no more. */
  unknown: {
    title: 'This link does not work',
    text: 'This link is not valid, or no longer leads anywhere. Check that it was copied whole from the message.',
  },
  expired: {
    title: 'This link has expired',
    text: 'This confirmation link is too old. Ask for a new one: sign up for the newsletter again.',
  },
  used: {
    title: 'This link has been used',
    text: 'This confirmation link was used already, or your subscription changed since it was sent. Nothing was changed.',
  },
  oneClickMissing: {
    title: 'Nothing was changed',
    text: 'This request did not ask to unsubscribe. Use the button on the page this link opens.',
  },
} satisfies Record<string, Page>;
