/**
 * Newsletters as a store keeps them: what a create leaves out, and how one reads back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newNewsletterValues, toNewsletterAttributes } from '../../src/domain/newsletter.js';

describe('a newsletter created', () => {
  it('takes a reader at once, and is on offer, unless it says otherwise', () => {
    assert.deepEqual(newNewsletterValues({ name: 'Weekly' }), {
      name: 'Weekly',
      description: null,
      active: true,
      doubleOptIn: false,
    });
  });

  it('keeps what it is sent', () => {
    assert.deepEqual(
      newNewsletterValues({ name: 'Offers', description: 'Now and then', active: false, doubleOptIn: true }),
      { name: 'Offers', description: 'Now and then', active: false, doubleOptIn: true },
    );
  });
});

describe("a newsletter's attributes", () => {
  it('give whether it asks for confirmation, and its times as instants', () => {
    assert.deepEqual(
      toNewsletterAttributes({
        id: 'offers',
        name: 'Offers',
        description: 'Now and then',
        active: false,
        createdAt: Date.parse('2026-03-01T10:00:00Z') / 1000,
        updatedAt: Date.parse('2026-03-02T11:30:00Z') / 1000,
        version: 2,
        doubleOptIn: true,
      }),
      {
        name: 'Offers',
        description: 'Now and then',
        active: false,
        createdAt: '2026-03-01T10:00:00+00:00',
        updatedAt: '2026-03-02T11:30:00+00:00',
        doubleOptIn: true,
      },
    );
  });
});
