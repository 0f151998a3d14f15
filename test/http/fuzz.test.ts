/**
 * Property-based: arbitrary JSON documents, query strings, headers and path segments thrown at
 * every route never get a 5xx, and an answer of 4xx never comes with a change in the store.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createSubscription, createUser, createWebhook } from '../support/fixtures.js';
import { MEDIA_TYPE, startService, type Service } from '../support/service.js';
import { forEachStore } from '../support/stores.js';

const ROUTES: [string, string][] = [
  ['POST', '/users'],
  ['GET', '/users'],
  ['GET', '/users/{user}'],
  ['PUT', '/users/{user}'],
  ['PATCH', '/users/{user}'],
  ['DELETE', '/users/{user}'],
  ['POST', '/users/{user}/subscriptions'],
  ['GET', '/users/{user}/subscriptions'],
  ['GET', '/users/{user}/subscriptions/{subscription}'],
  ['PUT', '/users/{user}/subscriptions/{subscription}'],
  ['PATCH', '/users/{user}/subscriptions/{subscription}'],
  ['DELETE', '/users/{user}/subscriptions/{subscription}'],
  ['PUT', '/users/{user}/subscriptions/{subscription}/expire'],
  ['GET', '/users/{user}/access'],
  ['POST', '/products'],
  ['GET', '/products'],
  ['PATCH', '/products/{product}'],
  ['DELETE', '/products/{product}'],
  ['POST', '/newsletters'],
  ['PUT', '/newsletters/{newsletter}'],
  ['POST', '/api-keys'],
  ['GET', '/api-keys/{key}'],
  ['GET', '/audit-events'],
  ['POST', '/webhooks'],
  ['PATCH', '/webhooks/{webhook}'],
  ['DELETE', '/webhooks/{webhook}'],
  ['GET', '/webhooks/{webhook}/deliveries'],
  ['POST', '/webhooks/{webhook}/deliveries/{delivery}/redeliver'],
];

const ATTRIBUTE_NAMES = [
  'email',
  'password',
  'familyName',
  'givenName',
  'address',
  'worksFor',
  'demographics',
  'newsletters',
  'dateStarted',
  'dateEnded',
  'license',
  'resource',
  'trial',
  'externalIdentifier',
  'name',
  'scopes',
  'rateLimit',
  'url',
  'events',
  'description',
  'active',
];

/** Mostly JSON:API-shaped documents with arbitrary parts, and now and then any JSON at all. */
const body = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        data: fc.record(
          {
            type: fc.oneof(
              fc.constantFrom('users', 'subscriptions', 'api-keys', 'webhooks', 'products', 'newsletters'),
              fc.jsonValue(),
            ),
            id: fc.oneof(fc.constant('1'), fc.string(), fc.jsonValue()),
            attributes: fc.oneof(
              fc.dictionary(fc.oneof(fc.constantFrom(...ATTRIBUTE_NAMES), fc.string()), fc.jsonValue()),
              fc.jsonValue(),
            ),
            relationships: fc.jsonValue(),
          },
          { requiredKeys: [] },
        ),
        meta: fc.jsonValue(),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue() },
  { weight: 1, arbitrary: fc.string().map((text) => ({ raw: text })) },
);

const segment = fc.oneof(
  fc.constantFrom('1', '2', '0', '-1', '1e3', '99999999999999999999'),
  fc.string({ maxLength: 40 }),
);
const query = fc.array(
  fc.tuple(
    fc.oneof(
      fc.constantFrom(
        'filter[email]',
        'filter[circulationNumber]',
        'page[number]',
        'page',
        'page[size]',
        'page[after]',
        'include',
        'sort',
        'filter[state]',
        'filter[newsletter]',
        'filter[status]',
        'filter[resource]',
        'filter[product]',
        'filter[active]',
      ),
      fc.string({ maxLength: 20 }),
    ),
    fc.string({ maxLength: 40 }),
  ),
  { maxLength: 4 },
);
const contentType = fc.constantFrom(
  MEDIA_TYPE,
  'application/json',
  `${MEDIA_TYPE}; ext="x"`,
  'text/plain',
  'application/json; charset=latin1',
);
const accept = fc.constantFrom(
  MEDIA_TYPE,
  '*/*',
  'application/json',
  'text/html',
  `${MEDIA_TYPE}; profile="x"`,
  `${MEDIA_TYPE}; ext="x"`,
);

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
    await createWebhook(service.client);
    const userId = await createUser(service.client);
    await createSubscription(service.client, userId);
  });
  after(() => service.close());

  for (const [method, template] of ROUTES) {
    describe(`${method} ${template}`, () => {
      it('never answers 5xx, and never changes the store when it answers 4xx', async () => {
        await fc.assert(
          fc.asyncProperty(
            segment,
            segment,
            query,
            body,
            contentType,
            accept,
            async (id, other, parameters, document, type, acceptHeader) => {
              const path = template
                .replace(/\{(user|webhook|product|newsletter)\}/, encodeURIComponent(id))
                .replace(/\{(subscription|key|delivery)\}/, encodeURIComponent(other));
              const search = parameters.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
              const raw = document as { raw?: string };
              const payload =
                method === 'GET' || method === 'DELETE'
                  ? undefined
                  : typeof raw?.raw === 'string'
                    ? raw.raw
                    : JSON.stringify(document);
              const state = await service.snapshot();
              const response = await fetch(`${service.baseUrl}${path}${search ? `?${search}` : ''}`, {
                method,
                headers: {
                  authorization: `Bearer ${service.client.credential}`,
                  accept: acceptHeader,
                  ...(payload === undefined ? {} : { 'content-type': type }),
                },
                body: payload,
              });
              const text = await response.text();
              assert.ok(
                response.status < 500,
                `${method} ${path}?${search} → ${response.status}: ${text.slice(0, 300)}`,
              );
              if (response.status >= 400) {
                assert.equal(
                  await service.snapshot(),
                  state,
                  `${method} ${path} answered ${response.status} but changed the store`,
                );
                assert.ok(JSON.parse(text).errors.length > 0);
              }
            },
          ),
          { numRuns: 60 },
        );
      });
    });
  }
});
