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
import type { RenderedUser } from '../../store/port.js';
import { JSONAPI } from '../plugins/media-types.js';
import { PageLinks } from './documents.js';

const writePageLinks = fastJson(PageLinks) as (links: Static<typeof PageLinks>) => string;

/**
 * The `{"links":…,"data":[…]}` document of a page of resources whose `links.self` is `path` under
 * `base` followed by their id (an id of digits, which JSON writes as it is), each with `meta.active`
 * after its links where `active` is given (a search's page: the ids of those active).
 */
export function prerenderedCollection(
  links: Static<typeof PageLinks>,
  resources: readonly RenderedUser[],
  base: string,
  path: string,
  active?: ReadonlySet<string>,
): string {
  const self = JSON.stringify(`${base}${path}`).slice(0, -1);
  let data = '';
  for (const { id, json } of resources) {
    const meta = active === undefined ? '' : `,"meta":{"active":${active.has(id)}}`;
    data += `${data === '' ? '' : ','}${json.slice(0, -1)},"links":{"self":${self}${id}"}${meta}}`;
  }
  return `{"links":${writePageLinks(links)},"data":[${data}]}`;
}

/** The `{"links":…,"data":[…]}` document of `links` written as text and resources the store wrote whole. */
export function collectionText(links: string, resources: readonly { json: string }[]): string {
  let data = '';
  for (const { json } of resources) data += `${data === '' ? '' : ','}${json}`;
  return `{"links":${links},"data":[${data}]}`;
}

/**
 * Sends a document already written as text. The type is set first: Fastify sends a string with a
 * JSON content type as it is (a string without one would go as text/plain), and the media-types
 * hook then makes the content type exact, as for any document.
 */
export function sendPrerendered(reply: FastifyReply, text: string): FastifyReply {
  return reply.type(JSONAPI).send(text);
}
