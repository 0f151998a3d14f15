/**
 * What every route group is given when it is registered: the store, the base of the absolute
 * addresses its links and `Location` headers carry, and the settings of print circulation.
 */
import type { FastifyRequest } from 'fastify';
import type { PrintSettings } from '../../domain/print.js';
import type { Store } from '../../store/port.js';

export interface RouteOptions {
  store: Store;
  baseUrl: (request: FastifyRequest) => string;
  /** The publication calendar and the rules of holds and complaints. */
  print: PrintSettings;
}
