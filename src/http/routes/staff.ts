/**
 * /staff: admins open, list, read, change and disable the accounts of the publisher's staff.
 * A password made for a new account (when none is sent) is in the create response's
 * `meta.initialPassword`, and nowhere ever again. Disabling an account ends its sessions at once.
 *
 * A password changes with the account's PATCH, as a reader's does with theirs, and not at a route
 * of its own: it is an attribute of the account (write-only), it shares the account's version
 * and audit entry, and the console already changes accounts there. So the PATCH is open to any
 * credential that may write, and decides by what is sent: every attribute of any account needs
 * admin, but a staff member's own session may change its own password with `currentPassword`
 * (see use-cases/staff/passwords.ts), an admin's as well, and that change ends their other sessions.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { allows } from '../../domain/api-key.js';
import { sentAttributeNames } from '../../domain/audit.js';
import { clientNetwork } from '../../domain/client-network.js';
import { formatInstant, nowInSeconds } from '../../domain/dates.js';
import { failures, type Problem } from '../../domain/failures.js';
import {
  STAFF,
  StaffAttributes,
  StaffCreateAttributes,
  StaffUpdateAttributes,
  type StaffMember,
} from '../../domain/staff.js';
import { newPasswordProblems } from '../../domain/user.js';
import type { ReaderSettings } from '../../use-cases/readers/settings.js';
import { changeStaffAccount, openStaffAccount } from '../../use-cases/staff/accounts.js';
import { errors } from '../errors.js';
import { answeredNotModified, etagOf, ifMatchVersions, NotModifiedResponse } from '../jsonapi/etag.js';
import {
  collectionDocument,
  createDocument,
  errorResponses,
  exampleLinks,
  resourceObject,
  singleDocument,
  updateDocument,
  withExample,
} from '../jsonapi/documents.js';
import { auditOf } from '../plugins/auth.js';
import type { RouteOptions } from './options.js';
import { withHeaders } from '../jsonapi/response-headers.js';

const StaffParams = Type.Object({ staff_id: Type.String({ pattern: '^[1-9][0-9]{0,14}$' }) });
export const StaffResource = resourceObject(STAFF, StaffAttributes);

/** Mary, an agent of customer service, as /docs shows her. */
export const MARY = { email: 'mary@publisher.example', name: 'Mary Kenwood', role: 'agent' } as const;
export const MaryResource = {
  type: STAFF,
  id: '3',
  attributes: { ...MARY, createdAt: '2026-01-05T09:00:00+00:00', disabledAt: null },
  links: exampleLinks('/staff/3'),
} satisfies Static<typeof StaffResource>;
const StaffDocument = withExample(singleDocument(StaffResource), { data: MaryResource });
const ADMIN = { scope: 'admin' } as const;
const DENIALS = [401, 403, 406, 429];

export function renderStaff(baseUrl: string, member: StaffMember) {
  return {
    type: STAFF,
    id: member.id,
    attributes: {
      email: member.email,
      name: member.name,
      role: member.role,
      createdAt: formatInstant(member.createdAt),
      disabledAt: member.disabledAt === null ? null : formatInstant(member.disabledAt),
    },
    links: { self: `${baseUrl}/staff/${member.id}` },
  };
}

export const staffRoutes: FastifyPluginAsyncTypebox<RouteOptions & { readers: ReaderSettings }> = async (
  app,
  { store, baseUrl, readers },
) => {
  const render = (request: FastifyRequest, member: StaffMember) => renderStaff(baseUrl(request), member);

  app.post(
    '/staff',
    {
      config: { ...ADMIN, showsSecret: true },
      schema: {
        summary: 'Open a staff account',
        description:
          'A password made when none is sent is in this answer’s meta.initialPassword and nowhere ever again. Admins only.',
        body: withExample(createDocument(STAFF, StaffCreateAttributes), { data: { type: STAFF, attributes: MARY } }),
        response: {
          201: withHeaders(
            withExample(
              Type.Object({
                data: StaffResource,
                meta: Type.Optional(
                  Type.Object({
                    initialPassword: Type.String({
                      description: 'Made when no password was sent; shown this once, only its hash is kept.',
                    }),
                  }),
                ),
              }),
              { data: MaryResource, meta: { initialPassword: 'nsvieuTPRVK_2JKJ531rlhKh' } },
            ),
            'Location',
            'ETag',
          ),
          ...errorResponses(400, 409, 413, 415, 422, ...DENIALS),
        },
      },
    },
    async (request, reply) => {
      const { data } = request.body;
      if (data.id !== undefined) throw errors.clientGeneratedId();
      const { password } = data.attributes;
      if (password !== undefined) {
        const problems = newPasswordProblems(password, '/data/attributes/password');
        if (problems.length > 0) throw failures.invalid(problems);
      }
      const { member, initialPassword } = await openStaffAccount(
        store,
        data.attributes,
        auditOf(request, sentAttributeNames(data.attributes)),
      );
      const resource = render(request, member);
      return reply
        .status(201)
        .headers({ location: resource.links.self, etag: etagOf(member.version) })
        .send({ data: resource, ...(initialPassword === undefined ? {} : { meta: { initialPassword } }) });
    },
  );

  app.get(
    '/staff',
    {
      config: ADMIN,
      schema: {
        summary: 'List staff accounts',
        description: 'Every account of the publisher’s staff. Admins only.',
        response: {
          200: withExample(collectionDocument(StaffResource), { links: exampleLinks('/staff'), data: [MaryResource] }),
          ...errorResponses(...DENIALS),
        },
      },
    },
    async (request) => ({
      links: { self: `${baseUrl(request)}/staff` },
      data: (await store.staff.list()).map((member) => render(request, member)),
    }),
  );

  app.get(
    '/staff/:staff_id',
    {
      config: ADMIN,
      schema: {
        summary: 'Read a staff account',
        description: 'One account of the publisher’s staff. Admins only.',
        params: StaffParams,
        response: { 200: StaffDocument, ...NotModifiedResponse, ...errorResponses(404, ...DENIALS) },
      },
    },
    async (request, reply) => {
      const member = await store.staff.get(request.params.staff_id);
      if (!member) throw noSuchStaff(request.params.staff_id);
      if (answeredNotModified(request, reply, member.version)) return reply;
      return reply.send({ data: render(request, member) });
    },
  );

  app.route({
    method: ['PUT', 'PATCH'],
    url: '/staff/:staff_id',
    // Admin for everything but a staff member's own password, which the handler tells apart.
    config: { scope: 'write' },
    schema: {
      summary: 'Update a staff account',
      description:
        'An admin changes any attribute; a staff member’s own session changes its own password with currentPassword, which ends their other sessions. Disabling an account ends its sessions at once.',
      params: StaffParams,
      body: withExample(updateDocument(STAFF, StaffUpdateAttributes), {
        data: { type: STAFF, id: '3', attributes: { disabled: false } },
      }),
      response: {
        200: withHeaders(StaffDocument, 'ETag'),
        ...errorResponses(400, 404, 409, 412, 413, 415, 422, ...DENIALS),
      },
    },
    handler: async (request, reply) => {
      const id = request.params.staff_id;
      const { data } = request.body;
      if (data.id !== id) throw errors.idConflict();
      const attributes = data.attributes ?? {};
      const { disabled, password, currentPassword, ...rest } = attributes;
      const { credential } = request;
      // The session of the staff member whose account this is, if the request comes with one.
      const ownSession =
        credential?.staff?.id === id && credential.sessionIdHash !== undefined
          ? { member: credential.staff, idHash: credential.sessionIdHash }
          : undefined;
      const own = ownSession !== undefined;
      const onlyPassword =
        password !== undefined &&
        Object.keys(attributes).every((name) => name === 'password' || name === 'currentPassword');
      // Before anything is read: a staff member who may not learn which accounts exist learns nothing here.
      if (credential && !allows(credential.scopes, 'admin') && !(own && onlyPassword)) {
        throw errors.scopeInsufficient(credential.scopes, ['admin']);
      }
      const problems = [
        ...(password === undefined ? [] : newPasswordProblems(password, '/data/attributes/password')),
        ...currentPasswordProblems({ own, password, currentPassword }),
      ];
      if (problems.length > 0) throw failures.invalid(problems);

      const ownPassword =
        password !== undefined && ownSession && currentPassword !== undefined
          ? {
              member: ownSession.member,
              currentPassword,
              password,
              network: clientNetwork(request.ip),
              sessionIdHash: ownSession.idHash,
            }
          : undefined;
      const changed = await changeStaffAccount(
        store,
        id,
        {
          ...rest,
          disabled,
          ...(ownPassword === undefined ? { password } : { ownPassword }),
          ifVersion: ifMatchVersions(request.headers['if-match']),
        },
        { limits: readers.signIn, now: nowInSeconds(), deadline: request.deadline },
        // What changed, by name: currentPassword proves who asks and changes nothing.
        auditOf(
          request,
          sentAttributeNames(attributes).filter((name) => name !== 'currentPassword'),
        ),
      );
      if (changed.outcome === 'throttled') throw errors.signInThrottled(changed.retryAfterSeconds);
      if (changed.outcome === 'none') throw noSuchStaff(id);
      const updated = changed.member;
      return reply.header('etag', etagOf(updated.version)).send({ data: render(request, updated) });
    },
  });
};

/**
 * currentPassword goes with password, from the staff member whose password it is, and only then:
 * an admin setting another's has nothing to prove, and one given where it is not checked would
 * read as if it had been.
 */
function currentPasswordProblems({
  own,
  password,
  currentPassword,
}: {
  own: boolean;
  password: string | undefined;
  currentPassword: string | undefined;
}): Problem[] {
  const pointer = '/data/attributes/currentPassword';
  if (currentPassword === undefined) {
    return own && password !== undefined ? [{ pointer, detail: 'is needed to change your own password' }] : [];
  }
  if (password === undefined) return [{ pointer, detail: 'is sent only with password' }];
  return own ? [] : [{ pointer, detail: "is sent only to change one's own password, from one's own console session" }];
}

function noSuchStaff(id: string) {
  return errors.notFound(`There is no staff member with id "${id}".`);
}
