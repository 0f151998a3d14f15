/**
 * /audit-events: the audit trail for admins, oldest first, paged by cursor (`page[after]`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AUDIT_EVENTS, AuditEventAttributes } from '../../domain/audit.js';
import { formatInstant } from '../../domain/dates.js';
import { FilterValue } from '../../domain/schema.js';
import { collectionDocument, errorResponses, exampleLinks, withExample } from '../jsonapi/documents.js';
import { ADA_CREATED } from './events.js';
import { CursorLinks, cursorPage, PageAfter, PageSize, pageSizeOf } from '../jsonapi/paging.js';
import type { RouteOptions } from './options.js';

const AuditQuery = Type.Object(
  {
    'filter[actor]': Type.Optional(FilterValue(100)),
    'filter[resourceType]': Type.Optional(FilterValue(50)),
    'filter[resourceId]': Type.Optional(FilterValue(50)),
    'page[after]': PageAfter('an audit event'),
    'page[size]': PageSize,
  },
  { additionalProperties: false },
);

export const auditRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { store, baseUrl }) => {
  app.get(
    '/audit-events',
    {
      config: { scope: 'admin' },
      schema: {
        summary: 'List audit events',
        description:
          'The audit trail, oldest first, paged by cursor (page[after]) and filtered by actor and resource. Admins only.',
        querystring: AuditQuery,
        response: {
          200: withExample(
            collectionDocument(
              Type.Object({ type: Type.Literal(AUDIT_EVENTS), id: Type.String(), attributes: AuditEventAttributes }),
              CursorLinks,
            ),
            {
              links: exampleLinks('/audit-events'),
              data: [
                {
                  type: AUDIT_EVENTS,
                  id: ADA_CREATED.id,
                  attributes: {
                    occurredAt: ADA_CREATED.occurredAt,
                    actor: '3',
                    action: 'create',
                    resourceType: 'users',
                    resourceId: '42',
                    userId: '42',
                    attributes: ADA_CREATED.sent,
                  },
                },
              ],
            },
          ),
          ...errorResponses(400, 401, 403, 406, 429),
        },
      },
    },
    async (request) => {
      const query = request.query;
      const size = pageSizeOf(query);
      const events = await store.audit.list({
        afterId: query['page[after]'],
        limit: size + 1,
        actor: query['filter[actor]'],
        resourceType: query['filter[resourceType]'],
        resourceId: query['filter[resourceId]'],
      });
      const { page, links } = cursorPage(events, size, baseUrl(request), '/audit-events', query);
      return {
        links,
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
};
