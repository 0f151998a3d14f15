import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, onlyError, uniqueEmail } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

forEachStore((kind) => {
  let service: Service;
  const ids: string[] = [];
  const TOTAL = 250;

  before(async () => {
    service = await startService(kind);
    for (let i = 0; i < TOTAL; i += 1) {
      const domain = i % 50 === 0 ? 'Rare-Domain.org' : 'example.com';
      ids.push(await createUser(service.client, { email: uniqueEmail(domain), circulationNumber: `CN-${i % 7}` }));
    }
  });
  after(() => service.close());

  describe('GET /users', () => {
    it('answers 100 users a page, ordered by id, with absolute self, first and next links', async () => {
      const response = await service.client.get('/users');
      assert.equal(response.status, 200);
      assert.deepEqual(
        response.body.data.map((u: any) => u.id),
        ids.slice(0, 100),
      );
      assert.equal(response.body.links.self, `${service.baseUrl}/users`);
      assert.equal(response.body.links.first, `${service.baseUrl}/users?page%5Bnumber%5D=1`);
      assert.equal(response.body.links.next, `${service.baseUrl}/users?page%5Bnumber%5D=2&page%5Bafter%5D=${ids[99]}`);
      assert.equal(response.body.links.prev, undefined);
    });

    it('returns every user exactly once when following links.next to the end', async () => {
      const seen: string[] = [];
      let url: string | undefined = `${service.baseUrl}/users`;
      let pages = 0;
      while (url) {
        const response = await service.client.get(url.slice(service.baseUrl.length));
        seen.push(...response.body.data.map((u: any) => u.id));
        url = response.body.links.next;
        pages += 1;
      }
      assert.equal(pages, 3);
      assert.deepEqual(seen, ids);
    });

    it('selects a page with page[number] or with the bare page parameter', async () => {
      const byNumber = await service.client.get('/users?page[number]=3');
      const byPage = await service.client.get('/users?page=3');
      assert.deepEqual(
        byNumber.body.data.map((u: any) => u.id),
        ids.slice(200),
      );
      assert.deepEqual(byPage.body.data, byNumber.body.data);
      assert.equal(byNumber.body.links.next, undefined);
      assert.equal(byNumber.body.links.prev, `${service.baseUrl}/users?page%5Bnumber%5D=2`);
      assert.equal(byPage.body.links.self, `${service.baseUrl}/users?page=3`);
    });

    it('serves the same page through the page[after] of links.next as through page[number]', async () => {
      const byNumber = await service.client.get('/users?page[size]=25&page[number]=5');
      const byCursor = await service.client.get(`/users?page[size]=25&page[number]=5&page[after]=${ids[99]}`);
      assert.deepEqual(byCursor.body.data, byNumber.body.data);
      assert.deepEqual(byCursor.body.links.next, byNumber.body.links.next);
    });

    it('refuses a page[after] that is not an id', async () => {
      const error = onlyError(await service.client.get('/users?page[after]=abc'), 400);
      assert.deepEqual(error.source, { parameter: 'page[after]' });
    });

    it('answers an empty page past the end', async () => {
      const response = await service.client.get('/users?page[number]=99');
      assert.equal(response.status, 200);
      assert.deepEqual(response.body.data, []);
      assert.equal(response.body.links.next, undefined);
    });

    it('takes a smaller page[size] and keeps it in the links', async () => {
      const response = await service.client.get('/users?page[size]=10&page[number]=2');
      assert.deepEqual(
        response.body.data.map((u: any) => u.id),
        ids.slice(10, 20),
      );
      assert.equal(
        response.body.links.next,
        `${service.baseUrl}/users?page%5Bsize%5D=10&page%5Bnumber%5D=3&page%5Bafter%5D=${ids[19]}`,
      );
    });

    it('filters by a domain without regard to case, keeping the filter in first and next', async () => {
      const response = await service.client.get('/users?filter[email]=rare-domain.ORG');
      assert.equal(response.status, 200);
      assert.deepEqual(
        response.body.data.map((u: any) => u.id),
        ids.filter((_, i) => i % 50 === 0),
      );
      for (const user of response.body.data) assert.match(user.attributes.email, /@Rare-Domain\.org$/);
      assert.equal(
        response.body.links.first,
        `${service.baseUrl}/users?filter%5Bemail%5D=rare-domain.ORG&page%5Bnumber%5D=1`,
      );
    });

    it('filters by a whole address without regard to case', async () => {
      const user = await service.client.get(`/users/${ids[7]}`);
      const email: string = user.body.data.attributes.email;
      const response = await service.client.get(`/users?filter[email]=${encodeURIComponent(email.toUpperCase())}`);
      assert.deepEqual(
        response.body.data.map((u: any) => u.id),
        [ids[7]],
      );
    });

    it('filters by circulationNumber and combines filters with AND', async () => {
      const byNumber = await service.client.get('/users?filter[circulationNumber]=CN-3&page[size]=100');
      const expected = ids.filter((_, i) => i % 7 === 3);
      assert.deepEqual(
        byNumber.body.data.map((u: any) => u.id),
        expected,
      );
      const both = await service.client.get('/users?filter[circulationNumber]=CN-0&filter[email]=rare-domain.org');
      assert.deepEqual(
        both.body.data.map((u: any) => u.id),
        ids.filter((_, i) => i % 7 === 0 && i % 50 === 0),
      );
      assert.match(both.body.links.first, /filter%5BcirculationNumber%5D=CN-0/);
      assert.match(both.body.links.first, /filter%5Bemail%5D=rare-domain\.org/);
    });

    it('keeps a filter in links.next across pages', async () => {
      const first = await service.client.get('/users?filter[email]=example.com');
      assert.equal(first.body.data.length, 100);
      assert.equal(
        first.body.links.next,
        `${service.baseUrl}/users?filter%5Bemail%5D=example.com&page%5Bnumber%5D=2&page%5Bafter%5D=${first.body.data[99].id}`,
      );
      const second = await service.client.get(first.body.links.next.slice(service.baseUrl.length));
      assert.ok(second.body.data.every((u: any) => u.attributes.email.endsWith('@example.com')));
    });

    it('refuses an unknown filter with 400 naming it', async () => {
      const error = onlyError(await service.client.get('/users?filter[givenName]=Ada'), 400);
      assert.deepEqual(error.source, { parameter: 'filter[givenName]' });
    });

    it('refuses a page number that is not a positive integer', async () => {
      for (const value of ['0', '-1', 'two', '1.5']) {
        const error = onlyError(await service.client.get(`/users?page[number]=${value}`), 400);
        assert.deepEqual(error.source, { parameter: 'page[number]' });
      }
    });

    it('refuses a page size over 100', async () => {
      const error = onlyError(await service.client.get('/users?page[size]=101'), 400);
      assert.deepEqual(error.source, { parameter: 'page[size]' });
    });

    it('refuses a page by number that starts beyond the first 10,000 users, pointing at links.next', async () => {
      assert.equal((await service.client.get('/users?page[size]=1&page[number]=10000')).status, 200);
      for (const [query, parameter] of [
        ['page[size]=1&page[number]=10001', 'page[number]'],
        ['page=101', 'page'],
        ['page[number]=9999999', 'page[number]'],
      ]) {
        const error = onlyError(await service.client.get(`/users?${query}`), 400);
        assert.equal(error.code, 'PAGE_TOO_DEEP');
        assert.deepEqual(error.source, { parameter });
        assert.match(error.detail, /links\.next/);
      }
    });

    it('serves any depth through page[after], giving no prev link that would be refused', async () => {
      const deep = await service.client.get(`/users?page[size]=1&page[number]=10002&page[after]=${ids[10]}`);
      assert.equal(deep.status, 200, deep.text);
      assert.deepEqual(
        deep.body.data.map((u: any) => u.id),
        [ids[11]],
      );
      assert.equal(deep.body.links.prev, undefined);
      assert.match(deep.body.links.next, /page%5Bnumber%5D=10003&page%5Bafter%5D=/);
      const shallow = await service.client.get(`/users?page[size]=1&page[number]=10001&page[after]=${ids[10]}`);
      assert.equal(shallow.body.links.prev, `${service.baseUrl}/users?page%5Bsize%5D=1&page%5Bnumber%5D=10000`);
    });
  });
});
