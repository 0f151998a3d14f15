/**
 * /audit-events: the audit trail for admins, oldest first, paged by cursor (`page[after]`).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AUDIT_EVENTS, AuditEventAttributes } from '../../domain/audit.js';
import { formatInstant } from '../../domain/dates.js';
import type { Store } from '../../store/port.js';
import { collectionDocument, errorResponses } from '../jsonapi.js';
import { queryString } from '../links.js';

const PAGE_SIZE = 100;

const AuditQuery = Type.Object(
  {
    'filter[actor]': Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    'filter[resourceType]': Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    'filter[resourceId]': Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    'page[after]': Type.Optional(
      Type.String({ pattern: '^[0-9]{1,15}$', errorMessage: { pattern: 'must be the id of an audit event' } }),
    ),
    'page[size]': Type.Optional(
      Type.String({
        pattern: '^(100|[1-9][0-9]?)$',
        errorMessage: { pattern: 'must be a whole number from 1 to 100' },
      }),
    ),
  },
  { additionalProperties: false },
);

const AuditLinks = Type.Object({ self: Type.String(), next: Type.Optional(Type.String()) });

export function auditRoutes(
  fastify: FastifyInstance,
  store: Store,
  baseUrl: (request: FastifyRequest) => string,
): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/audit-events',
    {
      config: { scope: 'admin' },
      schema: {
        querystring: AuditQuery,
        response: {
          200: collectionDocument(
            Type.Object({ type: Type.Literal(AUDIT_EVENTS), id: Type.String(), attributes: AuditEventAttributes }),
            AuditLinks,
          ),
          ...errorResponses(400, 401, 403, 406, 429),
        },
      },
    },
    async (request) => {
      const query = request.query;
      const size = Number(query['page[size]'] ?? PAGE_SIZE);
      const events = await store.listAuditEvents({
        afterId: query['page[after]'],
        limit: size + 1,
        actor: query['filter[actor]'],
        resourceType: query['filter[resourceType]'],
        resourceId: query['filter[resourceId]'],
      });
      const page = events.slice(0, size);
      const base = baseUrl(request);
      const nextQuery = queryString([
        ...Object.entries(query).filter(([name]) => name !== 'page[after]'),
        ['page[after]', page.at(-1)?.id],
      ]);
      return {
        links: {
          self: `${base}${request.url}`,
          ...(events.length > size ? { next: `${base}/audit-events?${nextQuery}` } : {}),
        },
        data: page.map((event) => ({
          type: AUDIT_EVENTS,
          id: event.id,
          attributes: {
            occurredAt: formatInstant(event.occurredAt),
            actor: event.actor,
            action: event.action,
            resourceType: event.resourceType,
            resourceId: event.resourceId,
            userId: event.userId,
            attributes: event.attributes,
          },
        })),
      };
    },
  );
}
