import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVENT_TYPES, eventTypeOf } from '../../src/domain/events.js';

describe('eventTypeOf', () => {
  it('names an event for every change to a user or a subscription, and every event type has a change', () => {
    const named = [
      eventTypeOf('users', 'create'),
      eventTypeOf('users', 'update'),
      eventTypeOf('users', 'delete'),
      eventTypeOf('users', 'sign-in'),
      eventTypeOf('subscriptions', 'create'),
      eventTypeOf('subscriptions', 'update'),
      eventTypeOf('subscriptions', 'delete'),
      eventTypeOf('subscriptions', 'expire'),
    ];
    assert.deepEqual(named, [...EVENT_TYPES]);
  });

  it('names none for changes to credentials, webhooks and reset tokens, which are not events', () => {
    assert.equal(eventTypeOf('api-keys', 'create'), null);
    assert.equal(eventTypeOf('api-keys', 'revoke'), null);
    assert.equal(eventTypeOf('webhooks', 'update'), null);
    assert.equal(eventTypeOf('password-reset-tokens', 'create'), null);
  });
});
