/**
 * What every route group is given when it is registered: the store, and the base of the
 * absolute addresses its links and `Location` headers carry.
 */
import type { FastifyRequest } from 'fastify';
import type { Store } from '../../store/port.js';

export interface RouteOptions {
  store: Store;
  baseUrl: (request: FastifyRequest) => string;
}
