/**
 * /staff: admins open, list, read, change and disable the accounts of the publisher's staff.
 * A password made for a new account (when none is sent) is in the create response's
 * `meta.initialPassword`, and nowhere ever again. Disabling an account ends its sessions at once.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { sentAttributeNames } from '../../domain/audit.js';
import { formatInstant, nowInSeconds } from '../../domain/dates.js';
import { failures } from '../../domain/failures.js';
import {
  STAFF,
  StaffAttributes,
  StaffCreateAttributes,
  StaffUpdateAttributes,
  type StaffMember,
} from '../../domain/staff.js';
import { newPasswordProblems } from '../../domain/user.js';
import { openStaffAccount } from '../../staff/accounts.js';
import { errors } from '../errors.js';
import { answeredNotModified, etagOf, ifMatchVersions, NotModifiedResponse } from '../jsonapi/etag.js';
import {
  collectionDocument,
  createDocument,
  errorResponses,
  resourceObject,
  singleDocument,
  updateDocument,
} from '../jsonapi/documents.js';
import { auditOf } from '../plugins/auth.js';
import type { RouteOptions } from './options.js';

const StaffParams = Type.Object({ staff_id: Type.String({ pattern: '^[1-9][0-9]{0,14}$' }) });
export const StaffResource = resourceObject(STAFF, StaffAttributes);
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

export const staffRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { store, baseUrl }) => {
  const render = (request: FastifyRequest, member: StaffMember) => renderStaff(baseUrl(request), member);

  app.post(
    '/staff',
    {
      config: { ...ADMIN, showsSecret: true },
      schema: {
        body: createDocument(STAFF, StaffCreateAttributes),
        response: {
          201: Type.Object({
            data: StaffResource,
            meta: Type.Optional(
              Type.Object({
                initialPassword: Type.String({
                  description: 'Made when no password was sent; shown this once, only its hash is kept.',
                }),
              }),
            ),
          }),
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
      schema: { response: { 200: collectionDocument(StaffResource), ...errorResponses(...DENIALS) } },
    },
    async (request) => ({
      links: { self: `${baseUrl(request)}/staff` },
      data: (await store.listStaff()).map((member) => render(request, member)),
    }),
  );

  app.get(
    '/staff/:staff_id',
    {
      config: ADMIN,
      schema: {
        params: StaffParams,
        response: { 200: singleDocument(StaffResource), ...NotModifiedResponse, ...errorResponses(404, ...DENIALS) },
      },
    },
    async (request, reply) => {
      const member = await store.getStaff(request.params.staff_id);
      if (!member) throw noSuchStaff(request.params.staff_id);
      if (answeredNotModified(request, reply, member.version)) return reply;
      return reply.send({ data: render(request, member) });
    },
  );

  app.route({
    method: ['PUT', 'PATCH'],
    url: '/staff/:staff_id',
    config: ADMIN,
    schema: {
      params: StaffParams,
      body: updateDocument(STAFF, StaffUpdateAttributes),
      response: {
        200: singleDocument(StaffResource),
        ...errorResponses(400, 404, 409, 412, 413, 415, 422, ...DENIALS),
      },
    },
    handler: async (request, reply) => {
      const id = request.params.staff_id;
      const { data } = request.body;
      if (data.id !== id) throw errors.idConflict();
      const { disabled, ...rest } = data.attributes ?? {};
      const updated = await store.updateStaff(
        id,
        { ...rest, ...(disabled === undefined ? {} : { disabledAt: disabled ? nowInSeconds() : null }) },
        auditOf(request, sentAttributeNames(data.attributes)),
        ifMatchVersions(request.headers['if-match']),
      );
      if (!updated) throw noSuchStaff(id);
      return reply.header('etag', etagOf(updated.version)).send({ data: render(request, updated) });
    },
  });
};

function noSuchStaff(id: string) {
  return errors.notFound(`There is no staff member with id "${id}".`);
}
