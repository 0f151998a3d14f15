/**
 * /users: create, list (paged, filtered: by email, circulation number, newsletter and active
 * subscription, or found from one search box), read, update and erase user records.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { allows } from '../../domain/api-key.js';
import { sentAttributeNames } from '../../domain/audit.js';
import type { MembershipSource } from '../../domain/consent.js';
import { nowInSeconds } from '../../domain/dates.js';
import { userSubscriptionFilter } from '../../domain/entitlement.js';
import { FilterValue } from '../../domain/schema.js';
import { licenceSearchKeys } from '../../domain/site-licence.js';
import { UserFilterValues } from '../../domain/user-filters.js';
import { errors } from '../errors.js';
import { USERS, UserCreateAttributes, UserUpdateAttributes, type UserUpdate } from '../../domain/user.js';
import { SEARCH_MAX_LENGTH, SEARCH_PAGE_SIZE, SIMILAR_NAME_MIN, searchRange } from '../../domain/search.js';
import type { EmailFilter, StoredUser, UserPage } from '../../store/port.js';
import {
  createUser,
  listRenderedUsers,
  listUsers,
  readUser,
  updateUser,
  type FirstSubscriptions,
} from '../../use-cases/users.js';
import {
  compoundCollectionDocument,
  compoundDocument,
  createDocument,
  errorResponses,
  EXAMPLE_BASE,
  PageLinks,
  singleDocument,
  withExample,
  updateDocument,
} from '../jsonapi/documents.js';
import { auditOf } from '../plugins/auth.js';
import { answeredNotModified, etagOf, ifMatchVersions, NotModifiedResponse } from '../jsonapi/etag.js';
import { listLink, selfLink } from '../jsonapi/links.js';
import { prerenderedCollection, sendPrerendered } from '../jsonapi/prerendered.js';
import { numberedPaging, pageNumberOf, PageSize, pageSizeOf, type ListRead, type PageUrl } from '../jsonapi/paging.js';
import {
  ADA,
  AdaResource,
  fieldSet,
  IncludeSubscriptions,
  MAX_INCLUDED_SUBSCRIPTIONS,
  renderSubscription,
  renderUser,
  ResourceFilter,
  SubscriptionFields,
  SubscriptionResource,
  UserFields,
  UserResource,
} from '../jsonapi/resources.js';
import { UserParams } from '../jsonapi/params.js';
import type { RouteOptions } from './options.js';
import { withHeaders } from '../jsonapi/response-headers.js';

const UserDocument = withExample(singleDocument(UserResource), { data: AdaResource });
const UserCompoundDocument = withExample(compoundDocument(UserResource, SubscriptionResource), { data: AdaResource });

const ReadQuery = {
  include: IncludeSubscriptions,
  'fields[users]': UserFields,
  'fields[subscriptions]': SubscriptionFields,
};

const PageNumber = Type.String({
  pattern: '^[1-9][0-9]{0,6}$',
  errorMessage: { pattern: 'must be a whole number from 1 to 9999999' },
});

const ReadQueryObject = Type.Object(ReadQuery, { additionalProperties: false });

/** GET /users's query string as the client sends it; the route makes the store's UserListQuery of it. */
const UserListQuerystring = Type.Object(
  {
    'filter[q]': Type.Optional(
      FilterValue(
        SEARCH_MAX_LENGTH,
        'Find a reader: users whose email, family name or given name starts with it (without regard to case or ' +
          `accents: muller finds Müller; nor to apostrophes, hyphens and spaces in names: obrien finds O'Brien), ` +
          'or whose circulation number or id it is; of several words, users whose given or family name each ' +
          `word starts (priya nunez, nunez priya). Pages of ${SEARCH_PAGE_SIZE} unless page[size] says otherwise. ` +
          'With sort=relevance, names one typo from it as well (see sort).',
      ),
    ),
    'filter[email]': Type.Optional(UserFilterValues.email),
    'filter[circulationNumber]': Type.Optional(UserFilterValues.circulationNumber),
    'filter[newsletter]': Type.Optional(UserFilterValues.newsletter),
    'filter[licenceDomain]': Type.Optional(UserFilterValues.licenceDomain),
    'filter[status]': Type.Optional(
      Type.String({
        pattern: '^active$',
        errorMessage: { pattern: 'can only be active: users are found by their active subscriptions' },
        description:
          'active: only users with a subscription active now (narrowed by filter[resource] and filter[product]).',
      }),
    ),
    'filter[resource]': ResourceFilter(
      'With filter[status]=active: only users with an active subscription that gives it.',
    ),
    'filter[product]': Type.Optional(UserFilterValues.product),
    'page[number]': Type.Optional(PageNumber),
    page: Type.Optional({ ...PageNumber, description: 'Same as page[number].' }),
    'page[after]': Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,15}$',
        errorMessage: { pattern: 'must be a user id' },
        description:
          'Start after this user id: what links.next carries, so that a page at any depth is an index seek. A page ' +
          "read from one filter's index and checked against the others reads at most PAGE_READ_LIMIT entries, and may " +
          'hold fewer users than page[size], or none, before the end of the list: follow links.next until there is none.',
      }),
    ),
    ...ReadQuery,
    sort: Type.Optional(
      Type.String({
        pattern: '^(-?id|relevance)$',
        errorMessage: { pattern: 'can only be id, -id or relevance' },
        description:
          'id (the default) or -id; or, with filter[q], relevance: the users it matches (in id order), and after ' +
          'them, where they leave room on the first page (there being no next), those whose family or given name ' +
          `is one typo from a text of one word (a name of ${SIMILAR_NAME_MIN} letters or more: nunes finds Nunez), ` +
          'closest first. Only with no other filter; links.next never leads to more of them.',
      }),
    ),
    'page[size]': PageSize,
  },
  { additionalProperties: false },
);
type UserListQuerystring = Static<typeof UserListQuerystring>;

export const userRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { store, baseUrl }) => {
  const render = (request: FastifyRequest, user: StoredUser) => renderUser(baseUrl(request), user);

  /** The users as resources, with their subscriptions (read when include asked for them) in `included`. */
  const readDocument = (
    request: FastifyRequest,
    users: StoredUser[],
    included: FirstSubscriptions[] | undefined,
    query: Static<typeof ReadQueryObject>,
  ) => {
    const base = baseUrl(request);
    const userFields = fieldSet(query['fields[users]']);
    if (included === undefined) return { data: users.map((user) => renderUser(base, user, userFields)) };
    const subscriptionFields = fieldSet(query['fields[subscriptions]']);
    return {
      data: users.map((user, i) => renderUser(base, user, userFields, included[i])),
      included: included.flatMap(({ first }) => first.map((s) => renderSubscription(base, s, subscriptionFields))),
    };
  };

  app.post(
    '/users',
    {
      schema: {
        summary: 'Create a user',
        description:
          'Creates a reader record; answers 201 with Location and ETag. The email must be unique (409 otherwise); only an admin may send a passwordHash.',
        body: withExample(createDocument(USERS, UserCreateAttributes), {
          data: { type: USERS, attributes: { ...ADA, password: 'correct horse battery' } },
        }),
        response: {
          201: withHeaders(UserDocument, 'Location', 'ETag'),
          ...errorResponses(400, 403, 406, 409, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { data } = request.body;
      if (data.id !== undefined) throw errors.clientGeneratedId();
      const attributes = data.attributes;
      refuseHashFromNonAdmin(request, attributes);
      const user = await createUser(
        store,
        attributes,
        { newsletterSource: membershipSourceOf(request), deadline: request.deadline },
        auditOf(request, sentAttributeNames(attributes)),
      );
      request.dataSubject = user.id;
      const resource = render(request, user);
      return reply
        .status(201)
        .headers({ location: resource.links.self, etag: etagOf(user.version) })
        .send({ data: resource });
    },
  );

  app.get(
    '/users',
    {
      schema: {
        summary: 'List users',
        description:
          'Pages through users, filtered by email, circulation number, newsletter, licence domain, subscription or one search box (filter[q]); by page[number], or by cursor with page[after].',
        querystring: UserListQuerystring,
        response: {
          200: withExample(compoundCollectionDocument(UserResource, PageLinks, SubscriptionResource), {
            links: { self: `${EXAMPLE_BASE}/users`, first: `${EXAMPLE_BASE}/users?page%5Bnumber%5D=1` },
            data: [AdaResource],
          }),
          ...errorResponses(400, 406),
        },
      },
    },
    async (request, reply) => {
      const query = request.query;
      // A page and page[number] that disagree are refused before any filter.
      pageNumberOf(query);
      const q = query['filter[q]'];
      const range = q === undefined ? undefined : searchRange(q);
      if (q !== undefined && range === undefined) {
        throw errors.invalidQueryParameter('filter[q]', 'filter[q] must contain something other than white space');
      }
      const relevance = query.sort === 'relevance';
      if (relevance && range === undefined) {
        throw errors.invalidQueryParameter('sort', 'sort=relevance ranks what filter[q] finds: send filter[q] with it');
      }
      // Names one typo off only where asked for: filter[q] alone answers the same matches as ever, in id order.
      const search = range && !relevance ? { ...range, similar: undefined } : range;
      const size = search && query['page[size]'] === undefined ? SEARCH_PAGE_SIZE : pageSizeOf(query);
      const email = query['filter[email]'];
      const paging = numberedPaging(query, size);
      const now = nowInSeconds();
      const subscriptions = userSubscriptionFilter(
        { status: query['filter[status]'], resource: query['filter[resource]'], product: query['filter[product]'] },
        now,
      );
      if (subscriptions.problem) {
        const { name, detail } = subscriptions.problem;
        throw errors.invalidQueryParameter(`filter[${name}]`, `filter[${name}] ${detail}`);
      }
      const licenceDomain = query['filter[licenceDomain]'];
      const licenceDomains = licenceDomain === undefined ? undefined : licenceSearchKeys(licenceDomain);
      if (licenceDomains && !licenceDomains.ok) {
        throw errors.invalidQueryParameter('filter[licenceDomain]', `filter[licenceDomain] ${licenceDomains.problem}`);
      }
      const listQuery = {
        search,
        licenceDomains: licenceDomains?.value,
        email: email === undefined ? undefined : emailFilter(email),
        circulationNumber: query['filter[circulationNumber]'],
        newsletter: query['filter[newsletter]'],
        activeSubscription: subscriptions.filter,
        afterId: query['page[after]'],
        offset: paging.offset,
        limit: size + 1,
        descending: query.sort === '-id',
      };
      const base = baseUrl(request);
      const self = selfLink(base, request);
      const url: PageUrl = (number, after) => listUrl(base, query, number, after);
      // A search marks whom it found with whether they have a subscription active now, so that the
      // console shows it in the one request a keystroke makes.
      const listing = {
        query: listQuery,
        size,
        markActive: search !== undefined,
        now,
        accept: (list: UserPage<unknown>) => paging.refuseShort(readOf(list)),
      };
      // Whole users, nothing included: the database writes each resource object, sent as it is.
      if (query.include === undefined && query['fields[users]'] === undefined) {
        const { list, page, active } = await listRenderedUsers(store, listing);
        const links = paging.links(self, url, readOf(list), page.at(-1)?.id);
        return sendPrerendered(reply, prerenderedCollection(links, page, base, '/users/', active));
      }
      const subscriptionsEach = query.include === undefined ? undefined : MAX_INCLUDED_SUBSCRIPTIONS;
      const { list, page, active, subscriptions: included } = await listUsers(store, listing, subscriptionsEach);
      const document = readDocument(request, page, included, query);
      return {
        links: paging.links(self, url, readOf(list), page.at(-1)?.id),
        ...document,
        ...(active === undefined
          ? {}
          : { data: document.data.map((user) => ({ ...user, meta: { active: active.has(user.id) } })) }),
      };
    },
  );

  app.get(
    '/users/:user_id',
    {
      schema: {
        summary: 'Read a user',
        description:
          'One user, with their subscriptions in `included` when include=subscriptions. If-None-Match with its ETag answers 304.',
        params: UserParams,
        querystring: ReadQueryObject,
        response: { 200: UserCompoundDocument, ...NotModifiedResponse, ...errorResponses(404, 406) },
      },
    },
    async (request, reply) => {
      const { user_id } = request.params;
      const query = request.query;
      const found = await readUser(
        store,
        user_id,
        query.include === undefined ? undefined : MAX_INCLUDED_SUBSCRIPTIONS,
      );
      if (!found) throw noSuchUser(user_id);
      const { user, subscriptions } = found;
      const whole = query.include === undefined && query['fields[users]'] === undefined;
      if (whole && answeredNotModified(request, reply, user.version)) return reply;
      const document = readDocument(request, [user], subscriptions && [subscriptions], query);
      return { data: document.data[0], ...('included' in document ? { included: document.included } : {}) };
    },
  );

  app.route({
    method: ['PUT', 'PATCH'],
    url: '/users/:user_id',
    schema: {
      summary: 'Update a user',
      description:
        'Changes the attributes sent; newsletters: {add, remove} changes the reader’s consents. If-Match with an ETag writes only over that version (412 otherwise).',
      params: UserParams,
      body: withExample(updateDocument(USERS, UserUpdateAttributes), {
        data: { type: USERS, id: '42', attributes: { givenName: 'Augusta Ada' } },
      }),
      response: {
        200: withHeaders(UserDocument, 'ETag'),
        204: Type.Null(),
        ...errorResponses(400, 404, 406, 409, 413, 415, 422),
      },
    },
    handler: async (request, reply) => {
      const { user_id } = request.params;
      const { data } = request.body;
      if (data.id !== user_id) throw errors.idConflict();
      const attributes: UserUpdate = data.attributes ?? {};
      refuseHashFromNonAdmin(request, attributes);
      const user = await updateUser(
        store,
        user_id,
        {
          attributes,
          newsletterSource: membershipSourceOf(request),
          deadline: request.deadline,
          ifVersion: ifMatchVersions(request.headers['if-match']),
          // PATCH answers as JSON:API clients expect: the resource as it now is.
          answer: request.method !== 'PUT',
        },
        auditOf(request, sentAttributeNames(attributes)),
      );
      if (user === undefined) throw noSuchUser(user_id);
      if (user === null) return reply.status(204).send(null);
      return reply.header('etag', etagOf(user.version)).send({ data: render(request, user) });
    },
  });

  app.delete(
    '/users/:user_id',
    {
      schema: {
        summary: 'Erase a user',
        description:
          'Erases the reader record; 404 when there is none. If-Match with an ETag erases only that version (412 otherwise).',
        params: UserParams,
        response: { 204: Type.Null(), ...errorResponses(404, 406) },
      },
    },
    async (request, reply) => {
      const { user_id } = request.params;
      const deleted = await store.users.delete(user_id, auditOf(request), ifMatchVersions(request.headers['if-match']));
      if (!deleted) throw noSuchUser(user_id);
      return reply.status(204).send(null);
    },
  );
};

export function noSuchUser(id: string) {
  return errors.notFound(`There is no user with id "${id}".`);
}

/** A change of a reader's newsletters made in the console's staff session is the console's; any other, a program's. */
function membershipSourceOf(request: FastifyRequest): MembershipSource {
  return request.credential?.staff ? 'console' : 'api';
}

/** A hash sets a password nobody has to type in: only an admin may bring one (with AUTH=off, anyone). */
function refuseHashFromNonAdmin(request: FastifyRequest, attributes: UserUpdate): void {
  const credential = request.credential;
  if (attributes.passwordHash !== undefined && credential && !allows(credential.scopes, 'admin')) {
    throw errors.adminOnlyAttribute('passwordHash');
  }
}

/** How far a read of the list went, as its paging sees it. */
function readOf(list: UserPage<unknown>): ListRead {
  return { count: list.users.length, readTo: list.readTo, mayStopShort: list.mayStopShort };
}

function emailFilter(value: string): EmailFilter {
  return value.includes('@') ? { address: value } : { domain: value };
}

/**
 * A page's address: the filters and size as sent, the page number, and for the next page the
 * last id seen, which makes it an index seek rather than a scan past every earlier user.
 */
function listUrl(base: string, query: UserListQuerystring, page: number, afterId?: string): string {
  const kept = (
    [
      'filter[q]',
      'filter[email]',
      'filter[circulationNumber]',
      'filter[newsletter]',
      'filter[licenceDomain]',
      'filter[status]',
      'filter[resource]',
      'filter[product]',
      'include',
      'sort',
      'fields[users]',
      'fields[subscriptions]',
      'page[size]',
    ] as const
  ).map((name) => [name, query[name]] as const);
  return listLink(base, '/users', [...kept, ['page[number]', String(page)], ['page[after]', afterId]]);
}
