/**
 * GET /users?filter[q]=…: one search box that finds a reader by the start of their email, family
 * or given name (without regard to case or accents), or by their whole circulation number or id;
 * by given and family name together, a name typed without its apostrophes, and a name one typo off.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubscription, createUser, onlyError, uniqueEmail } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  const found = async (q: string, more = '') => {
    const response = await service.client.get(`/users?filter[q]=${encodeURIComponent(q)}${more}`);
    assert.equal(response.status, 200, response.text);
    return response.body.data.map((u: any) => u.id) as string[];
  };
  /** As `found`, with names one typo off (sort=relevance). */
  const similar = (q: string, more = '') => found(q, `&sort=relevance${more}`);

  describe('GET /users?filter[q]', () => {
    it('finds a family name by its start, without regard to case or accents', async () => {
      const muller = await createUser(service.client, { familyName: 'Müller', email: uniqueEmail() });
      const mullerova = await createUser(service.client, { familyName: 'MULLEROVÁ', email: uniqueEmail() });
      await createUser(service.client, { familyName: 'Mulan', email: uniqueEmail() });
      assert.deepEqual(await found('muller'), [muller, mullerova]);
      assert.deepEqual(await found('MÜLLERO'), [mullerova]);
      assert.deepEqual(await found('  Müller  '), [muller, mullerova]);
    });

    it('finds a given name by its start', async () => {
      const id = await createUser(service.client, { familyName: 'Smith', givenName: 'Zoë', email: uniqueEmail() });
      assert.deepEqual(await found('zoe'), [id]);
      assert.deepEqual(await found('Zoë'), [id]);
    });

    it('finds a name of one or two letters whole, not as the start of longer names', async () => {
      const li = await createUser(service.client, { familyName: 'Li', email: uniqueEmail() });
      const lindqvist = await createUser(service.client, { familyName: 'Lindqvist', email: uniqueEmail() });
      const yo = await createUser(service.client, { familyName: 'Smith', givenName: 'Yo', email: uniqueEmail() });
      assert.deepEqual(await found('LI'), [li]);
      assert.deepEqual(await found('lin'), [lindqvist]);
      assert.deepEqual(await found('yo'), [yo]);
    });

    it('finds a name written with letters whose capitals differ: ß, dotless ı, final sigma', async () => {
      const strasse = await createUser(service.client, { familyName: 'Straße', email: uniqueEmail() });
      const yildiz = await createUser(service.client, { familyName: 'Yıldız', email: uniqueEmail() });
      const greek = await createUser(service.client, { familyName: 'Παπαστράτος', email: uniqueEmail() });
      assert.deepEqual(await found('STRASSE'), [strasse]);
      assert.deepEqual(await found('YILDIZ'), [yildiz]);
      assert.deepEqual(await found('ΠΑΠΑΣΤΡΑΤΟΣ'), [greek]);
    });

    it('finds an email by its start or whole, without regard to case', async () => {
      const email = `Quentin.Qwerty.${process.pid}@Search.example`;
      const id = await createUser(service.client, { email });
      assert.deepEqual(await found('quentin.qwerty'), [id]);
      assert.deepEqual(await found(email.toUpperCase()), [id]);
    });

    it('finds a whole circulation number and a user id, but not a number that only starts one', async () => {
      const byNumber = await createUser(service.client, { circulationNumber: 'CN-4711', email: uniqueEmail() });
      assert.deepEqual(await found('CN-4711'), [byNumber]);
      assert.deepEqual(await found('CN-471'), []);
      const other = await createUser(service.client, { email: uniqueEmail() });
      assert.ok((await found(other)).includes(other));
    });

    it('answers 20 readers a page by default, in id order, and links.next reaches every match once', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 45; i += 1) {
        ids.push(await createUser(service.client, { familyName: `Pagewright ${i}`, email: uniqueEmail() }));
      }
      const seen: string[] = [];
      let url: string | undefined = '/users?filter[q]=pagewright';
      const sizes: number[] = [];
      while (url) {
        const response = await service.client.get(url.replace(service.baseUrl, ''));
        assert.equal(response.status, 200, response.text);
        sizes.push(response.body.data.length);
        seen.push(...response.body.data.map((u: any) => u.id));
        url = response.body.links.next;
        if (url) assert.match(url, /filter%5Bq%5D=pagewright/);
      }
      assert.deepEqual(sizes, [20, 20, 5]);
      assert.deepEqual(seen, ids);
      assert.equal((await found('pagewright', '&page[size]=7')).length, 7);
    });

    it('follows a change of name, and forgets an erased reader', async () => {
      const id = await createUser(service.client, {
        familyName: 'Oldname',
        givenName: 'Firstly',
        email: uniqueEmail(),
      });
      const patched = await service.client.patch(`/users/${id}`, {
        data: { type: 'users', id, attributes: { familyName: 'Newname', givenName: null } },
      });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(await found('oldname'), []);
      assert.deepEqual(await found('firstly'), []);
      assert.deepEqual(await found('newname'), [id]);
      assert.equal((await service.client.delete(`/users/${id}`)).status, 204);
      assert.deepEqual(await found('newname'), []);
    });

    it('takes SQL and pattern metacharacters as the characters they are', async () => {
      const id = await createUser(service.client, { familyName: "O'Hara_%*", email: uniqueEmail() });
      await createUser(service.client, { familyName: 'Ohare', email: uniqueEmail() });
      assert.deepEqual(await found("o'hara_%*"), [id]);
      assert.deepEqual(await found('o_'), []);
      assert.deepEqual(await found('o%'), []);
      for (const q of ["' OR 1=1 --", '.*', '%', '_', '\\', '[a-z]+', '"; DROP TABLE users; --']) {
        assert.deepEqual(await found(q), [], q);
      }
    });

    it('answers a search of bytes that are no UTF-8 text, or of a NUL, with a page or a 400, never a 5xx', async () => {
      for (const q of ['%FF%FE', '%ED%A0%80', '%C3', '%00', 'a%00b']) {
        const response = await service.client.get(`/users?filter[q]=${q}`);
        assert.ok(response.status === 200 || response.status === 400, `${q}: ${response.status} ${response.text}`);
        if (response.status === 400) assert.deepEqual(onlyError(response, 400).source, { parameter: 'filter[q]' });
      }
    });

    it('answers an empty page, with no next link, when nothing matches', async () => {
      const response = await service.client.get('/users?filter[q]=nobody-is-called-this');
      assert.equal(response.status, 200);
      assert.deepEqual(response.body.data, []);
      assert.equal(response.body.links.next, undefined);
    });

    it('combines with the other filters', async () => {
      const here = await createUser(service.client, { familyName: 'Combiner', email: uniqueEmail('combined.example') });
      await createUser(service.client, { familyName: 'Combiner', email: uniqueEmail() });
      assert.deepEqual(await found('combiner', '&filter[email]=combined.example'), [here]);
    });

    it('finds given and family name together from two words, in either order, each the start of one', async () => {
      const priya = await createUser(service.client, { givenName: 'Priya', familyName: 'Núñez', email: uniqueEmail() });
      await createUser(service.client, { givenName: 'Priya', familyName: 'Patel', email: uniqueEmail() });
      await createUser(service.client, { givenName: 'Pilar', familyName: 'Núñez', email: uniqueEmail() });
      assert.deepEqual(await found('priya nunez'), [priya]);
      assert.deepEqual(await found('Núñez  Priya'), [priya]);
      assert.deepEqual(await found('pri nun'), [priya]);
      assert.deepEqual(await found('priya nunez smith'), []);
      assert.deepEqual(await found('priya zunez'), []);
    });

    it('finds a name typed without its apostrophes, hyphens, spaces or special letters', async () => {
      const obrien = await createUser(service.client, {
        givenName: 'Seán',
        familyName: "O'Brien",
        email: uniqueEmail(),
      });
      const dangelo = await createUser(service.client, { familyName: 'D’Angelo', email: uniqueEmail() });
      const odegaard = await createUser(service.client, { familyName: 'Ødegaard', email: uniqueEmail() });
      const lecki = await createUser(service.client, { familyName: 'Łęcki', email: uniqueEmail() });
      const jeanluc = await createUser(service.client, {
        givenName: 'Jean-Luc',
        familyName: 'Ztest',
        email: uniqueEmail(),
      });
      assert.deepEqual(await found('obrien'), [obrien]);
      assert.deepEqual(await found("o'brien"), [obrien]);
      assert.deepEqual(await found('o brien'), [obrien]);
      assert.deepEqual(await found('sean obrien'), [obrien]);
      assert.deepEqual(await found('dangelo'), [dangelo]);
      assert.deepEqual(await found('odegaard'), [odegaard]);
      assert.deepEqual(await found('ØDEGAARD'), [odegaard]);
      assert.deepEqual(await found('lecki'), [lecki]);
      assert.deepEqual(await found('jeanluc'), [jeanluc]);
    });

    it('finds a name of five letters or more one typo off, after the names the text starts', async () => {
      const quartin = await createUser(service.client, { familyName: 'Quartin', email: uniqueEmail() });
      const quarten = await createUser(service.client, { familyName: 'Quarten', email: uniqueEmail() });
      // Starts with the text, then one letter off; in id order the other way round.
      assert.deepEqual(await similar('quarten'), [quarten, quartin]);
      assert.deepEqual(
        await similar('quartxn'),
        [quartin, quarten].sort((a, b) => Number(a) - Number(b)),
      );
      assert.deepEqual(
        await similar('quartn'),
        [quartin, quarten].sort((a, b) => Number(a) - Number(b)),
      );
      const given = await createUser(service.client, {
        givenName: 'Velmora',
        familyName: 'Ytest',
        email: uniqueEmail(),
      });
      assert.deepEqual(await similar('velmara'), [given]);
    });

    it('forgives one typo in a name of five letters, none in one of four, and never two', async () => {
      const five = await createUser(service.client, { familyName: 'Tarvo', email: uniqueEmail() });
      await createUser(service.client, { familyName: 'Kvib', email: uniqueEmail() });
      assert.deepEqual(await similar('tarvi'), [five]);
      assert.deepEqual(await similar('tarv'), [five]);
      assert.deepEqual(await similar('tharvo'), [five]);
      assert.deepEqual(await similar('kvig'), []);
      assert.deepEqual(await similar('tarii'), []);
      assert.deepEqual(await similar('atrvo'), []);
    });

    it('refuses sort=relevance without filter[q] with 400 pointing at sort', async () => {
      const error = onlyError(await service.client.get('/users?sort=relevance'), 400);
      assert.deepEqual(error.source, { parameter: 'sort' });
    });

    it('offers similar names on the first page only, of a search with no other filter, and links no further', async () => {
      const first = await createUser(service.client, { familyName: 'Wendrake', email: uniqueEmail('near.example') });
      const second = await createUser(service.client, { familyName: 'Wendrako', email: uniqueEmail() });
      const response = await service.client.get('/users?filter[q]=wendraki&sort=relevance');
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        response.body.data.map((u: any) => u.id),
        [first, second],
      );
      assert.equal(response.body.links.next, undefined);
      // The same through the other rendering (fields asked for).
      assert.deepEqual(await similar('wendraki', '&fields[users]=familyName'), [first, second]);
      // Not asked for, a page filled by the matches, another filter, or a later page: no similar names.
      assert.deepEqual(await found('wendraki'), []);
      assert.deepEqual(await similar('wendrake', '&page[size]=1'), [first]);
      assert.deepEqual(await similar('wendraki', '&filter[email]=near.example'), []);
      assert.deepEqual(await similar('wendraki', `&page[after]=${first}`), []);
    });

    it('marks each reader it finds with whether they have a subscription active now, however rendered', async () => {
      const active = await createUser(service.client, { familyName: 'Activelyn', email: uniqueEmail() });
      const lapsed = await createUser(service.client, { familyName: 'Activelyn', email: uniqueEmail() });
      await createSubscription(service.client, active, { dateStarted: '2020-01-01T00:00:00+00:00', dateEnded: null });
      await createSubscription(service.client, lapsed, {
        dateEnded: '2021-01-01T00:00:00+00:00',
        dateStarted: '2020-01-01T00:00:00+00:00',
      });
      await createSubscription(service.client, lapsed, { dateStarted: '2099-01-01T00:00:00+00:00', dateEnded: null });
      for (const more of ['', '&fields[users]=familyName', '&include=subscriptions', '&sort=relevance']) {
        const response = await service.client.get(`/users?filter[q]=activelyn${more}`);
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(
          response.body.data.map((u: any) => [u.id, u.meta]),
          [
            [active, { active: true }],
            [lapsed, { active: false }],
          ],
          more,
        );
      }
      // Only a search's page says it.
      const listed = await service.client.get(`/users?filter[email]=${encodeURIComponent('x@nobody.example')}`);
      assert.equal(listed.status, 200, listed.text);
      const one = await service.client.get(`/users/${active}`);
      assert.equal(one.body.data.meta, undefined);
    });

    it('refuses a search longer than any email or name with 400 pointing at filter[q]', async () => {
      const error = onlyError(await service.client.get(`/users?filter[q]=${'a'.repeat(255)}`), 400);
      assert.deepEqual(error.source, { parameter: 'filter[q]' });
    });

    it('refuses a search of white space only with 400 pointing at filter[q]', async () => {
      const error = onlyError(await service.client.get('/users?filter[q]=%20%20'), 400);
      assert.deepEqual(error.source, { parameter: 'filter[q]' });
    });
  });
});
