/**
 * The links a publisher's mailer sends a reader (domain/consent-links.ts): a write credential asks
 * for a consent's confirmation link or its unsubscribe link (with the List-Unsubscribe headers of
 * RFC 8058), and the reader follows it without one. A link's GET shows a page with one button and
 * changes nothing, so that the scanners of mailboxes, which fetch every link, confirm nobody; its
 * POST acts. Forged, altered, expired or used links get a page that says so, and change nothing.
 * The link routes are public, so their requests are limited by the client's address (auth.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import {
  LINK_ACTOR,
  listUnsubscribeHeaders,
  MAX_LINK_TOKEN_LENGTH,
  readConfirmationToken,
  unsubscribeToken,
  unsubscribeTokenMatches,
  type LinkSource,
} from '../../domain/consent-links.js';
import { formatInstant, nowInSeconds } from '../../domain/dates.js';
import { confirmationState, issueConfirmationLink } from '../../use-cases/consent-links.js';
import { errors } from '../errors.js';
import { ErrorDocument, errorResponses, EXAMPLE_BASE, withExample } from '../jsonapi/documents.js';
import { ConsentLinkParams, ConsentParams } from '../jsonapi/params.js';
import { auditOf } from '../plugins/auth.js';
import { JSONAPI } from '../plugins/media-types.js';
import { validatorCompiler } from '../plugins/validation.js';
import { formFields, FORM_MEDIA_TYPES } from './forms.js';
import { LINK_PAGES, PAGE_MEDIA_TYPE, PAGE_POLICY, pageAnswer, sendPage, type Page } from './reader-pages.js';
import type { RouteOptions } from './options.js';

export interface ConsentLinkRouteOptions extends RouteOptions {
  /** The link key (secrets/service-keys.ts); without one, links are neither issued nor followed (503). */
  key: Buffer | undefined;
  /** CONFIRMATION_TTL_HOURS, in seconds. */
  confirmationTtlSeconds: number;
}

/** Where each kind of link points, under the service's public address. */
const LINK_PATHS: Record<LinkSource, string> = {
  confirmation: '/links/confirm',
  'unsubscribe-link': '/links/unsubscribe',
};

function linkUrl(base: string, source: LinkSource, userId: string, newsletterId: string, token: string): string {
  return `${base}${LINK_PATHS[source]}/${userId}/${encodeURIComponent(newsletterId)}/${token}`;
}

const LinkParams = ConsentLinkParams(MAX_LINK_TOKEN_LENGTH);

/** Ada's links for the newsletter briefing, as /docs shows them (a confirmation token: version.expiry.MAC). */
const [CONFIRMATION_EXAMPLE, UNSUBSCRIBE_EXAMPLE] = [
  linkUrl(EXAMPLE_BASE, 'confirmation', '42', 'briefing', '1.1777802400.Vq3sTD0hN1kX8yJ2mQ7cR5aW9eP4uZ6bG0fL3iH8oKs'),
  linkUrl(EXAMPLE_BASE, 'unsubscribe-link', '42', 'briefing', 'rzT9YOFaETvisO-0b47N9JnzHZcVQExmmTqSpZN85jM'),
];

/** A 404 or a 400 is a page when the link was read, a JSON:API error when the address was refused before. */
const pageOrError = (description: string) => ({
  description,
  content: { [PAGE_MEDIA_TYPE]: { schema: Type.String() }, [JSONAPI]: { schema: ErrorDocument } },
});

const PAGE_CONFIG = { scope: 'public' as const, ownMediaType: true, ownPolicy: true };

/** What the one-click POST (RFC 8058) must carry, form-encoded or multipart. */
const ONE_CLICK = { name: 'List-Unsubscribe', value: 'One-Click' };

/** The page a confirmation link opens: the newsletter's id, and the button. */
const confirmPage = (newsletterId: string): Page => ({
  title: 'Confirm your subscription',
  text: `Confirm that you want to receive the newsletter ${newsletterId}.`,
  button: { label: 'Confirm', name: 'confirm', value: 'yes' },
});

/** The page an unsubscribe link opens. */
const unsubscribePage = (newsletterId: string): Page => ({
  title: 'Unsubscribe',
  text: `Stop receiving the newsletter ${newsletterId}? Your other newsletters stay as they are.`,
  button: { label: 'Unsubscribe', ...ONE_CLICK },
});

/** The pages of Ada's links, as /docs shows them. */
const [CONFIRM_PAGE, UNSUBSCRIBE_PAGE] = [confirmPage('briefing'), unsubscribePage('briefing')];

/** The one-click body (RFC 8058), in either media type a mailbox provider may post it in. */
const ONE_CLICK_BODY = {
  content: Object.fromEntries(
    FORM_MEDIA_TYPES.map((type) => [
      type,
      {
        schema: withExample(
          Type.Object(
            { [ONE_CLICK.name]: Type.Literal(ONE_CLICK.value) },
            { description: 'List-Unsubscribe=One-Click; other fields are ignored.' },
          ),
          { [ONE_CLICK.name]: ONE_CLICK.value },
        ),
      },
    ]),
  ),
};

export const consentLinkRoutes: FastifyPluginAsyncTypebox<ConsentLinkRouteOptions> = async (
  app,
  { store, baseUrl, key, confirmationTtlSeconds },
) => {
  const linkKey = (): Buffer => {
    if (!key) throw errors.linksNotSetUp();
    return key;
  };
  const noSuchConsent = (userId: string, newsletterId: string) =>
    errors.notFound(`User ${userId} has no consent for newsletter "${newsletterId}".`);
  const audit = { actor: LINK_ACTOR, attributes: [] };

  // 200, not 201: nothing is created (no record is kept of a link), so JSON:API's 201 with a
  // resource and its Location does not apply; a document of top-level meta alone is a 200.
  app.post(
    '/users/:user_id/newsletter-consents/:newsletter_id/confirmation-links',
    {
      config: { showsSecret: true },
      schema: {
        summary: 'Issue a confirmation link',
        description: "A single-use link that confirms the reader's consent (pending, bounced or complained).",
        params: ConsentParams,
        response: {
          200: withExample(
            Type.Object({
              meta: Type.Object({
                url: Type.String({
                  format: 'uri',
                  description:
                    'The link for the mail, shown this once; nothing of it is kept. It works once, until expiresAt, ' +
                    'and only while the consent stays as it is now.',
                }),
                expiresAt: Type.String({ format: 'date-time', description: 'Now and CONFIRMATION_TTL_HOURS.' }),
              }),
            }),
            { meta: { url: CONFIRMATION_EXAMPLE, expiresAt: '2026-05-03T10:00:00+00:00' } },
          ),
          ...errorResponses(404, 409, 503),
        },
      },
    },
    async (request) => {
      const { user_id, newsletter_id } = request.params;
      const link = await issueConfirmationLink(
        store,
        linkKey(),
        { userId: user_id, newsletterId: newsletter_id },
        { now: nowInSeconds(), ttlSeconds: confirmationTtlSeconds },
        auditOf(request),
      );
      if (!link.issued) {
        if (link.consent === 'none') throw noSuchConsent(user_id, newsletter_id);
        throw errors.consentNotConfirmable(newsletter_id, link.state);
      }
      const url = linkUrl(baseUrl(request), 'confirmation', user_id, newsletter_id, link.token);
      return { meta: { url, expiresAt: formatInstant(link.expiresAt) } };
    },
  );

  app.post(
    '/users/:user_id/newsletter-consents/:newsletter_id/unsubscribe-links',
    {
      config: { showsSecret: true },
      schema: {
        summary: 'Issue an unsubscribe link',
        description: 'The one-click unsubscribe link (RFC 8058) of the reader and newsletter, with its mail headers.',
        params: ConsentParams,
        response: {
          200: withExample(
            Type.Object({
              meta: Type.Object({
                url: Type.String({
                  format: 'uri',
                  description: 'Works for as long as the reader exists: signed, not stored. The same every time.',
                }),
                listUnsubscribeHeaders: Type.Object(
                  {
                    'List-Unsubscribe': Type.String({ description: 'The url in angle brackets.' }),
                    'List-Unsubscribe-Post': Type.Literal('List-Unsubscribe=One-Click'),
                  },
                  { description: "The headers for the newsletter's message." },
                ),
              }),
            }),
            { meta: { url: UNSUBSCRIBE_EXAMPLE, listUnsubscribeHeaders: listUnsubscribeHeaders(UNSUBSCRIBE_EXAMPLE) } },
          ),
          ...errorResponses(404, 503),
        },
      },
    },
    async (request) => {
      const { user_id, newsletter_id } = request.params;
      const signingKey = linkKey();
      if (!(await store.consents.get(user_id, newsletter_id))) throw noSuchConsent(user_id, newsletter_id);
      const token = unsubscribeToken(signingKey, user_id, newsletter_id);
      const url = linkUrl(baseUrl(request), 'unsubscribe-link', user_id, newsletter_id, token);
      return { meta: { url, listUnsubscribeHeaders: listUnsubscribeHeaders(url) } };
    },
  );

  // The pages, in a context of their own: only they take form bodies.
  const pageRoutes: FastifyPluginAsyncTypebox = async (pages) => {
    pages.addContentTypeParser(FORM_MEDIA_TYPES, { parseAs: 'string' }, (request, body, done) =>
      done(null, formFields(request.headers['content-type'] ?? '', body as string)),
    );
    // A body schema here describes the form for the document; the route reads the fields itself,
    // so that a body without them is answered with a page, as a mailbox or a reader can read it.
    pages.setValidatorCompiler((route) =>
      route.httpPart === 'body' ? (data: unknown) => ({ value: data }) : validatorCompiler(route),
    );
    // Every answer of a page route, its errors too, under the pages' policy.
    pages.addHook('onSend', (request, reply, payload, done) => {
      if (request.routeOptions.config?.ownPolicy) {
        reply.header('content-security-policy', PAGE_POLICY).header('cache-control', 'no-store');
      }
      done(null, payload);
    });

    const show = (reply: FastifyReply, page: Page) => sendPage(reply, 200, page);
    const gone = (reply: FastifyReply, page: Page) => sendPage(reply, 410, page);
    const unknown = (reply: FastifyReply) => sendPage(reply, 404, LINK_PAGES.unknown);

    /** The options of a page route: public, its own media type and policy, the link's params. */
    const pageRoute = <R extends object>(summary: string, description: string, response: R, body?: object) => ({
      config: PAGE_CONFIG,
      schema: {
        summary,
        description,
        params: LinkParams,
        ...(body && { body }),
        response: {
          404: pageOrError(
            'The link is forged, altered, or not for this reader and newsletter; or the reader is no more.',
          ),
          503: {
            description: 'Without a link key (LINKS_NOT_CONFIGURED).',
            content: { [JSONAPI]: { schema: ErrorDocument } },
          },
          ...response,
        },
      },
    });

    /** What a confirmation link names, while it may still be followed; undefined for a page already sent. */
    const confirmationOf = (params: Static<typeof LinkParams>, reply: FastifyReply) => {
      const claim = readConfirmationToken(linkKey(), params.user_id, params.newsletter_id, params.token);
      if (!claim) return void unknown(reply);
      if (claim.expiresAt <= nowInSeconds()) return void gone(reply, LINK_PAGES.expired);
      return claim;
    };

    const confirmResponses = {
      200: pageAnswer('A page with the button that confirms (GET), or that says it is done (POST).', CONFIRM_PAGE),
      410: pageAnswer('The link has expired, or was used (or the consent changed since it was issued).'),
    };

    pages.get(
      '/links/confirm/:user_id/:newsletter_id/:token',
      pageRoute(
        'Show a confirmation page',
        'The page of a confirmation link: one button, which POSTs. Changes nothing, so that mailbox scanners confirm nobody.',
        confirmResponses,
      ),
      async (request, reply) => {
        const { newsletter_id } = request.params;
        const claim = confirmationOf(request.params, reply);
        if (!claim) return reply;
        const state = await confirmationState(store, claim);
        if (state === 'unknown') return unknown(reply);
        if (state === 'used') return gone(reply, LINK_PAGES.used);
        return show(reply, confirmPage(newsletter_id));
      },
    );

    pages.post(
      '/links/confirm/:user_id/:newsletter_id/:token',
      pageRoute(
        'Confirm a consent',
        "Confirms the reader's consent: subscribed, source confirmation. Any form body, or none.",
        confirmResponses,
      ),
      async (request, reply) => {
        const { user_id, newsletter_id } = request.params;
        const claim = confirmationOf(request.params, reply);
        if (!claim) return reply;
        const followed = await store.consents.followLink(user_id, newsletter_id, 'confirmation', audit, claim.version);
        if (!followed) return unknown(reply);
        if (followed.outcome !== 'changed') return gone(reply, LINK_PAGES.used);
        return show(reply, {
          title: 'Subscription confirmed',
          text: `Thank you: you will receive the newsletter ${newsletter_id}.`,
        });
      },
    );

    const unsubscribeAnswer = pageAnswer(
      'A page with the button that unsubscribes (GET), or that says it is done (POST).',
      UNSUBSCRIBE_PAGE,
    );

    pages.get(
      '/links/unsubscribe/:user_id/:newsletter_id/:token',
      pageRoute(
        'Show an unsubscribe page',
        'The page of an unsubscribe link: one button, which POSTs. Changes nothing.',
        { 200: unsubscribeAnswer },
      ),
      async (request, reply) => {
        const { user_id, newsletter_id, token } = request.params;
        if (!unsubscribeTokenMatches(linkKey(), user_id, newsletter_id, token)) return unknown(reply);
        if (!(await store.consents.get(user_id, newsletter_id))) return unknown(reply);
        return show(reply, unsubscribePage(newsletter_id));
      },
    );

    pages.post(
      '/links/unsubscribe/:user_id/:newsletter_id/:token',
      pageRoute(
        'Unsubscribe in one click',
        'One-click unsubscribe (RFC 8058): the body List-Unsubscribe=One-Click, form-encoded or multipart. ' +
          'Takes the reader off this newsletter alone (source unsubscribe-link); idempotent.',
        {
          200: unsubscribeAnswer,
          400: pageOrError('The body does not carry List-Unsubscribe=One-Click; nothing changed.'),
        },
        ONE_CLICK_BODY,
      ),
      async (request, reply) => {
        const { user_id, newsletter_id, token } = request.params;
        if (!unsubscribeTokenMatches(linkKey(), user_id, newsletter_id, token)) return unknown(reply);
        const fields = request.body as Record<string, string> | undefined;
        if (fields?.[ONE_CLICK.name] !== ONE_CLICK.value) return sendPage(reply, 400, LINK_PAGES.oneClickMissing);
        const followed = await store.consents.followLink(user_id, newsletter_id, 'unsubscribe-link', audit);
        if (!followed) return unknown(reply);
        return show(reply, {
          title: 'Unsubscribed',
          text: `You will no longer receive the newsletter ${newsletter_id}.`,
        });
      },
    );
  };
  await app.register(pageRoutes);
};
