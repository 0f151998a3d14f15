/**
 * Webhooks: endpoints that receive the events of users, subscriptions and the catalogue as they
 * happen, signed per the Standard Webhooks specification, retried with exponential backoff and
 * jitter.
 *
 * A webhook's signing secret is never stored: the database keeps a random salt per webhook, and
 * the secret is derived from it with the service's webhook key (HMAC-SHA256, a pseudo-random
 * function), so a copy of the database alone signs nothing.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import ipaddr from 'ipaddr.js';
import { EVENT_TYPES, type EventType } from './events.js';
import { StringEnum } from './schema.js';

export const WEBHOOKS = 'webhooks' as const;
export const WEBHOOK_DELIVERIES = 'webhook-deliveries' as const;

/**
 * An endpoint's address: absolute http(s), without a user name or password (it is shown to every
 * admin) and without a fragment (it would never be sent).
 */
export function isEndpointUrl(text: string): boolean {
  if (/[\s#]/.test(text) || !URL.canParse(text)) return false;
  const url = new URL(text);
  return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
}

/**
 * Where webhooks may be delivered. By default only to public unicast addresses: a webhook URL is
 * chosen by whoever holds an admin credential, and must not make the service a door into the
 * network it runs in (loopback, private, link-local, unique-local, unspecified, multicast and
 * every other special range are refused). A deployment whose receivers are internal names their
 * networks (WEBHOOK_ALLOWED_NETWORKS), which are allowed as well.
 */
export type AllowedNetworks = readonly (readonly [ipaddr.IPv4 | ipaddr.IPv6, number])[];

/** The networks of WEBHOOK_ALLOWED_NETWORKS: addresses or CIDR ranges, comma-separated; throws on a bad one. */
export function parseNetworks(text: string): AllowedNetworks {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      if (ipaddr.isValidCIDR(part)) return ipaddr.parseCIDR(part);
      if (!ipaddr.isValid(part)) throw new Error(`"${part}" is not an IP address or a CIDR range`);
      const address = ipaddr.parse(part);
      return [address, address.kind() === 'ipv4' ? 32 : 128] as const;
    });
}

/** Whether a webhook may be delivered to this IP address. */
export function isAllowedDestination(address: string, allowed: AllowedNetworks): boolean {
  if (!ipaddr.isValid(address)) return false;
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it is.
  const ip = ipaddr.process(address);
  if (allowed.some(([network, bits]) => network.kind() === ip.kind() && ip.match(network, bits))) return true;
  return ip.range() === 'unicast';
}

/**
 * Whether an endpoint's URL names a destination refused before any lookup: an IP address that is
 * not allowed, or a name that is loopback by definition (localhost). Other names are judged by the
 * addresses they resolve to, when each delivery connects.
 */
export function isRefusedLiteral(url: string, allowed: AllowedNetworks): boolean {
  // Stryker disable next-line Regex: a URL's hostname holds brackets only around an IPv6 address, first and last
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return !isAllowedDestination('127.0.0.1', allowed) || !isAllowedDestination('::1', allowed);
  }
  return ipaddr.isValid(host) && !isAllowedDestination(host, allowed);
}

const WebhookUrl = Type.String({
  maxLength: 2048,
  format: 'endpoint-url',
  errorMessage: { format: 'must be an absolute http:// or https:// URL without credentials or a fragment' },
  description: 'Where the events are POSTed: an absolute http(s) URL.',
});

const WebhookEvents = Type.Array(StringEnum(EVENT_TYPES), {
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  uniqueItems: true,
  description: 'The event types this endpoint receives.',
});

export const WebhookCreateAttributes = Type.Object(
  { url: WebhookUrl, events: WebhookEvents },
  { additionalProperties: false },
);

export const WebhookUpdateAttributes = Type.Object(
  { url: Type.Optional(WebhookUrl), events: Type.Optional(WebhookEvents) },
  { additionalProperties: false },
);

export const WebhookAttributes = Type.Object({
  url: Type.String(),
  events: Type.Array(StringEnum(EVENT_TYPES)),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export interface Webhook {
  id: string;
  url: string;
  events: EventType[];
  /** Random, per webhook: what its signing secret is derived from. Not itself a secret. */
  secretSalt: string;
  createdAt: number;
  updatedAt: number;
  /** Goes up by one with every change: the resource's ETag. */
  version: number;
}

export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface WebhookDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: EventType;
  /** The user the event is about; null for an event about the catalogue. */
  userId: string | null;
  state: DeliveryState;
  attempts: number;
  /** Epoch milliseconds, as every instant of a delivery: retries come seconds apart, or less. */
  createdAt: number;
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: number | null;
  /** Goes up by one with every change (each attempt, its outcome, a redelivery): the ETag. */
  version: number;
}

export const DeliveryAttributes = Type.Object({
  eventId: Type.String({ description: 'The id of the event (as in /events), and the webhook-id header.' }),
  eventType: StringEnum(EVENT_TYPES),
  userId: Type.Union([Type.String(), Type.Null()], {
    description: 'The user the event is about; null for an event about a product or a newsletter.',
  }),
  state: StringEnum(DELIVERY_STATES, {
    description: 'pending until the endpoint answers 2xx (delivered) or every attempt has failed (failed).',
  }),
  attempts: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  lastAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  lastStatus: Type.Union([Type.Integer(), Type.Null()], { description: "The endpoint's last HTTP status." }),
  lastError: Type.Union([Type.String(), Type.Null()], { description: 'Why the last attempt failed.' }),
  deliveredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export function newSecretSalt(): string {
  return randomBytes(16).toString('hex');
}

/** The signing secret of a webhook, in the Standard Webhooks form `whsec_<base64>`. */
export function signingSecret(webhookKey: Buffer, secretSalt: string): string {
  const bytes = createHmac('sha256', webhookKey).update(`circulation webhook secret\0${secretSalt}`).digest();
  return `whsec_${bytes.toString('base64')}`;
}

/**
 * The `webhook-signature` header of a message: `v1,` and the base64 HMAC-SHA256, keyed with the
 * secret's bytes, of `<id>.<timestamp>.<body>` (Standard Webhooks).
 */
export function signature(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const mac = createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

export interface RetryPolicy {
  /** The wait before the second attempt; it doubles with each failure. */
  baseMs: number;
  /** No wait is longer. */
  maxMs: number;
  /** After this many attempts a delivery is failed. */
  maxAttempts: number;
}

/**
 * The wait after the `attempt`-th failed attempt: exponential, capped, with "equal jitter" (half
 * fixed, half random), so that endpoints coming back from an outage are not hit in lockstep.
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const exponential = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(attempt - 1, 40));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}

/** How an attempt went: the endpoint's HTTP status, or why there was none. */
export type AttemptResult = { status: number } | { error: string };

/**
 * What follows an attempt: a 2xx delivers; anything else waits for the next attempt, or fails the
 * delivery for good when it was the last one allowed. Instants in epoch milliseconds.
 */
export function attemptOutcome(
  result: AttemptResult,
  attempts: number,
  now: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
) {
  const status = 'status' in result ? result.status : null;
  if (
    // Stryker disable next-line ConditionalExpression,LogicalOperator: null >= 200 is false; the check is for the type
    status !== null &&
    status >= 200 &&
    status < 300
  ) {
    return { state: 'delivered' as const, at: now, nextAttemptAt: null, status, error: null };
  }
  const error = 'error' in result ? result.error : `the endpoint answered ${status}`;
  if (attempts >= policy.maxAttempts) return { state: 'failed' as const, at: now, nextAttemptAt: null, status, error };
  return {
    state: 'pending' as const,
    at: now,
    nextAttemptAt: now + retryDelayMs(policy, attempts, random),
    status,
    error,
  };
}
