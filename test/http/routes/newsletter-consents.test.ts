/**
 * Newsletter consents, through the API on every store: a reader's `newsletters` write consent
 * records (source api, console from a staff session, import from an import) and read as those
 * subscribed; every change is kept in the consent's history and is a newsletter_consent.changed
 * event; an email provider's bounce or complaint suppresses the newsletter for the reader, which
 * no add and no import undoes; a newsletter with doubleOptIn makes an add pending.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importFile, type Rejection } from '../../../src/transfer/import.js';
import { createUser, issueKey, onlyError, uniqueEmail } from '../../support/fixtures.js';
import { forEachStoreAndCitus } from '../../support/citus.js';
import { startService, type Client, type Service } from '../../support/service.js';
import { createStaff, signInSession } from '../../support/staff.js';

const consentDocument = (newsletterId: string, state: unknown) => ({
  data: { type: 'newsletter-consents', id: newsletterId, attributes: { state } },
});

const changeNewsletters = (userId: string, newsletters: { add?: string[]; remove?: string[] }) => ({
  data: { type: 'users', id: userId, attributes: { newsletters } },
});

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/;

forEachStoreAndCitus((kind) => {
  let service: Service;
  let provider: Client;
  before(async () => {
    service = await startService(kind);
    provider = service.client.as((await issueKey(service.client, ['write'])).secret);
  });
  after(() => service.close());

  /** A newsletter of a new id, with double opt-in when asked. */
  async function newsletter(doubleOptIn?: boolean): Promise<string> {
    const id = `n-${randomUUID()}`;
    const response = await service.client.post('/newsletters', {
      data: {
        type: 'newsletters',
        id,
        attributes: { name: id, ...(doubleOptIn === undefined ? {} : { doubleOptIn }) },
      },
    });
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.data.attributes.doubleOptIn, doubleOptIn ?? false);
    return id;
  }

  const consentsOf = async (userId: string) => {
    const response = await service.client.get(`/users/${userId}/newsletter-consents`);
    assert.equal(response.status, 200, response.text);
    return response.body.data as { id: string; attributes: { state: string; source: string; changedAt: string } }[];
  };
  const stateOf = async (userId: string) =>
    Object.fromEntries((await consentsOf(userId)).map((c) => [c.id, `${c.attributes.state} ${c.attributes.source}`]));
  const newslettersOf = async (userId: string) =>
    (await service.client.get(`/users/${userId}`)).body.data.attributes.newsletters as string[];
  const historyOf = async (userId: string, newsletterId: string) => {
    const response = await service.client.get(`/users/${userId}/newsletter-consents/${newsletterId}/history`);
    assert.equal(response.status, 200, response.text);
    return response.body.data as { id: string; attributes: Record<string, any> }[];
  };
  const membersOf = async (newsletterId: string) =>
    (await service.client.get(`/newsletters/${newsletterId}`)).body.data.meta.members as number;

  describe('a reader’s newsletters', () => {
    it('are consent records: subscribed, of source api, each with its newsletter and history', async () => {
      const [a, b] = [await newsletter(), await newsletter()];
      const userId = await createUser(service.client, { newsletters: { add: [b, a] } });
      const consents = await consentsOf(userId);
      assert.deepEqual(
        consents.map((c) => c.id),
        [a, b].sort(),
      );
      for (const consent of consents) {
        assert.equal(consent.attributes.state, 'subscribed');
        assert.equal(consent.attributes.source, 'api');
        assert.match(consent.attributes.changedAt, ISO);
        assert.deepEqual((consent as any).relationships.newsletter.data, { type: 'newsletters', id: consent.id });
        assert.equal(
          (consent as any).links.self,
          `${service.baseUrl}/users/${userId}/newsletter-consents/${consent.id}`,
        );
        const one = await service.client.get(`/users/${userId}/newsletter-consents/${consent.id}`);
        assert.deepEqual(one.body.data, consent);
      }
      assert.deepEqual(await newslettersOf(userId), [a, b].sort());
      const [created] = await historyOf(userId, a);
      assert.deepEqual(
        { ...created?.attributes, changedAt: undefined },
        {
          state: 'subscribed',
          source: 'api',
          changedAt: undefined,
          actor: { type: 'credentials', id: 'CIRCULATION_ADMIN_KEY', name: 'CIRCULATION_ADMIN_KEY' },
        },
      );
      assert.equal(await membersOf(a), 1);
    });

    it('leaving makes the consent unsubscribed, kept with its history oldest first; adding again subscribes', async () => {
      const a = await newsletter();
      const userId = await createUser(service.client, { newsletters: { add: [a] } });
      const etag = (await service.client.get(`/users/${userId}`)).headers.get('etag');
      assert.equal(
        (await service.client.patch(`/users/${userId}`, changeNewsletters(userId, { remove: [a] }))).status,
        200,
      );
      assert.deepEqual(await stateOf(userId), { [a]: 'unsubscribed api' });
      assert.deepEqual(await newslettersOf(userId), []);
      assert.equal(await membersOf(a), 0);
      assert.notEqual((await service.client.get(`/users/${userId}`)).headers.get('etag'), etag);
      // Removing again, or a newsletter never had, changes nothing.
      assert.equal(
        (await service.client.put(`/users/${userId}`, changeNewsletters(userId, { remove: [a, 'never'] }))).status,
        204,
      );
      assert.deepEqual(await stateOf(userId), { [a]: 'unsubscribed api' });
      assert.equal((await service.client.put(`/users/${userId}`, changeNewsletters(userId, { add: [a] }))).status, 204);
      const history = await historyOf(userId, a);
      assert.deepEqual(
        history.map((h) => h.attributes.state),
        ['subscribed', 'unsubscribed', 'subscribed'],
      );
      assert.ok(history.every((h, i) => i === 0 || Number(h.id) > Number(history[i - 1]?.id)));
      assert.deepEqual(await newslettersOf(userId), [a]);
      // A page at a time, by links.next.
      const first = await service.client.get(`/users/${userId}/newsletter-consents/${a}/history?page[size]=2`);
      assert.deepEqual(first.body.data, history.slice(0, 2));
      const next = new URL(first.body.links.next);
      const second = await service.client.get(next.pathname + next.search);
      assert.deepEqual(second.body.data, history.slice(2));
      assert.equal(second.body.links.next, undefined);
    });

    it('changed in the console’s staff session are of source console', async () => {
      const a = await newsletter();
      const userId = await createUser(service.client);
      const staff = await createStaff(service.client, 'agent');
      const { client } = await signInSession(service.client, staff);
      const response = await client.patch(`/users/${userId}`, changeNewsletters(userId, { add: [a] }));
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(await stateOf(userId), { [a]: 'subscribed console' });
      const [change] = await historyOf(userId, a);
      assert.equal(change?.attributes.actor.type, 'staff');
      assert.equal(change?.attributes.actor.id, staff.id);
    });

    it('are pages by newsletter id, followed by links.next', async () => {
      const ids = [await newsletter(), await newsletter(), await newsletter()].sort();
      const userId = await createUser(service.client, { newsletters: { add: ids } });
      const first = await service.client.get(`/users/${userId}/newsletter-consents?page[size]=2`);
      assert.deepEqual(
        first.body.data.map((c: { id: string }) => c.id),
        ids.slice(0, 2),
      );
      const next = new URL(first.body.links.next);
      const second = await service.client.get(next.pathname + next.search);
      assert.deepEqual(
        second.body.data.map((c: { id: string }) => c.id),
        ids.slice(2),
      );
      assert.equal(second.body.links.next, undefined);
    });

    it('of an unknown reader, or an unknown consent, are a 404', async () => {
      const userId = await createUser(service.client);
      assert.deepEqual(await consentsOf(userId), []);
      onlyError(await service.client.get('/users/999999999/newsletter-consents'), 404);
      onlyError(await service.client.get(`/users/${userId}/newsletter-consents/nothing`), 404);
      onlyError(await service.client.get(`/users/${userId}/newsletter-consents/nothing/history`), 404);
      onlyError(
        await provider.patch(`/users/${userId}/newsletter-consents/nothing`, consentDocument('nothing', 'bounced')),
        404,
      );
    });
  });

  describe('PATCH …/newsletter-consents/{newsletter_id}: what an email provider reports', () => {
    it('suppresses a bounced reader: off the newsletter, and no add puts them back', async () => {
      const [a, b] = [await newsletter(), await newsletter()];
      const userId = await createUser(service.client, { newsletters: { add: [a] } });
      const etag = (await service.client.get(`/users/${userId}`)).headers.get('etag');
      const bounced = await provider.patch(`/users/${userId}/newsletter-consents/${a}`, consentDocument(a, 'bounced'));
      assert.equal(bounced.status, 200, bounced.text);
      assert.equal(bounced.body.data.attributes.state, 'bounced');
      assert.equal(bounced.body.data.attributes.source, 'email-provider');
      assert.deepEqual(await newslettersOf(userId), []);
      assert.equal(await membersOf(a), 0);
      assert.notEqual((await service.client.get(`/users/${userId}`)).headers.get('etag'), etag);

      // The add is refused whole, at the suppressed newsletter's place: b is not added either.
      const state = await service.snapshot();
      const refused = await service.client.patch(`/users/${userId}`, changeNewsletters(userId, { add: [b, a] }));
      const error = onlyError(refused, 422);
      assert.equal(error.code, 'CONSENT_SUPPRESSED');
      assert.equal(error.source.pointer, '/data/attributes/newsletters/add/1');
      assert.equal(await service.snapshot(), state, 'a refused add changed the store');
      // Leaving does not lift it either.
      await service.client.put(`/users/${userId}`, changeNewsletters(userId, { remove: [a] }));
      assert.deepEqual(await stateOf(userId), { [a]: 'bounced email-provider' });
    });

    it('moves a bounce to a complaint, repeats nothing already so, and refuses to unsubscribe a suppressed reader', async () => {
      const a = await newsletter();
      const userId = await createUser(service.client, { newsletters: { add: [a] } });
      const path = `/users/${userId}/newsletter-consents/${a}`;
      assert.equal((await provider.patch(path, consentDocument(a, 'bounced'))).status, 200);
      assert.equal((await provider.patch(path, consentDocument(a, 'bounced'))).status, 200);
      const complained = await provider.patch(path, consentDocument(a, 'complained'));
      assert.equal(complained.body.data.attributes.state, 'complained');
      const error = onlyError(await provider.patch(path, consentDocument(a, 'unsubscribed')), 422);
      assert.equal(error.code, 'CONSENT_SUPPRESSED');
      assert.equal(error.source.pointer, '/data/attributes/state');
      assert.deepEqual(
        (await historyOf(userId, a)).map((h) => `${h.attributes.state} ${h.attributes.source}`),
        ['subscribed api', 'bounced email-provider', 'complained email-provider'],
      );
    });

    it('unsubscribes a member', async () => {
      const a = await newsletter();
      const userId = await createUser(service.client, { newsletters: { add: [a] } });
      const response = await provider.patch(
        `/users/${userId}/newsletter-consents/${a}`,
        consentDocument(a, 'unsubscribed'),
      );
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(await stateOf(userId), { [a]: 'unsubscribed email-provider' });
      assert.deepEqual(await newslettersOf(userId), []);
      // Unsubscribed is not suppressed: an add puts the reader back.
      assert.equal((await service.client.put(`/users/${userId}`, changeNewsletters(userId, { add: [a] }))).status, 204);
      assert.deepEqual(await stateOf(userId), { [a]: 'subscribed api' });
    });

    it('holds a report to If-Match: 412 for another version, and a new ETag once it changes the consent', async () => {
      const a = await newsletter();
      const userId = await createUser(service.client, { newsletters: { add: [a] } });
      const self = `/users/${userId}/newsletter-consents/${a}`;
      const read = await service.client.get(self);
      const etag = read.headers.get('etag') as string;
      assert.match(etag, /^"\d+"$/);
      const stale = await provider.patch(self, consentDocument(a, 'bounced'), { headers: { 'if-match': '"999999"' } });
      assert.equal(stale.status, 412, stale.text);
      assert.deepEqual(await stateOf(userId), { [a]: 'subscribed api' });
      const fresh = await provider.patch(self, consentDocument(a, 'bounced'), { headers: { 'if-match': etag } });
      assert.equal(fresh.status, 200, fresh.text);
      assert.notEqual(fresh.headers.get('etag'), etag);
      assert.equal((await service.client.get(self)).headers.get('etag'), fresh.headers.get('etag'));
      // The version it had is gone: a second report with it changes nothing.
      const again = await provider.patch(self, consentDocument(a, 'complained'), { headers: { 'if-match': etag } });
      assert.equal(again.status, 412, again.text);
    });

    it('refuses states a provider does not report, other ids and types, and a credential that only reads', async () => {
      const a = await newsletter();
      const userId = await createUser(service.client, { newsletters: { add: [a] } });
      const path = `/users/${userId}/newsletter-consents/${a}`;
      for (const state of ['subscribed', 'pending', 'gone', 1, null]) {
        const response = await provider.patch(path, consentDocument(a, state));
        assert.equal(response.status, 422, response.text);
        for (const error of response.body.errors) assert.equal(error.source.pointer, '/data/attributes/state');
      }
      assert.equal(
        onlyError(await provider.patch(path, { data: { type: 'newsletter-consents', id: a } }), 422).source.pointer,
        '/data/attributes',
      );
      assert.equal(onlyError(await provider.patch(path, consentDocument('other', 'bounced')), 409).code, 'ID_CONFLICT');
      const wrongType = { data: { type: 'users', id: a, attributes: { state: 'bounced' } } };
      assert.equal(onlyError(await provider.patch(path, wrongType), 409).code, 'TYPE_CONFLICT');
      const extra = { data: { type: 'newsletter-consents', id: a, attributes: { state: 'bounced', source: 'api' } } };
      assert.equal(onlyError(await provider.patch(path, extra), 422).source.pointer, '/data/attributes/source');
      const reader = service.client.as((await issueKey(service.client, ['read'])).secret);
      assert.equal(onlyError(await reader.patch(path, consentDocument(a, 'bounced')), 403).code, 'SCOPE_INSUFFICIENT');
      assert.deepEqual(await stateOf(userId), { [a]: 'subscribed api' });
    });
  });

  describe('doubleOptIn', () => {
    it('makes an add pending: no member, not in the reader’s newsletters, until they confirm', async () => {
      const confirmed = await newsletter(true);
      const plain = await newsletter();
      const userId = await createUser(service.client, { newsletters: { add: [confirmed, plain] } });
      assert.deepEqual(await stateOf(userId), { [confirmed]: 'pending api', [plain]: 'subscribed api' });
      assert.deepEqual(await newslettersOf(userId), [plain]);
      assert.equal(await membersOf(confirmed), 0);
      const filtered = await service.client.get(`/users?filter[newsletter]=${confirmed}`);
      assert.deepEqual(filtered.body.data, []);
      // Adding again leaves them pending, with nothing new in the history; leaving unsubscribes them.
      await service.client.put(`/users/${userId}`, changeNewsletters(userId, { add: [confirmed] }));
      assert.equal((await historyOf(userId, confirmed)).length, 1);
      await service.client.put(`/users/${userId}`, changeNewsletters(userId, { remove: [confirmed] }));
      assert.deepEqual(
        (await historyOf(userId, confirmed)).map((h) => h.attributes.state),
        ['pending', 'unsubscribed'],
      );
    });

    it('is a newsletter attribute that may be changed, and read back', async () => {
      const id = await newsletter();
      const changed = await service.client.patch(`/newsletters/${id}`, {
        data: { type: 'newsletters', id, attributes: { doubleOptIn: true } },
      });
      assert.equal(changed.status, 200, changed.text);
      assert.equal((await service.client.get(`/newsletters/${id}`)).body.data.attributes.doubleOptIn, true);
      const bad = { data: { type: 'newsletters', id, attributes: { doubleOptIn: 'yes' } } };
      assert.equal(
        onlyError(await service.client.patch(`/newsletters/${id}`, bad), 422).source.pointer,
        '/data/attributes/doubleOptIn',
      );
    });
  });

  describe('events', () => {
    it('are newsletter_consent.changed for every change, with the old and new state and the source', async () => {
      const a = await newsletter();
      const userId = await createUser(service.client, { newsletters: { add: [a] } });
      await provider.patch(`/users/${userId}/newsletter-consents/${a}`, consentDocument(a, 'bounced'));
      await provider.patch(`/users/${userId}/newsletter-consents/${a}`, consentDocument(a, 'bounced'));
      const events = await service.client.get(`/events?filter[type]=newsletter_consent.changed&filter[user]=${userId}`);
      assert.equal(events.status, 200, events.text);
      assert.deepEqual(
        events.body.data.map((e: { attributes: Record<string, unknown> }) => [
          e.attributes.resourceType,
          e.attributes.resourceId,
          e.attributes.consent,
        ]),
        [
          ['newsletter-consents', a, { oldState: null, newState: 'subscribed', source: 'api' }],
          ['newsletter-consents', a, { oldState: 'subscribed', newState: 'bounced', source: 'email-provider' }],
        ],
      );
      // Other events carry no consent.
      const created = await service.client.get(`/events?filter[type]=user.created&filter[user]=${userId}`);
      assert.equal(created.body.data[0].attributes.consent, undefined);
    });
  });

  describe('an import', () => {
    async function imported(lines: Record<string, unknown>[]) {
      const path = join(tmpdir(), `consents-${randomUUID()}.ndjson`);
      writeFileSync(path, lines.map((line) => JSON.stringify(line)).join('\n'));
      const rejections: Rejection[] = [];
      const result = await importFile(service.store, path, {
        format: 'ndjson',
        audit: { actor: 'import', attributes: [] },
        onRejected: async (rejection) => void rejections.push(rejection),
      });
      return { result, rejections };
    }

    it('adds of source import, never re-adds a bounced reader, and reports that newsletter on the row', async () => {
      const [a, b, optIn] = [await newsletter(), await newsletter(), await newsletter(true)];
      const email = uniqueEmail();
      const first = await imported([{ email, familyName: 'Imported', newsletters: [a, optIn] }]);
      assert.equal(first.result.created, 1);
      const userId = (await service.client.get(`/users?filter[email]=${email}`)).body.data[0].id as string;
      assert.deepEqual(await stateOf(userId), { [a]: 'subscribed import', [optIn]: 'pending import' });
      await provider.patch(`/users/${userId}/newsletter-consents/${a}`, consentDocument(a, 'bounced'));

      // Again, with another newsletter and a new name: the name and b are taken, a is reported.
      const again = await imported([{ email, familyName: 'Renamed', newsletters: [optIn, a, b] }]);
      assert.deepEqual(again.rejections, [
        {
          line: 1,
          email,
          refused: 'newsletters',
          errors: [
            `newsletters[1]: newsletter ${a} is suppressed for this reader (bounced): only their confirmation puts them back`,
          ],
        },
      ]);
      assert.equal(again.result.newslettersSuppressed, 1);
      assert.equal(again.result.updated, 1);
      assert.equal((await service.client.get(`/users/${userId}`)).body.data.attributes.familyName, 'Renamed');
      assert.deepEqual(await stateOf(userId), {
        [a]: 'bounced email-provider',
        [b]: 'subscribed import',
        [optIn]: 'pending import',
      });
      // A pending reader, already asked to confirm, is not changed by the file again.
      assert.equal((await historyOf(userId, optIn)).length, 1);
      const [added] = await historyOf(userId, b);
      assert.deepEqual(added?.attributes.actor, { type: 'system', id: 'import', name: 'import' });
    });

    it('names a refused newsletter where the row has it, past those the reader is on already', async () => {
      const [on, retired] = [await newsletter(), await newsletter()];
      const retire = await service.client.patch(`/newsletters/${retired}`, {
        data: { type: 'newsletters', id: retired, attributes: { active: false } },
      });
      assert.equal(retire.status, 200, retire.text);
      const email = uniqueEmail();
      await imported([{ email, familyName: 'Imported', newsletters: [on] }]);
      const again = await imported([{ email, familyName: 'Imported', newsletters: [on, retired] }]);
      assert.deepEqual(
        again.rejections.map((r) => [r.refused, r.errors]),
        [['row', [`newsletters[1]: newsletter ${retired} is inactive: it cannot be attached`]]],
      );
    });
  });
});
