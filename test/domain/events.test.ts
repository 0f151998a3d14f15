import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuditEvent } from '../../src/domain/audit.js';
import { EVENT_TYPES, eventTypeOf, toEventResource } from '../../src/domain/events.js';

describe('eventTypeOf', () => {
  it('names an event for every change to a user, a subscription, the catalogue, print circulation or a licence’s seats, and every event type has a change', () => {
    const named = [
      eventTypeOf('users', 'create'),
      eventTypeOf('users', 'update'),
      eventTypeOf('users', 'delete'),
      eventTypeOf('users', 'sign-in'),
      eventTypeOf('subscriptions', 'create'),
      eventTypeOf('subscriptions', 'update'),
      eventTypeOf('subscriptions', 'delete'),
      eventTypeOf('subscriptions', 'expire'),
      eventTypeOf('products', 'create'),
      eventTypeOf('products', 'update'),
      eventTypeOf('products', 'delete'),
      eventTypeOf('newsletters', 'create'),
      eventTypeOf('newsletters', 'update'),
      eventTypeOf('newsletters', 'delete'),
      eventTypeOf('holds', 'create'),
      eventTypeOf('holds', 'update'),
      eventTypeOf('holds', 'withdraw'),
      eventTypeOf('temporary-addresses', 'create'),
      eventTypeOf('temporary-addresses', 'update'),
      eventTypeOf('temporary-addresses', 'delete'),
      eventTypeOf('delivery-complaints', 'create'),
      eventTypeOf('newsletter-consents', 'create'),
      eventTypeOf('privacy-requests', 'create'),
      eventTypeOf('privacy-requests', 'update'),
      eventTypeOf('seats', 'create'),
      eventTypeOf('seats', 'delete'),
    ];
    assert.deepEqual(named, [...EVENT_TYPES]);
    // A consent's first change creates it, a later one updates it: either is the one change event.
    assert.equal(eventTypeOf('newsletter-consents', 'update'), 'newsletter_consent.changed');
    assert.equal(eventTypeOf('newsletter-consents', 'delete'), null);
  });

  it('names none for changes to credentials, webhooks and reset tokens, which are not events', () => {
    assert.equal(eventTypeOf('api-keys', 'create'), null);
    assert.equal(eventTypeOf('api-keys', 'revoke'), null);
    assert.equal(eventTypeOf('webhooks', 'update'), null);
    assert.equal(eventTypeOf('password-reset-tokens', 'create'), null);
  });
});

describe('toEventResource', () => {
  const entry: AuditEvent = {
    id: '99',
    occurredAt: 1_767_225_600,
    actor: '17',
    action: 'update',
    resourceType: 'users',
    resourceId: '42',
    userId: '42',
    attributes: ['email', 'name'],
    eventType: 'user.updated',
    consent: null,
  };

  it('shows an event with its ids and the names of what changed, never who made it', () => {
    assert.deepEqual(toEventResource(entry), {
      type: 'events',
      id: '99',
      attributes: {
        eventType: 'user.updated',
        occurredAt: '2026-01-01T00:00:00+00:00',
        userId: '42',
        resourceType: 'users',
        resourceId: '42',
        changed: ['email', 'name'],
      },
    });
  });

  it('carries a consent change’s states and source', () => {
    const consent = { oldState: null, newState: 'subscribed', source: 'api' } as const;
    const resource = toEventResource({
      ...entry,
      resourceType: 'newsletter-consents',
      eventType: 'newsletter_consent.changed',
      consent,
    });
    assert.deepEqual(resource.attributes.consent, consent);
  });
});
