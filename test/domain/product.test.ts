/**
 * Products as a store keeps them: what a create leaves out, what an update changes, and how a
 * product reads back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVERY_DAY, maskOf } from '../../src/domain/delivery-days.js';
import { newProductValues, productChanges, toProductAttributes, type Product } from '../../src/domain/product.js';

describe('a product created', () => {
  it('gives no resource or licence of its own, is delivered every day, and is on offer, unless it says otherwise', () => {
    assert.deepEqual(newProductValues({ name: 'Daily' }), {
      name: 'Daily',
      description: null,
      active: true,
      resource: null,
      license: null,
      deliveryDays: EVERY_DAY,
    });
  });

  it('keeps what it is sent, its delivery days as a mask', () => {
    assert.deepEqual(
      newProductValues({
        name: 'Weekend',
        description: 'Saturday and Sunday',
        active: false,
        resource: 'print',
        license: 'individual',
        deliveryDays: ['sunday', 'saturday'],
      }),
      {
        name: 'Weekend',
        description: 'Saturday and Sunday',
        active: false,
        resource: 'print',
        license: 'individual',
        deliveryDays: maskOf(['saturday', 'sunday']),
      },
    );
  });

  it('may be delivered on no day at all', () => {
    assert.equal(newProductValues({ name: 'Online', deliveryDays: [] }).deliveryDays, 0);
  });
});

describe('a product changed', () => {
  it('changes only what is sent, delivery days as a mask', () => {
    assert.deepEqual(productChanges({ name: 'Renamed' }), { name: 'Renamed' });
    assert.deepEqual(productChanges({ resource: null, deliveryDays: ['monday'] }), {
      resource: null,
      deliveryDays: maskOf(['monday']),
    });
    assert.deepEqual(productChanges({ deliveryDays: [] }), { deliveryDays: 0 });
  });
});

describe("a product's attributes", () => {
  it('give its delivery days as weekdays in week order, and its times as instants', () => {
    const product: Product = {
      id: 'weekend',
      name: 'Weekend',
      description: null,
      active: true,
      createdAt: Date.parse('2026-03-01T10:00:00Z') / 1000,
      updatedAt: Date.parse('2026-03-02T11:30:00Z') / 1000,
      version: 3,
      resource: 'print-online',
      license: 'site',
      deliveryDays: maskOf(['sunday', 'saturday']),
    };
    assert.deepEqual(toProductAttributes(product), {
      name: 'Weekend',
      description: null,
      active: true,
      createdAt: '2026-03-01T10:00:00+00:00',
      updatedAt: '2026-03-02T11:30:00+00:00',
      resource: 'print-online',
      license: 'site',
      deliveryDays: ['saturday', 'sunday'],
    });
  });
});
