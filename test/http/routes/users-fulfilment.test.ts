/**
 * GET /users as fulfilment asks it, over real HTTP on both stores and Citus: the members of a newsletter,
 * and the users with a subscription active now (giving a resource, of a product), combined with
 * each other and the older filters, paged by links.next: as far as each page needs to read, and
 * again with pages that read at most three index entries each, which stop short of their size.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, onlyError, subscriptionDocument, uniqueEmail } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStoreAndCitus } from '../../support/citus.js';

forEachStoreAndCitus((kind) => {
  for (const pageReadLimit of [undefined, 3]) {
    describe(
      pageReadLimit === undefined
        ? 'reading as far as a page needs'
        : `reading at most ${pageReadLimit} entries a page`,
      () => {
        let service: Service;
        const tag = `${process.pid}`;
        const newsletter = `morning-${tag}`;
        const paper = `paper-${tag}`;
        const domain = `fulfilment-${tag}.example`;
        /** Who is what, by the index they were made at. */
        const users: string[] = [];
        const printReaders: string[] = [];
        const members: string[] = [];

        const now = Date.now();
        const inDays = (days: number) => new Date(now + days * 86_400_000).toISOString();
        /** Readers of the soon product: one whose subscription ended, one active, one whose starts in a moment. */
        const soon = `soon-${tag}`;
        const soonReaders: string[] = [];
        let soonStarts = 0;

        before(async () => {
          service = await startService(kind, {}, { pageReadLimit });
          await service.client.post('/products', {
            data: { type: 'products', id: paper, attributes: { name: 'Paper', resource: 'print' } },
          });
          for (let i = 0; i < 30; i += 1) {
            const onNewsletter = i % 2 === 0;
            const id = await createUser(service.client, {
              email: uniqueEmail(i % 5 === 0 ? domain : 'example.com'),
              newsletters: { add: onNewsletter ? [newsletter] : [] },
            });
            users.push(id);
            if (onNewsletter) members.push(id);
            // Every third reads print now: a print subscription, or one to the paper product without a resource.
            const print = i % 3 === 0;
            const relationships = i % 6 === 0 ? { product: { data: { type: 'products', id: paper } } } : undefined;
            const response = await service.client.post(
              `/users/${id}/subscriptions`,
              subscriptionDocument(
                {
                  dateStarted: inDays(-10),
                  dateEnded: i % 4 === 1 ? inDays(-1) : inDays(10),
                  resource: print ? (relationships ? null : 'print') : 'online',
                },
                relationships,
              ),
            );
            assert.equal(response.status, 201, response.text);
            if (print && i % 4 !== 1) printReaders.push(id);
          }
        });
        // Made before the tests run, so that its last subscription has started by the time they reach it.
        before(async () => {
          await service.client.post('/products', {
            data: { type: 'products', id: soon, attributes: { name: 'Soon', resource: 'online' } },
          });
          soonStarts = Date.now() + 1500;
          const dates = [
            { dateStarted: inDays(-10), dateEnded: inDays(-1) },
            { dateStarted: inDays(-10), dateEnded: null },
            { dateStarted: new Date(soonStarts).toISOString(), dateEnded: null },
          ];
          for (const { dateStarted, dateEnded } of dates) {
            const id = await createUser(service.client);
            soonReaders.push(id);
            const response = await service.client.post(
              `/users/${id}/subscriptions`,
              subscriptionDocument({ dateStarted, dateEnded }, { product: { data: { type: 'products', id: soon } } }),
            );
            assert.equal(response.status, 201, response.text);
          }
        });
        after(() => service.close());

        /** Every user id the list answers, following links.next, checking each link keeps the filters. */
        async function follow(query: string, size = 4): Promise<string[]> {
          const seen: string[] = [];
          let path: string | undefined = `/users?${query}&page[size]=${size}`;
          for (let pages = 0; path; pages += 1) {
            assert.ok(pages < 100, `links.next went on past 100 pages: ${path}`);
            const response = await service.client.get(path);
            assert.equal(response.status, 200, response.text);
            seen.push(...response.body.data.map((u: any) => u.id));
            const next: string | undefined = response.body.links.next;
            for (const [name, value] of next ? new URLSearchParams(query) : []) {
              assert.equal(new URL(next as string).searchParams.get(name), value, `${next} lost ${name}`);
            }
            path = next?.slice(service.baseUrl.length);
          }
          return seen;
        }

        describe('GET /users?filter[newsletter]', () => {
          it("lists a newsletter's members, every one once, in id order across pages", async () => {
            assert.deepEqual(await follow(`filter[newsletter]=${newsletter}`), members);
          });

          it('lists nobody for a newsletter no one is on', async () => {
            assert.deepEqual((await service.client.get(`/users?filter[newsletter]=nobody-${tag}`)).body.data, []);
          });
        });

        describe('GET /users?filter[status]=active', () => {
          it('lists the users with an active subscription giving print, their own or their product', async () => {
            assert.deepEqual(await follow('filter[status]=active&filter[resource]=print'), printReaders);
          });

          it('lists the users with an active subscription of a product', async () => {
            const expected = users.filter((_, i) => i % 6 === 0 && i % 4 !== 1);
            assert.deepEqual(await follow(`filter[status]=active&filter[product]=${paper}`), expected);
          });

          it('combines with filter[newsletter] and filter[email], and runs newest first', async () => {
            const both = printReaders.filter((id) => members.includes(id));
            assert.deepEqual(
              await follow(`filter[status]=active&filter[resource]=print&filter[newsletter]=${newsletter}`),
              both,
            );
            const atDomain = users.filter((_, i) => i % 5 === 0);
            assert.deepEqual(
              await follow(`filter[status]=active&filter[resource]=print&filter[email]=${domain}`),
              printReaders.filter((id) => atDomain.includes(id)),
            );
            assert.deepEqual(
              await follow(`filter[status]=active&filter[resource]=print&sort=-id`),
              [...printReaders].reverse(),
            );
          });

          // Only where pages are read as far as they need: at three entries a page, page 2 stops short.
          if (pageReadLimit === undefined) {
            it('gives a page asked for by number and answered whole a links.prev to the page before it', async () => {
              const query = 'filter[status]=active&filter[resource]=print&page[size]=2';
              const response = await service.client.get(`/users?${query}&page[number]=2`);
              assert.equal(response.status, 200, response.text);
              assert.equal(
                response.body.links.prev,
                `${service.baseUrl}/users?filter%5Bstatus%5D=active&filter%5Bresource%5D=print&page%5Bsize%5D=2&page%5Bnumber%5D=1`,
              );
            });
          }

          it('answers 400 naming the parameter for a status other than active, an unknown resource, or a resource alone', async () => {
            for (const [query, parameter] of [
              ['filter[status]=ended', 'filter[status]'],
              ['filter[status]=active&filter[resource]=radio', 'filter[resource]'],
              ['filter[resource]=print', 'filter[resource]'],
              [`filter[product]=${paper}`, 'filter[product]'],
              ['filter[newsletter]=', 'filter[newsletter]'],
            ]) {
              const error = onlyError(await service.client.get(`/users?${query}`), 400);
              assert.equal(error.source.parameter, parameter, query);
            }
          });

          // Last, as it adds a reader of print. Past the first 32 products giving print (in id order),
          // the store reads the rest together rather than one by one: paper is among those now.
          it('lists the readers of print by their product where more products give print than are sought one by one', async () => {
            for (let i = 0; i < 40; i += 1) {
              const id = `bulk-${tag}-${String(i).padStart(2, '0')}`;
              const response = await service.client.post('/products', {
                data: { type: 'products', id, attributes: { name: id, resource: 'print' } },
              });
              assert.equal(response.status, 201, response.text);
            }
            const reader = await createUser(service.client);
            const response = await service.client.post(
              `/users/${reader}/subscriptions`,
              subscriptionDocument(
                { dateStarted: inDays(-10), dateEnded: inDays(10), resource: null },
                { product: { data: { type: 'products', id: `bulk-${tag}-39` } } },
              ),
            );
            assert.equal(response.status, 201, response.text);
            assert.deepEqual(await follow('filter[status]=active&filter[resource]=print'), [...printReaders, reader]);
          });
        });

        describe('a subscription whose start has just come', () => {
          // Until the starts' job clears its hint, such a subscription is found by an index of its own.
          it('lists its reader in id order, in either direction and one a page, with links.next that end', async () => {
            await new Promise((resolve) => setTimeout(resolve, Math.max(0, soonStarts - Date.now() + 100)));
            const active = soonReaders.slice(1);
            const query = `filter[status]=active&filter[product]=${soon}`;
            assert.deepEqual(await follow(query, 1), active);
            assert.deepEqual(await follow(`${query}&sort=-id`, 1), [...active].reverse());
          });
        });

        if (pageReadLimit !== undefined) {
          describe('pages that stop short', () => {
            const sparse = `filter[status]=active&filter[resource]=print&filter[newsletter]=${newsletter}&page[size]=4`;

            it('answers fewer users than a page holds, with a links.next that goes on after the last entry it read', async () => {
              const response = await service.client.get(`/users?${sparse}`);
              assert.equal(response.status, 200, response.text);
              const ids: string[] = response.body.data.map((u: any) => u.id);
              assert.ok(ids.length < 4, response.text);
              const after = new URL(response.body.links.next).searchParams.get('page[after]');
              assert.ok(after !== null && ids.every((id) => Number(id) <= Number(after)), response.text);
            });

            it('gives a page reached by links.next no links.prev, since page n of such a list is not known by number', async () => {
              const first = await service.client.get(`/users?${sparse}`);
              const second = await service.client.get(first.body.links.next.slice(service.baseUrl.length));
              assert.equal(second.status, 200, second.text);
              assert.equal(second.body.links.prev, undefined, second.text);
            });

            it('refuses a page by number, which starts where no one knows: 400 PAGE_TOO_SPARSE naming the parameter', async () => {
              for (const parameter of ['page[number]', 'page']) {
                const error = onlyError(await service.client.get(`/users?${sparse}&${parameter}=2`), 400);
                assert.equal(error.code, 'PAGE_TOO_SPARSE');
                assert.equal(error.source.parameter, parameter);
              }
            });
          });
        }
      },
    );
  }
});
