/**
 * Collection documents put together from resource objects the store has already written as JSON
 * text: each gets its `links.self` here (the base URL is the request's), the page's links are
 * written by the serializer their schema compiles to, and the finished text is sent as it is
 * (Fastify sends a string with a JSON content type without serializing it again). The bytes are
 * those the route's response schema would write for the same document.
 */
import fastJson from 'fast-json-stringify';
import type { Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { JSONAPI } from '../plugins/media-types.js';
import type { RenderedResource } from '../../store/port.js';
import { PageLinks } from './documents.js';
import { CursorLinks } from './paging.js';

/** The links of a list by page number and of a list by cursor, as their schemas' serializers write them. */
export const writePageLinks = fastJson(PageLinks) as (links: Static<typeof PageLinks>) => string;
export const writeCursorLinks = fastJson(CursorLinks) as (links: Static<typeof CursorLinks>) => string;

/**
 * The `{"links":…,"data":[…]}` document of a page of resources (`links` already written), each
 * resource's `links.self` being `selfBase` followed by its id (an id of digits, which JSON writes
 * as it is).
 */
export function renderedCollection(links: string, resources: readonly RenderedResource[], selfBase: string): string {
  const self = JSON.stringify(selfBase).slice(0, -1);
  let data = '';
  for (const { id, json, relationships } of resources) {
    const after = relationships === undefined ? '' : `,"relationships":${relationships}`;
    data += `${data === '' ? '' : ','}${json.slice(0, -1)},"links":{"self":${self}${id}"}${after}}`;
  }
  return `{"links":${links},"data":[${data}]}`;
}

/**
 * Sends a document already written as text. The type is set first: Fastify sends a string with a
 * JSON content type as it is (a string without one would go as text/plain), and the media-types
 * hook then makes the content type exact, as for any document.
 */
export function sendRendered(reply: FastifyReply, text: string): FastifyReply {
  return reply.type(JSONAPI).send(text);
}
