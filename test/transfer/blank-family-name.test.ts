/**
 * `--allow-blank-family-name`: an import may take a reader without a family name (a mononym, a
 * company account), which the API refuses, on both stores behind a real service; whatever reads
 * a family name (the user list and its search, a reader's page, events, exports) copes with an
 * empty one, and the API still refuses a blank one. And the report's line numbers after a cell
 * holding a line break.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { exportUsers } from '../../src/transfer/export.js';
import { importFile, type ImportOptions, type Rejection } from '../../src/transfer/import.js';
import { createUser, userDocument } from '../support/fixtures.js';
import { startService, type Service } from '../support/service.js';
import { forEachStore } from '../support/stores.js';

const dir = mkdtempSync(join(tmpdir(), 'circulation-blank-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The file: a mononym, a company with only spaces, a reader with a name, two with a note of two
 * lines (a CRLF, an LF), then a broken row at line 9.
 */
const FILE = [
  'email,givenName,familyName,internalNotes',
  'cher@blank.example,Cherilyn,,',
  'acme@blank.example,Acme Ltd,"   ",',
  'ann@blank.example,Ann,Ames,',
  'two@blank.example,Two,Lines,"first line\r\nsecond line"',
  'lf@blank.example,Lf,Lines,"first\nsecond"',
  'broken@blank.example,Broken,Row',
  '',
].join('\r\n');

forEachStore((kind) => {
  describe('importing readers without a family name', () => {
    let service: Service;
    let file: string;

    const run = async (options: Partial<ImportOptions> = {}, path = file) => {
      const rejections: Rejection[] = [];
      const result = await importFile(service.store, path, {
        format: 'csv',
        audit: { actor: 'import', attributes: [] },
        onRejected: async (rejection) => {
          rejections.push(rejection);
        },
        ...options,
      });
      return { result, rejections };
    };
    const allowed = { leniency: { allowBlankFamilyName: true } };
    const idOf = async (email: string) => {
      const [row] = await service.sql(`SELECT id FROM users WHERE email_lower = '${email}'`);
      return String(row?.id);
    };

    before(async () => {
      service = await startService(kind);
      file = join(dir, `${kind}.csv`);
      writeFileSync(file, FILE);
    });
    after(() => service.close());

    it('refuses a blank family name without the flag, as the API does, reporting each row at its own line', async () => {
      const { result, rejections } = await run({ dryRun: true });
      assert.equal(result.created, 3);
      assert.deepEqual(
        rejections.map((r) => [r.line, r.email, r.errors]),
        [
          [2, 'cher@blank.example', ["familyName: can't be blank"]],
          [3, 'acme@blank.example', ["familyName: can't be blank"]],
          [9, 'broken@blank.example', ['the row: has 3 cells where the header has 4']],
        ],
      );
    });

    it('takes them with the flag, with an empty family name, and their events name it', async () => {
      const { result, rejections } = await run(allowed);
      assert.equal(result.created, 5);
      assert.deepEqual(
        rejections.map((r) => r.line),
        [9],
      );
      const rows = await service.sql(`SELECT email, family_name FROM users WHERE family_name = '' ORDER BY email`);
      assert.deepEqual(
        rows.map((r) => [r.email, r.family_name]),
        [
          ['acme@blank.example', ''],
          ['cher@blank.example', ''],
        ],
      );
      const page = await service.client.get(`/users/${await idOf('cher@blank.example')}`);
      assert.equal(page.status, 200, page.text);
      assert.equal(page.body.data.attributes.familyName, '');
      assert.equal(page.body.data.attributes.givenName, 'Cherilyn');
      const events = await service.client.get(`/events?filter[type]=user.created`);
      assert.equal(events.status, 200, events.text);
      const cher = events.body.data.find((e: { attributes: { resourceId?: string; userId?: string } }) =>
        JSON.stringify(e).includes(`"${page.body.data.id}"`),
      );
      assert.ok(cher, 'the created reader has a user.created event');
      assert.ok(JSON.stringify(cher).includes('familyName'), 'naming familyName');
    });

    it('writes nothing on a second run of the same file', async () => {
      const before = await service.snapshot();
      const { result } = await run(allowed);
      assert.deepEqual([result.created, result.updated, result.unchanged], [0, 0, 5]);
      assert.equal(await service.snapshot(), before);
    });

    it('keeps the family name of a reader there before when a row leaves it blank', async () => {
      const id = await createUser(service.client, { email: 'named@blank.example', familyName: 'Named' });
      const path = join(dir, `${kind}-named.csv`);
      writeFileSync(path, 'email,familyName,jobTitle\nnamed@blank.example,,Editor\n');
      const { result, rejections } = await run(allowed, path);
      assert.deepEqual([result.updated, rejections], [1, []]);
      const page = await service.client.get(`/users/${id}`);
      assert.deepEqual([page.body.data.attributes.familyName, page.body.data.attributes.jobTitle], ['Named', 'Editor']);
    });

    it('finds a reader without a family name by their given name, their email and a name one typo away', async () => {
      const found = async (query: string) => {
        const response = await service.client.get(`/users?${query}`);
        assert.equal(response.status, 200, response.text);
        return response.body.data.map((u: { attributes: { email: string } }) => u.attributes.email);
      };
      assert.deepEqual(await found('filter[q]=cher'), ['cher@blank.example']);
      assert.deepEqual(await found('filter[q]=acme'), ['acme@blank.example']);
      assert.deepEqual(await found('filter[q]=cher@blank.example'), ['cher@blank.example']);
      assert.ok((await found('filter[q]=cherilin&sort=relevance')).includes('cher@blank.example'));
    });

    it('lists readers without a family name beside the others, in id order either way', async () => {
      const emails = async (sort: string) => {
        const response = await service.client.get(`/users?filter[email]=blank.example&sort=${sort}`);
        assert.equal(response.status, 200, response.text);
        return response.body.data.map((u: { attributes: { email: string } }) => u.attributes.email);
      };
      const ascending = await emails('id');
      assert.deepEqual(ascending.slice(0, 2), ['cher@blank.example', 'acme@blank.example']);
      assert.deepEqual(await emails('-id'), [...ascending].reverse());
    });

    it('exports a reader without a family name with an empty cell, and names them by what they have', async () => {
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on('data', (chunk: Buffer) => chunks.push(chunk));
      await exportUsers(service.store, out, {
        format: 'csv',
        email: { domain: 'blank.example' },
        columns: ['email', 'familyName', 'name'],
      });
      const lines = Buffer.concat(chunks).toString().trim().split(/\r?\n/);
      assert.deepEqual(lines.slice(0, 3), [
        'email,familyName,name',
        'cher@blank.example,,Cherilyn',
        'acme@blank.example,,Acme Ltd',
      ]);
    });

    it('still refuses a blank family name through the API, and lets one without change the rest', async () => {
      const created = await service.client.post('/users', userDocument({ familyName: '  ' }));
      assert.equal(created.status, 422, created.text);
      assert.equal(created.body.errors[0].source.pointer, '/data/attributes/familyName');
      const id = await idOf('cher@blank.example');
      const blanked = await service.client.patch(`/users/${id}`, {
        data: { type: 'users', id, attributes: { familyName: '' } },
      });
      assert.equal(blanked.status, 422, blanked.text);
      const changed = await service.client.patch(`/users/${id}`, {
        data: { type: 'users', id, attributes: { jobTitle: 'Singer' } },
      });
      assert.equal(changed.status, 200, changed.text);
      assert.deepEqual(
        [changed.body.data.attributes.familyName, changed.body.data.attributes.jobTitle],
        ['', 'Singer'],
      );
    });
  });
});
