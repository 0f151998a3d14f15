/**
 * Hostile input: wrong JSON types in user and subscription attributes. Whatever a client sends,
 * the answer is a 4xx JSON:API error, the process keeps serving, and a refused request leaves the
 * store as it was (see ../harness.ts).
 */
import { describe, it } from 'node:test';
import { subscriptionDocument, userDocument } from '../../../support/fixtures.js';
import { type Hostile } from '../harness.js';

export function wrongTypes(hostile: Hostile): void {
  const { refused, assertAllAt, postUser, putUser, postSubscription, putSubscription } = hostile;

  type Case = { pointer: string; attributes: (value: unknown) => Record<string, unknown>; wrong: unknown[] };

  const NOT_STRING = [42, 1.5, true, [], ['x'], {}];
  const NOT_OBJECT = ['x', 42, true, [], ['x']];
  const NOT_ARRAY = ['x', 42, true, {}];
  const NOT_STRING_ITEM = [42, true, null, [], {}];

  const attribute = (name: string, wrong: unknown[]): Case => ({
    pointer: `/data/attributes/${name}`,
    attributes: (value) => ({ [name]: value }),
    wrong,
  });
  const member = (group: string, name: string, wrong: unknown[]): Case => ({
    pointer: `/data/attributes/${group}/${name}`,
    attributes: (value) => ({ [group]: { [name]: value } }),
    wrong,
  });

  const userCases: Case[] = [
    attribute('email', [...NOT_STRING, null]),
    attribute('password', [...NOT_STRING, null]),
    attribute('familyName', [...NOT_STRING, null]),
    ...[
      'honorificPrefix',
      'givenName',
      'additionalName',
      'honorificSuffix',
      'circulationNumber',
      'internalNotes',
      'jobTitle',
      'telephone',
      'cellNumber',
      'faxNumber',
    ].map((name) => attribute(name, NOT_STRING)),
    attribute('address', NOT_OBJECT),
    ...['streetAddress', 'unitNumber', 'addressLocality', 'addressRegion', 'addressCountry', 'postalCode'].map((name) =>
      member('address', name, NOT_STRING),
    ),
    attribute('worksFor', NOT_OBJECT),
    ...['legalName', 'telephone'].map((name) => member('worksFor', name, NOT_STRING)),
    attribute('demographics', NOT_OBJECT),
    member('demographics', 'recommendations', [...NOT_ARRAY, null]),
    {
      pointer: '/data/attributes/demographics/recommendations/0',
      attributes: (value) => ({ demographics: { recommendations: [value] } }),
      wrong: NOT_STRING_ITEM,
    },
    attribute('newsletters', [...NOT_OBJECT, null]),
    member('newsletters', 'add', [...NOT_ARRAY, null]),
    member('newsletters', 'remove', [...NOT_ARRAY, null]),
    {
      pointer: '/data/attributes/newsletters/add/0',
      attributes: (value) => ({ newsletters: { add: [value] } }),
      wrong: [...NOT_STRING_ITEM, ''],
    },
    {
      pointer: '/data/attributes/newsletters/remove/0',
      attributes: (value) => ({ newsletters: { remove: [value] } }),
      wrong: [...NOT_STRING_ITEM, ''],
    },
  ];

  describe('wrong JSON types in user attributes', () => {
    for (const { pointer, attributes, wrong } of userCases) {
      it(`refuses a wrong type at ${pointer} on create with 422 there, storing nothing`, async () => {
        for (const value of wrong) {
          const errors = await refused(422, postUser(userDocument(attributes(value))));
          assertAllAt(errors, pointer);
        }
      });

      it(`refuses a wrong type at ${pointer} on update with 422 there, changing nothing`, async () => {
        for (const value of wrong) {
          const errors = await refused(422, putUser(attributes(value)));
          assertAllAt(errors, pointer);
        }
      });
    }
  });

  const subscriptionCases: Case[] = [
    attribute('dateStarted', [...NOT_STRING, null]),
    attribute('dateEnded', NOT_STRING),
    attribute('externalIdentifier', NOT_STRING),
    attribute('license', NOT_STRING),
    attribute('resource', NOT_STRING),
    attribute('trial', ['true', 'false', 1, 0, null, [], {}]),
  ];

  describe('wrong JSON types in subscription attributes', () => {
    for (const { pointer, attributes, wrong } of subscriptionCases) {
      it(`refuses a wrong type at ${pointer} on create with 422 there, storing nothing`, async () => {
        for (const value of wrong) {
          const errors = await refused(422, postSubscription(subscriptionDocument(attributes(value))));
          assertAllAt(errors, pointer);
        }
      });

      it(`refuses a wrong type at ${pointer} on update with 422 there, changing nothing`, async () => {
        for (const value of wrong) {
          const errors = await refused(422, putSubscription(attributes(value)));
          assertAllAt(errors, pointer);
        }
      });
    }

    it('refuses a product id that is not a string with 422 at /data/relationships/product/data/id', async () => {
      for (const id of [5, true, null, [], {}]) {
        const document = subscriptionDocument({}, { product: { data: { type: 'products', id } } });
        const errors = await refused(422, postSubscription(document));
        assertAllAt(errors, '/data/relationships/product/data/id');
      }
    });
  });
}
