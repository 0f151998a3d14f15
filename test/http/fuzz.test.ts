/**
 * Property-based: arbitrary JSON documents, query strings, headers and path segments thrown at
 * every route never get a 5xx, and an answer of 4xx never comes with a change in the store.
 * The routes, and the query parameters each takes, are read from the service's own OpenAPI
 * document, so a route added later is fuzzed without anyone listing it here.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import fc from 'fast-check';
import { createSubscription, createUser, createWebhook } from '../support/fixtures.js';
import { MEDIA_TYPE, startService, type Service } from '../support/service.js';
import { forEachStore } from '../support/stores.js';

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
];

/** Values at and just past the bounds every document is held to: 100 items, 100 members. */
const nearBounds = fc.oneof(
  fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null)), { minLength: 95, maxLength: 110 }),
  fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), {
    minKeys: 95,
    maxKeys: 110,
  }),
  fc.string({ minLength: 1000, maxLength: 5000 }),
);

/** Mostly JSON:API-shaped documents with arbitrary parts, and now and then any JSON at all. */
const body = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        data: fc.record(
          {
            type: fc.oneof(fc.constantFrom('users', 'subscriptions', 'api-keys', 'webhooks'), fc.jsonValue()),
            id: fc.oneof(fc.constant('1'), fc.string(), fc.jsonValue()),
            attributes: fc.oneof(
              fc.dictionary(fc.oneof(fc.constantFrom(...ATTRIBUTE_NAMES), fc.string()), fc.jsonValue()),
              fc.dictionary(fc.constantFrom(...ATTRIBUTE_NAMES), nearBounds),
              fc.record({ newsletters: fc.record({ add: nearBounds, remove: nearBounds }) }),
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
/** Query strings of the parameters a route declares, with arbitrary values, and of any other names. */
const queryOf = (declared: readonly string[]) =>
  fc.array(
    fc.tuple(
      declared.length > 0
        ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...declared) }, fc.string({ maxLength: 20 }))
        : fc.string({ maxLength: 20 }),
      fc.oneof(
        fc.string({ maxLength: 40 }),
        // Control characters (NUL among them) come often in these.
        fc.string({ maxLength: 20, unit: 'binary-ascii' }),
        fc.constantFrom('0', '1', '100', '101', '9999999', '-id', 'subscriptions', '\u0000', 'user.created'),
      ),
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

/** Every documented operation of a service, with the query parameters it declares. */
function routesOf(service: Service): { method: string; template: string; parameters: string[] }[] {
  const document = service.app.swagger() as unknown as {
    paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>;
  };
  return Object.entries(document.paths).flatMap(([template, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method: method.toUpperCase(),
      template,
      parameters: (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
    })),
  );
}

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
    await createWebhook(service.client);
    const userId = await createUser(service.client);
    await createSubscription(service.client, userId);
  });
  after(() => service.close());

  it('never answers any documented route with a 5xx, nor changes the store when it answers 4xx', async (t) => {
    const routes = routesOf(service);
    assert.ok(routes.length >= 30, `only ${routes.length} routes are documented`);
    for (const route of routes) await t.test(`${route.method} ${route.template}`, () => fuzz(route));
  });

  /** The store's snapshot as the last answer left it, while no request may have changed it. */
  let known: string | undefined;

  async function fuzz({ method, template, parameters }: ReturnType<typeof routesOf>[number]): Promise<void> {
    await fc.assert(
      fc.asyncProperty(
        segment,
        segment,
        queryOf(parameters),
        body,
        contentType,
        accept,
        async (id, other, query, document, type, acceptHeader) => {
          // The first parameter of a path is a user or a webhook, the second what is under it.
          let n = 0;
          const path = template.replace(/\{[a-z_]+\}/g, () => encodeURIComponent((n += 1) === 1 ? id : other));
          const search = query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
          const raw = document as { raw?: string };
          const payload =
            method === 'GET' || method === 'HEAD' || method === 'DELETE'
              ? undefined
              : typeof raw?.raw === 'string'
                ? raw.raw
                : JSON.stringify(document);
          // A store that answered 4xx is the store before it (as checked), so its snapshot stands.
          const state = (known ??= await service.snapshot());
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
          assert.ok(response.status < 500, `${method} ${path}?${search} → ${response.status}: ${text.slice(0, 300)}`);
          if (response.status < 400) known = undefined;
          if (response.status >= 400) {
            assert.equal(
              await service.snapshot(),
              state,
              `${method} ${path} answered ${response.status} but changed the store`,
            );
            // A reader's link answers its page (text/html, as the document declares: the contract
            // tap holds it to that); every other error is a JSON:API error document.
            const page = response.headers.get('content-type')?.startsWith('text/html') === true;
            if (text !== '' && !page) assert.ok(JSON.parse(text).errors.length > 0, text.slice(0, 300));
          }
        },
      ),
      { numRuns: 40 },
    );
  }
});
