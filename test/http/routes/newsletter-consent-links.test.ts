/**
 * A reader's newsletter links, through the API on every store: a write credential asks for a
 * consent's confirmation link or its one-click unsubscribe link; the reader follows it without a
 * credential. A GET shows a page and changes nothing; a POST confirms (subscribed, source
 * confirmation) or unsubscribes (source unsubscribe-link), with its history entry and event. A link
 * forged, altered, for another reader or newsletter, expired, used, or of an erased reader changes
 * nothing and gets a page that says so; a flood of POSTs to one link is limited by address.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createUser, issueKey, onlyError } from '../../support/fixtures.js';
import { forEachStoreAndCitus } from '../../support/citus.js';
import { startService, TEST_ADMIN_KEY, type Client, type Service } from '../../support/service.js';

const PAGE = 'text/html; charset=utf-8';
const ONE_CLICK = 'List-Unsubscribe=One-Click';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const consentDocument = (newsletterId: string, state: unknown) => ({
  data: { type: 'newsletter-consents', id: newsletterId, attributes: { state } },
});

/** A link's page, as a browser or a mailbox provider gets it: no credential, whatever it accepts. */
async function follow(
  url: string,
  init: { method?: string; body?: string | FormData; headers?: Record<string, string> } = {},
) {
  const response = await fetch(url, { method: init.method ?? 'GET', body: init.body, headers: init.headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The same link with one bit of one character of its token changed. */
function flipped(url: string, at: number): string {
  const slash = url.lastIndexOf('/');
  const token = url.slice(slash + 1);
  const index = ((at % token.length) + token.length) % token.length;
  const changed = String.fromCharCode(token.charCodeAt(index) ^ 1);
  return `${url.slice(0, slash + 1)}${token.slice(0, index)}${encodeURIComponent(changed)}${token.slice(index + 1)}`;
}

/** The link's token put in another reader's or newsletter's address. */
function moved(url: string, userId: string, newsletterId: string): string {
  const parts = url.split('/');
  const token = parts.at(-1) as string;
  return [...parts.slice(0, -3), userId, encodeURIComponent(newsletterId), token].join('/');
}

/**
 * Why the suites of a service of other settings run on SQLite and PostgreSQL alone: what they test
 * (a link's expiry, the rate limit, a missing key) is the HTTP layer's, the same on every store.
 */
const HTTP_ALONE = 'the HTTP layer alone, the same on every store';

forEachStoreAndCitus((kind) => {
  let service: Service;
  let mailer: Client;
  before(async () => {
    service = await startService(kind);
    mailer = service.client.as((await issueKey(service.client, ['write'])).secret);
  });
  after(() => service.close());

  async function newsletter(doubleOptIn = false): Promise<string> {
    const id = `n-${randomUUID()}`;
    const response = await service.client.post('/newsletters', {
      data: { type: 'newsletters', id, attributes: { name: id, doubleOptIn } },
    });
    assert.equal(response.status, 201, response.text);
    return id;
  }

  const consentOf = async (userId: string, newsletterId: string) => {
    const response = await service.client.get(`/users/${userId}/newsletter-consents/${newsletterId}`);
    assert.equal(response.status, 200, response.text);
    return response.body.data.attributes as { state: string; source: string };
  };
  const historyOf = async (userId: string, newsletterId: string) => {
    const response = await service.client.get(`/users/${userId}/newsletter-consents/${newsletterId}/history`);
    assert.equal(response.status, 200, response.text);
    return response.body.data.map((c: { attributes: Record<string, any> }) => c.attributes) as Record<string, any>[];
  };
  const newslettersOf = async (userId: string) =>
    (await service.client.get(`/users/${userId}`)).body.data.attributes.newsletters as string[];

  /** A reader pending for a newsletter with double opt-in. */
  async function pendingReader() {
    const newsletterId = await newsletter(true);
    const userId = await createUser(service.client, { newsletters: { add: [newsletterId] } });
    assert.equal((await consentOf(userId, newsletterId)).state, 'pending');
    return { userId, newsletterId };
  }

  /** The url of a link the mailer asks for (`confirmation-links`, `unsubscribe-links`). */
  async function linkOf(links: string, userId: string, newsletterId: string): Promise<string> {
    const response = await mailer.post(`/users/${userId}/newsletter-consents/${newsletterId}/${links}`, undefined);
    assert.equal(response.status, 200, response.text);
    return response.body.meta.url;
  }
  const confirmationLink = (userId: string, newsletterId: string) => linkOf('confirmation-links', userId, newsletterId);
  const unsubscribeLink = (userId: string, newsletterId: string) => linkOf('unsubscribe-links', userId, newsletterId);

  /** Asserts that following a link left the consent (its state and history) as it was. */
  async function assertUnchanged(userId: string, newsletterId: string, act: () => Promise<void>) {
    const [consent, history] = [await consentOf(userId, newsletterId), await historyOf(userId, newsletterId)];
    await act();
    assert.deepEqual(await consentOf(userId, newsletterId), consent);
    assert.equal((await historyOf(userId, newsletterId)).length, history.length);
  }

  describe('POST …/confirmation-links', () => {
    it('answers a link in meta.url that expires CONFIRMATION_TTL_HOURS (72) from now, nothing else', async () => {
      const { userId, newsletterId } = await pendingReader();
      const before = Date.now();
      const response = await mailer.post(
        `/users/${userId}/newsletter-consents/${newsletterId}/confirmation-links`,
        undefined,
      );
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(Object.keys(response.body), ['meta']);
      const { url, expiresAt } = response.body.meta;
      assert.ok(url.startsWith(`${service.baseUrl}/links/confirm/${userId}/${newsletterId}/`), url);
      const lifetime = Date.parse(expiresAt) - before;
      assert.ok(lifetime > 72 * 3600_000 - 2000 && lifetime <= 72 * 3600_000 + 1000, String(lifetime));
    });

    it('keeps nothing of the link: the database holds no part of its token', async () => {
      const { userId, newsletterId } = await pendingReader();
      const url = await confirmationLink(userId, newsletterId);
      const signature = url.slice(url.lastIndexOf('.') + 1);
      assert.ok(!(await service.rawDump()).includes(signature));
    });

    it('is given for a bounced or complained consent, and refused for a subscribed or unsubscribed one (409)', async () => {
      const [a, b] = [await newsletter(), await newsletter()];
      const userId = await createUser(service.client, { newsletters: { add: [a, b] } });
      const path = (id: string) => `/users/${userId}/newsletter-consents/${id}/confirmation-links`;
      const refused = onlyError(await mailer.post(path(a), undefined), 409);
      assert.equal(refused.code, 'CONSENT_NOT_CONFIRMABLE');
      assert.match(refused.detail, /subscribed/);
      await mailer.patch(`/users/${userId}/newsletter-consents/${a}`, consentDocument(a, 'bounced'));
      await mailer.patch(`/users/${userId}/newsletter-consents/${b}`, consentDocument(b, 'complained'));
      assert.equal((await mailer.post(path(a), undefined)).status, 200);
      assert.equal((await mailer.post(path(b), undefined)).status, 200);
      const left = await createUser(service.client, { newsletters: { add: [a] } });
      await mailer.patch(`/users/${left}`, {
        data: { type: 'users', id: left, attributes: { newsletters: { remove: [a] } } },
      });
      const unsubscribed = `/users/${left}/newsletter-consents/${a}/confirmation-links`;
      assert.equal(onlyError(await mailer.post(unsubscribed, undefined), 409).code, 'CONSENT_NOT_CONFIRMABLE');
    });

    it('is a 404 for a reader without that consent, and a 403 for a credential that only reads', async () => {
      const { userId, newsletterId } = await pendingReader();
      onlyError(await mailer.post(`/users/${userId}/newsletter-consents/other/confirmation-links`, undefined), 404);
      onlyError(
        await mailer.post(`/users/999999999/newsletter-consents/${newsletterId}/confirmation-links`, undefined),
        404,
      );
      const reader = service.client.as((await issueKey(service.client, ['read'])).secret);
      onlyError(
        await reader.post(`/users/${userId}/newsletter-consents/${newsletterId}/confirmation-links`, undefined),
        403,
      );
    });
  });

  describe('a confirmation link', () => {
    it('shows on GET an accessible page whose one button POSTs, under a strict policy, and changes nothing', async () => {
      const { userId, newsletterId } = await pendingReader();
      const url = await confirmationLink(userId, newsletterId);
      await assertUnchanged(userId, newsletterId, async () => {
        for (let i = 0; i < 3; i++) {
          const page = await follow(url);
          assert.equal(page.status, 200, page.text);
          assert.equal(page.headers.get('content-type'), PAGE);
          const policy = page.headers.get('content-security-policy') ?? '';
          assert.match(policy, /default-src 'none'/);
          assert.match(policy, /form-action 'self'/);
          assert.doesNotMatch(policy, /script-src/);
          assert.equal(page.headers.get('cache-control'), 'no-store');
          assert.match(page.text, /<html lang="en">/);
          assert.match(page.text, /<title>Confirm your subscription<\/title>/);
          assert.match(page.text, /<form method="post"><button type="submit"[^>]*>Confirm<\/button><\/form>/);
          assert.doesNotMatch(page.text, /<script|style=/);
        }
      });
    });

    it('on POST subscribes the reader, source confirmation, with its history entry and event', async () => {
      const { userId, newsletterId } = await pendingReader();
      const url = await confirmationLink(userId, newsletterId);
      const page = await follow(url, { method: 'POST', body: 'confirm=yes', headers: FORM });
      assert.equal(page.status, 200, page.text);
      assert.equal(page.headers.get('content-type'), PAGE);
      assert.match(page.text, /Subscription confirmed/);
      assert.deepEqual(
        { ...(await consentOf(userId, newsletterId)), changedAt: undefined },
        { state: 'subscribed', source: 'confirmation', changedAt: undefined },
      );
      assert.deepEqual(await newslettersOf(userId), [newsletterId]);
      const last = (await historyOf(userId, newsletterId)).at(-1);
      assert.deepEqual(
        [last?.state, last?.source, last?.actor?.type, last?.actor?.id],
        ['subscribed', 'confirmation', 'system', 'reader-link'],
      );
      const events = await service.client.get(`/events?filter[type]=newsletter_consent.changed&filter[user]=${userId}`);
      assert.deepEqual(events.body.data.at(-1).attributes.consent, {
        oldState: 'pending',
        newState: 'subscribed',
        source: 'confirmation',
      });
    });

    it('works once: replayed, it is a 410 page and changes nothing', async () => {
      const { userId, newsletterId } = await pendingReader();
      const url = await confirmationLink(userId, newsletterId);
      assert.equal((await follow(url, { method: 'POST' })).status, 200);
      await assertUnchanged(userId, newsletterId, async () => {
        for (const method of ['POST', 'GET']) {
          const page = await follow(url, { method });
          assert.equal(page.status, 410, page.text);
          assert.equal(page.headers.get('content-type'), PAGE);
          assert.match(page.text, /This link has been used/);
        }
      });
    });

    it('followed ten times at once confirms once: one 200, the others 410, one history entry', async () => {
      const { userId, newsletterId } = await pendingReader();
      const url = await confirmationLink(userId, newsletterId);
      const before = (await historyOf(userId, newsletterId)).length;
      const statuses = await Promise.all(
        Array.from({ length: 10 }, async () => (await follow(url, { method: 'POST' })).status),
      );
      assert.deepEqual(statuses.sort(), [200, ...Array(9).fill(410)]);
      assert.equal((await historyOf(userId, newsletterId)).length, before + 1);
    });

    it('stops working once the consent changes otherwise (a bounce after it was sent)', async () => {
      const { userId, newsletterId } = await pendingReader();
      const url = await confirmationLink(userId, newsletterId);
      await mailer.patch(
        `/users/${userId}/newsletter-consents/${newsletterId}`,
        consentDocument(newsletterId, 'bounced'),
      );
      await assertUnchanged(userId, newsletterId, async () => {
        assert.equal((await follow(url, { method: 'POST' })).status, 410);
      });
      assert.equal((await consentOf(userId, newsletterId)).state, 'bounced');
    });

    it('lifts a suppression: a bounced or complained reader who confirms is subscribed again', async () => {
      for (const state of ['bounced', 'complained']) {
        const a = await newsletter();
        const userId = await createUser(service.client, { newsletters: { add: [a] } });
        await mailer.patch(`/users/${userId}/newsletter-consents/${a}`, consentDocument(a, state));
        assert.deepEqual(await newslettersOf(userId), []);
        const url = await confirmationLink(userId, a);
        assert.equal((await follow(url, { method: 'POST' })).status, 200);
        assert.equal((await consentOf(userId, a)).state, 'subscribed');
        assert.deepEqual(await newslettersOf(userId), [a]);
      }
    });

    it('with any bit of its token flipped is a 404 page, and changes nothing', async () => {
      const { userId, newsletterId } = await pendingReader();
      const url = await confirmationLink(userId, newsletterId);
      const token = url.slice(url.lastIndexOf('/') + 1);
      await assertUnchanged(userId, newsletterId, async () => {
        // The version, the expiry, the separators and the signature, first and last.
        for (const at of [0, token.indexOf('.') - 1, token.indexOf('.'), token.lastIndexOf('.') + 1, -1]) {
          for (const method of ['GET', 'POST']) {
            const page = await follow(flipped(url, at), { method });
            assert.equal(page.status, 404, `${at} ${method}: ${page.text}`);
            assert.equal(page.headers.get('content-type'), PAGE);
            assert.match(page.text, /This link does not work/);
          }
        }
      });
    });

    it('of another reader or newsletter, or an unsubscribe link’s token in its place, is a 404 and changes nothing', async () => {
      const { userId, newsletterId } = await pendingReader();
      const other = await pendingReader();
      const url = await confirmationLink(userId, newsletterId);
      const otherNewsletter = await newsletter(true);
      await mailer.patch(`/users/${userId}`, {
        data: { type: 'users', id: userId, attributes: { newsletters: { add: [otherNewsletter] } } },
      });
      const unsubscribe = await unsubscribeLink(userId, newsletterId);
      const elsewhere = [
        moved(url, other.userId, other.newsletterId),
        moved(url, other.userId, newsletterId),
        moved(url, userId, otherNewsletter),
        `${url.slice(0, url.lastIndexOf('/'))}/${unsubscribe.slice(unsubscribe.lastIndexOf('/') + 1)}`,
        url.replace('/links/confirm/', '/links/unsubscribe/'),
      ];
      await assertUnchanged(other.userId, other.newsletterId, () =>
        assertUnchanged(userId, otherNewsletter, () =>
          assertUnchanged(userId, newsletterId, async () => {
            for (const link of elsewhere) {
              const page = await follow(link, { method: 'POST', body: ONE_CLICK, headers: FORM });
              assert.equal(page.status, 404, `${link}: ${page.text}`);
            }
          }),
        ),
      );
    });

    it('of an erased reader is a 404 page', async () => {
      const { userId, newsletterId } = await pendingReader();
      const url = await confirmationLink(userId, newsletterId);
      assert.equal((await service.client.delete(`/users/${userId}`)).status, 204);
      for (const method of ['GET', 'POST']) assert.equal((await follow(url, { method })).status, 404);
    });

    it('whose token is longer than any the service issues is refused before it is read', async () => {
      const { userId, newsletterId } = await pendingReader();
      const url = await confirmationLink(userId, newsletterId);
      await assertUnchanged(userId, newsletterId, async () => {
        assert.equal((await follow(`${url}${'A'.repeat(100)}`, { method: 'POST' })).status, 404);
      });
    });
  });

  describe('a confirmation link past CONFIRMATION_TTL_HOURS', { skip: kind === 'Citus' && HTTP_ALONE }, () => {
    let short: Service;
    before(async () => {
      short = await startService(kind, { confirmationTtlSeconds: 1 });
    });
    after(() => short.close());

    it('is a 410 page that says it expired, on GET and POST, and changes nothing', async () => {
      const id = `n-${randomUUID()}`;
      await short.client.post('/newsletters', {
        data: { type: 'newsletters', id, attributes: { name: id, doubleOptIn: true } },
      });
      const userId = await createUser(short.client, { newsletters: { add: [id] } });
      const issued = await short.client.post(
        `/users/${userId}/newsletter-consents/${id}/confirmation-links`,
        undefined,
      );
      assert.equal(issued.status, 200, issued.text);
      await new Promise((resolve) => setTimeout(resolve, 2100));
      for (const method of ['GET', 'POST']) {
        const page = await follow(issued.body.meta.url, { method });
        assert.equal(page.status, 410, page.text);
        assert.match(page.text, /This link has expired/);
      }
      const consent = await short.client.get(`/users/${userId}/newsletter-consents/${id}`);
      assert.equal(consent.body.data.attributes.state, 'pending');
    });
  });

  describe('POST …/unsubscribe-links', () => {
    it('answers the link and the List-Unsubscribe headers for the mail, the same every time', async () => {
      const a = await newsletter();
      const userId = await createUser(service.client, { newsletters: { add: [a] } });
      const path = `/users/${userId}/newsletter-consents/${a}/unsubscribe-links`;
      const response = await mailer.post(path, undefined);
      assert.equal(response.status, 200, response.text);
      const { url, listUnsubscribeHeaders } = response.body.meta;
      assert.ok(url.startsWith(`${service.baseUrl}/links/unsubscribe/${userId}/${a}/`), url);
      assert.deepEqual(listUnsubscribeHeaders, {
        'List-Unsubscribe': `<${url}>`,
        'List-Unsubscribe-Post': ONE_CLICK,
      });
      assert.equal((await mailer.post(path, undefined)).body.meta.url, url);
    });

    it('is a 404 for a reader without that consent', async () => {
      const userId = await createUser(service.client);
      onlyError(await mailer.post(`/users/${userId}/newsletter-consents/none/unsubscribe-links`, undefined), 404);
    });
  });

  describe('an unsubscribe link', () => {
    /** A reader on two newsletters, and the unsubscribe link of the first. */
    async function member() {
      const [a, b] = [await newsletter(), await newsletter()];
      const userId = await createUser(service.client, { newsletters: { add: [a, b] } });
      return { userId, a, b, url: await unsubscribeLink(userId, a) };
    }

    it('shows on GET a page whose button posts List-Unsubscribe=One-Click, and changes nothing', async () => {
      const { userId, a, url } = await member();
      await assertUnchanged(userId, a, async () => {
        const page = await follow(url);
        assert.equal(page.status, 200, page.text);
        assert.equal(page.headers.get('content-type'), PAGE);
        assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
        assert.match(page.text, /<title>Unsubscribe<\/title>/);
        assert.match(
          page.text,
          /<button type="submit" name="List-Unsubscribe" value="One-Click">Unsubscribe<\/button>/,
        );
      });
    });

    it('on a one-click POST unsubscribes the reader from that newsletter alone, source unsubscribe-link', async () => {
      const { userId, a, b, url } = await member();
      const page = await follow(url, { method: 'POST', body: ONE_CLICK, headers: FORM });
      assert.equal(page.status, 200, page.text);
      assert.equal(page.headers.get('content-type'), PAGE);
      assert.deepEqual(
        [(await consentOf(userId, a)).state, (await consentOf(userId, a)).source],
        ['unsubscribed', 'unsubscribe-link'],
      );
      assert.deepEqual(await newslettersOf(userId), [b]);
      assert.equal((await consentOf(userId, b)).state, 'subscribed');
      const events = await service.client.get(`/events?filter[type]=newsletter_consent.changed&filter[user]=${userId}`);
      assert.deepEqual(events.body.data.at(-1).attributes.consent, {
        oldState: 'subscribed',
        newState: 'unsubscribed',
        source: 'unsubscribe-link',
      });
      assert.equal((await historyOf(userId, a)).at(-1)?.source, 'unsubscribe-link');
    });

    it('takes a multipart/form-data one-click POST too (RFC 8058)', async () => {
      const { userId, a, url } = await member();
      const body = new FormData();
      body.set('List-Unsubscribe', 'One-Click');
      assert.equal((await follow(url, { method: 'POST', body })).status, 200);
      assert.equal((await consentOf(userId, a)).state, 'unsubscribed');
    });

    it('is idempotent: a second POST answers 200 and records nothing more', async () => {
      const { userId, a, url } = await member();
      assert.equal((await follow(url, { method: 'POST', body: ONE_CLICK, headers: FORM })).status, 200);
      await assertUnchanged(userId, a, async () => {
        assert.equal((await follow(url, { method: 'POST', body: ONE_CLICK, headers: FORM })).status, 200);
      });
    });

    it('leaves a suppressed reader suppressed', async () => {
      const { userId, a, url } = await member();
      await mailer.patch(`/users/${userId}/newsletter-consents/${a}`, consentDocument(a, 'complained'));
      await assertUnchanged(userId, a, async () => {
        assert.equal((await follow(url, { method: 'POST', body: ONE_CLICK, headers: FORM })).status, 200);
      });
      assert.equal((await consentOf(userId, a)).state, 'complained');
    });

    it('without List-Unsubscribe=One-Click in the body is a 400 page, and changes nothing', async () => {
      const { userId, a, url } = await member();
      await assertUnchanged(userId, a, async () => {
        for (const body of [undefined, '', 'List-Unsubscribe=Two-Clicks', 'list-unsubscribe=One-Click']) {
          const page = await follow(url, { method: 'POST', body, headers: FORM });
          assert.equal(page.status, 400, `${body}: ${page.text}`);
          assert.equal(page.headers.get('content-type'), PAGE);
        }
      });
    });

    it('with a flipped bit, or another reader’s or newsletter’s, is a 404 page, and changes nothing', async () => {
      const { userId, a, b, url } = await member();
      const other = await member();
      await assertUnchanged(userId, a, () =>
        assertUnchanged(userId, b, () =>
          assertUnchanged(other.userId, other.a, async () => {
            for (const link of [
              flipped(url, 0),
              flipped(url, 20),
              flipped(url, -1),
              moved(url, userId, b),
              moved(url, other.userId, other.a),
              moved(other.url, userId, a),
            ]) {
              const page = await follow(link, { method: 'POST', body: ONE_CLICK, headers: FORM });
              assert.equal(page.status, 404, `${link}: ${page.text}`);
              assert.match(page.text, /This link does not work/);
            }
          }),
        ),
      );
    });

    it('of an erased reader stops working: a 404 page', async () => {
      const { userId, url } = await member();
      assert.equal((await service.client.delete(`/users/${userId}`)).status, 204);
      for (const method of ['GET', 'POST']) {
        const page = await follow(url, { method, body: method === 'POST' ? ONE_CLICK : undefined, headers: FORM });
        assert.equal(page.status, 404, page.text);
      }
    });
  });

  describe('10,000 one-click POSTs to one link', { skip: kind === 'Citus' && HTTP_ALONE }, () => {
    let limited: Service;
    before(async () => {
      // The address's bucket: 100 at once, 20 a second after.
      limited = await startService(kind, {
        auth: { enabled: true, adminKey: TEST_ADMIN_KEY, rateLimit: { perSecond: 20, burst: 100 } },
      });
    });
    after(() => limited.close());

    it('unsubscribe once, answer 200 or 429 (with Retry-After) and never a 5xx', async () => {
      const id = `n-${randomUUID()}`;
      await limited.client.post('/newsletters', { data: { type: 'newsletters', id, attributes: { name: id } } });
      const userId = await createUser(limited.client, { newsletters: { add: [id] } });
      const issued = await limited.client.post(
        `/users/${userId}/newsletter-consents/${id}/unsubscribe-links`,
        undefined,
      );
      const url = issued.body.meta.url as string;
      const statuses = new Map<number, number>();
      for (let sent = 0; sent < 10_000; sent += 100) {
        const answers = await Promise.all(
          Array.from({ length: 100 }, async () => {
            const response = await fetch(url, { method: 'POST', body: ONE_CLICK, headers: FORM });
            const text = await response.text();
            if (response.status === 429) assert.ok(Number(response.headers.get('retry-after')) >= 1);
            else assert.equal(response.status, 200, text);
            return response.status;
          }),
        );
        for (const status of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
      assert.deepEqual([...statuses.keys()].sort(), [200, 429]);
      assert.ok((statuses.get(429) ?? 0) > 5000, JSON.stringify([...statuses]));
      const history = await limited.client.get(`/users/${userId}/newsletter-consents/${id}/history`);
      assert.deepEqual(
        history.body.data.map((c: { attributes: { state: string } }) => c.attributes.state),
        ['subscribed', 'unsubscribed'],
      );
    });
  });

  describe('without a link key', { skip: kind === 'Citus' && HTTP_ALONE }, () => {
    let keyless: Service;
    before(async () => {
      keyless = await startService(kind, {
        keys: { webhook: undefined, fingerprint: undefined, links: undefined, device: undefined },
      });
    });
    after(() => keyless.close());

    it('no link is issued: 503 LINKS_NOT_CONFIGURED', async () => {
      const id = `n-${randomUUID()}`;
      await keyless.client.post('/newsletters', { data: { type: 'newsletters', id, attributes: { name: id } } });
      const userId = await createUser(keyless.client, { newsletters: { add: [id] } });
      for (const kindOfLink of ['confirmation-links', 'unsubscribe-links']) {
        const response = await keyless.client.post(
          `/users/${userId}/newsletter-consents/${id}/${kindOfLink}`,
          undefined,
        );
        assert.equal(onlyError(response, 503).code, 'LINKS_NOT_CONFIGURED');
      }
    });
  });
});
