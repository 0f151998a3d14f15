/**
 * A reader's own data, through the API on every store: one document with every section of what
 * is held about them and never a secret or a hash, for an administrator or a `write` credential,
 * written a bounded page at a time as it is read.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { after, before, describe, it } from 'node:test';
import { readerExport } from '../../../src/use-cases/readers/data-export.js';
import { wrapMethods } from '../../../src/store/wrap-methods.js';
import { AUDIT, createWebhook, issueKey, onlyError, subscriptionValues } from '../../support/fixtures.js';
import { createReader, issueResetToken, signIn } from '../../support/readers.js';
import { forEachStoreAndCitus } from '../../support/citus.js';
import { startService, TEST_ADMIN_KEY, type Service } from '../../support/service.js';

const SECTIONS = [
  'generatedAt',
  'user',
  'subscriptions',
  'holds',
  'temporaryAddresses',
  'deliveryComplaints',
  'seats',
  'newsletterConsents',
  'signIns',
  'confirmationRequests',
  'passwordResets',
  'privacyRequests',
  'auditEntries',
  'webhookDeliveries',
];

/**
 * Copies of a subscription of the reader, and audit entries about them, written in two statements
 * behind the service's back: through the API, 110,000 records would take minutes.
 */
async function addRowsBehindTheService(
  service: Service,
  userId: string,
  subscriptionId: string,
  counts: { subscriptions: number; auditEntries: number },
) {
  const COPIED = 'user_id, date_started, date_ended, license, resource, trial, expired, product_id';
  if (service.kind === 'SQLite') {
    const file = new Database(service.databaseUrl.slice('sqlite:'.length));
    try {
      const series = (n: number) => `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n})`;
      file
        .prepare(
          `${series(counts.subscriptions)} INSERT INTO subscriptions (${COPIED}) SELECT ${COPIED} FROM subscriptions, n WHERE id = ?`,
        )
        .run(subscriptionId);
      file
        .prepare(
          `${series(counts.auditEntries)} INSERT INTO audit_log (actor, action, resource_type, resource_id, user_id, attributes)
           SELECT 'test', 'update', 'users', ?, ?, '[]' FROM n`,
        )
        .run(userId, userId);
    } finally {
      file.close();
    }
    return;
  }
  await service.sql(
    `INSERT INTO subscriptions (${COPIED}) SELECT ${COPIED} FROM subscriptions, generate_series(1, ${counts.subscriptions})
     WHERE user_id = ? AND id = ?`,
    [userId, subscriptionId],
  );
  await service.sql(
    `INSERT INTO audit_log (actor, action, resource_type, resource_id, user_id, attributes)
     SELECT 'test', 'update', 'users', ?, ?, '{}' FROM generate_series(1, ${counts.auditEntries})`,
    [userId, userId],
  );
}

forEachStoreAndCitus((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  /** A reader with a record in every section, and the secrets made along the way. */
  async function fullReader() {
    await createWebhook(service.client, { events: ['user.updated', 'subscription.created'] });
    const reader = await createReader(service.client, 'a reader password', {
      newsletters: { add: ['morning-briefing', 'evening-edition'] },
    });
    const { store } = service;
    const subscription = await store.subscriptions.create(reader.id, subscriptionValues({ resource: 'print' }), AUDIT);
    assert.ok(subscription);
    await store.holds.create(
      reader.id,
      subscription.id,
      (context) => ({
        values: { startDate: 20_000, endDate: 20_001, compensation: 'credit', deliveriesMissed: 2, extendedDays: 0 },
        dateEnded: context.terms.dateEnded,
      }),
      AUDIT,
    );
    await store.temporaryAddresses.create(
      reader.id,
      () => ({
        startDate: 20_000,
        endDate: 20_010,
        address: {
          streetAddress: '2 Shore Road',
          unitNumber: null,
          addressLocality: 'Brightsea',
          addressRegion: null,
          addressCountry: 'GB',
          postalCode: 'BS1 1AA',
        },
      }),
      AUDIT,
    );
    await store.deliveryComplaints.create(
      reader.id,
      subscription.id,
      (context) => ({
        values: { deliveryDate: 19_990, reason: 'wet', remedy: 'none', repeat: false, redeliveryDate: null },
        dateEnded: context.terms.dateEnded,
      }),
      AUDIT,
    );
    const update = await service.client.patch(`/users/${reader.id}`, {
      data: { type: 'users', id: reader.id, attributes: { newsletters: { remove: ['morning-briefing'] } } },
    });
    assert.equal(update.status, 200, update.text);
    assert.equal((await signIn(service.client, reader.email, reader.password)).status, 201);
    const token = await issueResetToken(service.client, reader.id);
    const privacy = await service.client.post('/privacy-requests', {
      data: {
        type: 'privacy-requests',
        attributes: { kind: 'access' },
        relationships: { user: { data: { type: 'users', id: reader.id } } },
      },
    });
    assert.equal(privacy.status, 201, privacy.text);
    const owner = await createReader(service.client, 'an owner password');
    const licence = await service.client.post(`/users/${owner.id}/subscriptions`, {
      data: {
        type: 'subscriptions',
        attributes: {
          dateStarted: '2025-01-01T00:00:00Z',
          dateEnded: null,
          license: 'site',
          resource: 'online',
          seats: 5,
        },
      },
    });
    assert.equal(licence.status, 201, licence.text);
    const seat = await service.client.post(`/users/${owner.id}/subscriptions/${licence.body.data.id}/seats`, {
      data: { type: 'seats', relationships: { user: { data: { type: 'users', id: reader.id } } } },
    });
    assert.equal(seat.status, 201, seat.text);
    const bounced = await service.client.patch(`/users/${reader.id}/newsletter-consents/evening-edition`, {
      data: { type: 'newsletter-consents', id: 'evening-edition', attributes: { state: 'bounced' } },
    });
    assert.equal(bounced.status, 200, bounced.text);
    const link = await service.client.post(
      `/users/${reader.id}/newsletter-consents/evening-edition/confirmation-links`,
      undefined,
    );
    assert.equal(link.status, 200, link.text);
    const [row] = await service.sql('SELECT password_hash FROM users WHERE id = ?', [reader.id]);
    const tokenHashes = await service.sql('SELECT token_hash FROM password_reset_tokens WHERE user_id = ?', [
      reader.id,
    ]);
    const secrets = [
      reader.password,
      String(row?.password_hash),
      token,
      token.slice(-43),
      ...tokenHashes.flatMap((r) => {
        const hash = Buffer.from(r.token_hash as Uint8Array);
        return [hash.toString('hex'), hash.toString('base64'), hash.toString('base64url')];
      }),
      TEST_ADMIN_KEY,
      link.body.meta.url,
      String(link.body.meta.url).split('/').at(-1),
    ];
    const held = { id: seat.body.data.id, licence: licence.body.data.id, licenceOwner: owner.id };
    return { reader, subscription, held, secrets };
  }

  describe('GET /users/{id}/data-export', () => {
    it('answers every section, each with the reader’s records, and no secret or hash', async () => {
      const { reader, subscription, held, secrets } = await fullReader();
      const response = await service.client.get(`/users/${reader.id}/data-export`);
      assert.equal(response.status, 200, response.text);
      const { meta } = response.body;
      assert.deepEqual(Object.keys(meta), SECTIONS);
      assert.equal(meta.user.id, reader.id);
      assert.equal(meta.user.attributes.email, reader.email);
      assert.deepEqual(
        meta.subscriptions.map((s: any) => s.id),
        [subscription.id],
      );
      assert.equal(meta.holds[0].subscription, subscription.id);
      assert.equal(meta.temporaryAddresses[0].address.streetAddress, '2 Shore Road');
      assert.equal(meta.deliveryComplaints[0].reason, 'wet');
      assert.deepEqual(meta.seats, [held]);
      const consent = meta.newsletterConsents.find((c: any) => c.newsletter === 'morning-briefing');
      assert.equal(consent.state, 'unsubscribed');
      assert.deepEqual(
        consent.history.map((c: any) => c.state),
        ['subscribed', 'unsubscribed'],
      );
      assert.equal(meta.signIns.length, 1);
      assert.deepEqual(
        meta.confirmationRequests.map((r: any) => r.newsletter),
        ['evening-edition'],
      );
      assert.ok(Date.parse(meta.confirmationRequests[0].at) > Date.now() - 60_000);
      assert.deepEqual(
        meta.passwordResets.map((r: any) => r.action),
        ['issued'],
      );
      assert.equal(meta.privacyRequests[0].kind, 'access');
      assert.ok(meta.auditEntries.some((e: any) => e.eventType === 'user.signed_in'));
      assert.ok(
        meta.auditEntries.every((e: any, i: number, all: any[]) => i === 0 || Number(all[i - 1].id) < Number(e.id)),
      );
      assert.deepEqual([...new Set(meta.webhookDeliveries.map((d: any) => d.eventType))].sort(), [
        'subscription.created',
        'user.updated',
      ]);
      assert.ok(meta.webhookDeliveries.every((d: any) => meta.auditEntries.some((e: any) => e.id === d.event)));
      for (const secret of secrets)
        assert.ok(!response.text.includes(secret), `the export carries ${secret.slice(0, 12)}…`);
      assert.ok(!/hash|secret|token"/i.test(response.text), 'the export names a hash, secret or token');
    });

    it('is chunked: written as it is read, with no length known beforehand', async () => {
      const { reader } = await fullReader();
      const response = await fetch(`${service.baseUrl}/users/${reader.id}/data-export`, {
        headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, accept: 'application/vnd.api+json' },
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('transfer-encoding'), 'chunked');
      assert.equal(response.headers.get('content-length'), null);
      assert.equal(response.headers.get('content-type'), 'application/vnd.api+json');
      assert.equal(JSON.parse(await response.text()).meta.user.id, reader.id);
    });

    it('answers HEAD with the headers of the document, without making it', async () => {
      const reader = await createReader(service.client);
      /** How many times the service has read a page of subscriptions, by its metrics. */
      const subscriptionReads = async () => {
        const metrics = await (
          await fetch(`${service.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` } })
        ).text();
        return Number(
          /store_operation_duration_seconds_count\{operation="subscriptions\.list",outcome="ok"\} (\d+)/.exec(
            metrics,
          )?.[1] ?? 0,
        );
      };
      const head = (id: string) =>
        fetch(`${service.baseUrl}/users/${id}/data-export`, {
          method: 'HEAD',
          headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, accept: 'application/vnd.api+json' },
        });
      const before = await subscriptionReads();
      const response = await head(reader.id);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'application/vnd.api+json');
      assert.equal(await response.text(), '');
      assert.equal(await subscriptionReads(), before, 'HEAD read the subscriptions');
      assert.equal((await service.client.get(`/users/${reader.id}/data-export`)).status, 200);
      assert.equal(await subscriptionReads(), before + 1, 'GET read them once');
      assert.equal((await head('987654321')).status, 404);
    });

    it('streams a reader of 10,000 subscriptions and 100,000 audit entries whole', async () => {
      const reader = await createReader(service.client);
      const first = await service.store.subscriptions.create(reader.id, subscriptionValues(), AUDIT);
      assert.ok(first);
      await addRowsBehindTheService(service, reader.id, first.id, { subscriptions: 9_999, auditEntries: 100_000 });
      const response = await fetch(`${service.baseUrl}/users/${reader.id}/data-export`, {
        headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, accept: 'application/vnd.api+json' },
      });
      assert.equal(response.status, 200);
      const { meta } = JSON.parse(await response.text());
      assert.equal(meta.subscriptions.length, 10_000);
      // The bulk's, the reader's creation and the first subscription's.
      assert.equal(meta.auditEntries.length, 100_002);
    });

    it('answers a reader with nothing but their record with every section, empty', async () => {
      const reader = await createReader(service.client);
      const { meta } = (await service.client.get(`/users/${reader.id}/data-export`)).body;
      assert.deepEqual(Object.keys(meta), SECTIONS);
      for (const name of SECTIONS.slice(2).filter((n) => n !== 'auditEntries')) {
        assert.deepEqual(meta[name], [], name);
      }
    });

    it('answers 404 for a reader that does not exist', async () => {
      onlyError(await service.client.get('/users/987654321/data-export'), 404);
    });

    it('is for a write credential or an administrator: a read credential is refused', async () => {
      const reader = await createReader(service.client);
      const read = await issueKey(service.client, ['read']);
      onlyError(await service.client.as(read.secret).get(`/users/${reader.id}/data-export`), 403);
      const write = await issueKey(service.client, ['write']);
      assert.equal((await service.client.as(write.secret).get(`/users/${reader.id}/data-export`)).status, 200);
      assert.equal((await service.client.as(null).get(`/users/${reader.id}/data-export`)).status, 401);
    });
  });

  describe('the export writer', () => {
    it('reads every section a page of at most its size at a time, and writes each page before reading the next', async () => {
      const reader = await createReader(service.client);
      for (let i = 0; i < 11; i += 1) {
        assert.ok(await service.store.subscriptions.create(reader.id, subscriptionValues(), AUDIT));
      }
      const log: string[] = [];
      const limits: number[] = [];
      const counting = wrapMethods(service.store, (method, target, name) =>
        name.includes('.list')
          ? async (...args: unknown[]) => {
              const query = args.find((a) => typeof a === 'object' && a !== null && 'limit' in a) as { limit: number };
              limits.push(query.limit);
              log.push(`read ${name}`);
              return method.apply(target, args);
            }
          : method,
      );
      const chunks: string[] = [];
      const out = new Writable({
        highWaterMark: 1,
        write(chunk, _encoding, done) {
          chunks.push(String(chunk));
          log.push('write');
          setImmediate(done);
        },
      });
      const found = await readerExport(counting, reader.id, { now: 1_800_000_000, zone: 'UTC', pageSize: 4 });
      assert.ok(found);
      await found.writeTo(out);
      const document = JSON.parse(chunks.join(''));
      assert.equal(document.meta.subscriptions.length, 11);
      assert.equal(document.meta.auditEntries.length, 12);
      assert.ok(
        limits.every((limit) => limit <= 4),
        `a page asked for more than 4: ${limits.join(',')}`,
      );
      const reads = (name: string) => log.filter((entry) => entry === `read ${name}`).length;
      assert.equal(reads('subscriptions.list'), 3, '11 subscriptions are 3 pages of 4');
      assert.equal(
        reads('audit.list'),
        4 + 1 + 1 + 1,
        'the 12 entries are 3 full pages of 4 and an empty one; then 1 page each of sign-ins, confirmation requests and resets',
      );
      // No two reads of one section follow each other without the page between them written out.
      for (let i = 1; i < log.length; i += 1) {
        assert.ok(!(log[i] === log[i - 1] && log[i]?.startsWith('read')), `${log[i]} twice without a write between`);
      }
    });
  });
});
