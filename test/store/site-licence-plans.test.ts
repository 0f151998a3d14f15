/**
 * The plans of the site licence lookups at 10,000 licences with 50,000 ranges, overlapping ones
 * included, on every store: the licences of an address are exact probes of the ranges' primary key
 * (one per prefix length) and then of the subscriptions' key, and a reader's domain the same of
 * the domains' key; no table is scanned. The answers are checked against the same licences
 * worked out here, so the probes find every range that holds the address, however they overlap.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { addressKeys, domainKeys, parseAddress, parseRange, type Address } from '../../src/domain/site-licence.js';
import { instantValue } from '../../src/store/sql/rows.js';
import {
  distinctLicences,
  licencesOfDomains,
  licencesOfNetwork,
  RANGE_PREFIX_LENGTHS,
} from '../../src/store/sql/site-licences.js';
import { openPostgresStore } from '../../src/store/postgres/open.js';
import { recordStatements } from '../support/statements.js';
import { forEachStore, openTestStore, type Row, type TestStore } from '../support/stores.js';

const LICENCES = 10_000;

/** Five ranges of licence `n`, from a /8 that a hundred licences share to a host of its own. */
function rangesOf(n: number): string[] {
  const [a, b, c] = [n % 256, Math.floor(n / 256) % 256, n % 7];
  return [
    n % 100 === 0 ? '10.0.0.0/8' : `11.${a}.0.0/16`,
    `10.${a}.0.0/16`,
    `10.${a}.${b}.0/24`,
    `10.${a}.${b}.${c}/32`,
    `2001:db8:${n.toString(16)}::/48`,
  ];
}

const address = (text: string): Address => {
  const parsed = parseAddress(text);
  assert.ok(parsed.ok);
  return parsed.value;
};

/** The licences (1 to LICENCES, each its owner's first) whose ranges hold the address, worked out one by one. */
function expectedLicences(text: string): string[] {
  const keys = new Set(
    addressKeys(address(text)).map((k) => `${k.prefixLength}/${Buffer.from(k.network).toString('hex')}`),
  );
  const found: string[] = [];
  for (let n = 1; n <= LICENCES; n++) {
    const holds = rangesOf(n).some((range) => {
      const parsed = parseRange(range);
      assert.ok(parsed.ok, range);
      return keys.has(`${parsed.value.prefixLength}/${Buffer.from(parsed.value.network).toString('hex')}`);
    });
    if (holds) found.push(String(n));
  }
  return found;
}

forEachStore((kind) => {
  let store: TestStore;
  /** SQLite: a writable connection beside the store's (the test store's own reads only). */
  let file: Database.Database | undefined;
  const run = async (text: string, params: unknown[] = []): Promise<Row[]> =>
    file ? (file.prepare(text).all(...params) as Row[]) : store.sql(text, params);
  const write = async (text: string, params: unknown[] = []): Promise<void> => {
    if (file) file.prepare(text).run(...params);
    else await store.sql(text, params);
  };
  const dialect = kind === 'SQLite' ? 'sqlite' : 'postgres';
  const now = Math.floor(Date.now() / 1000);

  before(async () => {
    store = await openTestStore(kind);
    if (kind === 'SQLite') file = new Database(store.databaseUrl.slice('sqlite:'.length));
    const series =
      kind === 'SQLite' ? `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${LICENCES})` : '';
    const numbers = kind === 'SQLite' ? 'n' : `generate_series(1, ${LICENCES}) AS n(i)`;
    await write(
      `${series} INSERT INTO users (email, email_lower, email_domain, family_name)
       SELECT 'o' || i || '@org' || i || '.example', 'o' || i || '@org' || i || '.example', 'org' || i || '.example',
         'Owner' FROM ${numbers}`,
    );
    await write(
      `INSERT INTO subscriptions (user_id, date_started, date_ended, license, resource, trial)
       SELECT id, ?, NULL, 'site', 'online', ${kind === 'SQLite' ? 0 : 'false'} FROM users ORDER BY id`,
      [instantValue(dialect, now - 3600)],
    );
    const rows = Array.from({ length: LICENCES }, (_, i) => i + 1).flatMap((n) =>
      rangesOf(n).map((range) => {
        const parsed = parseRange(range);
        assert.ok(parsed.ok, range);
        const { prefixLength, network, family } = parsed.value;
        return { prefixLength, network: Buffer.from(network), family, n };
      }),
    );
    if (file) {
      const insert = file.prepare(
        'INSERT INTO site_ranges (prefix_length, network, family, user_id, subscription_id) VALUES (?, ?, ?, ?, ?)',
      );
      const domain = file.prepare('INSERT INTO site_domains (domain, user_id, subscription_id) VALUES (?, ?, ?)');
      file.transaction(() => {
        for (const r of rows) insert.run(r.prefixLength, r.network, r.family, r.n, r.n);
        for (let n = 1; n <= LICENCES; n++) domain.run(n % 2 ? `org${n}.example` : `*.org${n}.example`, n, n);
      })();
      file.exec('ANALYZE');
    } else {
      await write(
        `INSERT INTO site_ranges (prefix_length, network, family, user_id, subscription_id)
         SELECT * FROM unnest(?::smallint[], ?::bytea[], ?::smallint[], ?::bigint[], ?::bigint[])`,
        [
          rows.map((r) => r.prefixLength),
          rows.map((r) => r.network),
          rows.map((r) => r.family),
          rows.map((r) => r.n),
          rows.map((r) => r.n),
        ],
      );
      await write(
        `INSERT INTO site_domains (domain, user_id, subscription_id)
         SELECT CASE WHEN i % 2 = 1 THEN '' ELSE '*.' END || 'org' || i || '.example', i, i FROM ${numbers}`,
      );
      // The tables written here alone: an ANALYZE naming none goes through every schema of the database.
      await write('ANALYZE users, subscriptions, site_ranges, site_domains');
    }
    const [counted] = await run('SELECT count(*) AS n FROM site_ranges');
    assert.equal(Number(counted?.n), LICENCES * 5);
  });
  after(async () => {
    file?.close();
    await store?.close();
  });

  async function plan(text: string, values: unknown[]): Promise<string> {
    const rows = await run(`${kind === 'SQLite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN'} ${text}`, values);
    return rows.map((r) => String(r.detail ?? r['QUERY PLAN'])).join('\n');
  }

  /** A statement as the adapter sends it, with `?` placeholders (the test store numbers them on PostgreSQL). */
  const asSent = (query: { render(d: 'sqlite'): { text: string; values: unknown[] } }) => query.render('sqlite');

  for (const ip of ['10.5.1.3', '10.100.0.4', '::ffff:10.7.39.5', '2001:db8:2a::1']) {
    it(`finds the licences of ${ip} by exact probes of the ranges' key, scanning nothing`, async () => {
      const keys = addressKeys(address(ip));
      const { text, values } = licencesOfNetwork(dialect, keys, instantValue(dialect, now)).render(dialect);
      const shown = await plan(text, values);
      if (kind === 'SQLite') {
        // One probe of the whole key for each of the address's keys (the samples ANALYZE took here know no
        // range at most of these lengths), and no table built of the keys first.
        assert.equal(
          shown.match(/SEARCH r USING PRIMARY KEY \(prefix_length=\? AND network=\?\)/g)?.length,
          keys.length,
          shown,
        );
        assert.doesNotMatch(shown, /LIST SUBQUERY|SCAN CONSTANT ROW/, shown);
        assert.match(
          shown,
          /SEARCH s USING (INTEGER PRIMARY KEY \(rowid=\?\)|(COVERING )?INDEX subscriptions_user \(user_id=\? AND id=\?)/,
          shown,
        );
        assert.doesNotMatch(shown, /SCAN (r|s)\b/, shown);
        assert.doesNotMatch(shown, /TEMP B-TREE/, shown);
      } else {
        assertProbedByValues(shown, text, keys.length);
        // By the primary key (user_id, id) or the id's own index (migration 36): an exact probe either way.
        assert.match(shown, /Index Scan using subscriptions_(pkey|id) on subscriptions s\b/, shown);
      }
      const found = distinctLicences(await run(text, values))
        .map((licence) => licence.id)
        .sort((a, b) => Number(a) - Number(b));
      assert.deepEqual(found, expectedLicences(ip));
    });
  }

  /**
   * PostgreSQL's probes: a list of values, one row per key, each joined to the ranges' primary key
   * (never a bitmap of them, which visits the table's pages too), and no sort for distinct rows.
   */
  function assertProbedByValues(shown: string, text: string, keys: number) {
    assert.doesNotMatch(shown, /Seq Scan on (site_ranges|site_domains|subscriptions|users)\b/, shown);
    assert.doesNotMatch(shown, /Bitmap|Sort|Unique|HashAggregate/, shown);
    assert.match(shown, /Values Scan on "\*VALUES\*"/, shown);
    assert.match(
      shown,
      /Index (Only )?Scan using site_ranges_pkey on site_ranges r\b[^\n]*\n\s+Index Cond: \(\(prefix_length = "\*VALUES\*"\.column1\) AND \(network = "\*VALUES\*"\.column2\)\)/,
      shown,
    );
    assert.equal(text.match(/\(\d+, \$\d+::bytea\)/g)?.length, keys, text);
  }

  for (const ip of ['10.5.1.3', '::ffff:10.7.39.5', '2001:db8:2a::1', '192.0.2.1']) {
    it(`asks for the licences of ${ip} at the prefix lengths some range uses alone, and finds every one`, async () => {
      const asked = address(ip);
      const { result, statements } = await recordStatements(() => store.store.siteLicences.ofNetwork(asked, now));
      const found = result.map((licence) => licence.id).sort((a, b) => Number(a) - Number(b));
      assert.deepEqual(found, expectedLicences(ip));
      if (kind !== 'SQLite') {
        const probes = statements.flatMap((s) =>
          [...s.text.matchAll(/\((\d+), \$\d+::bytea\)/g)].map((m) => Number(m[1])),
        );
        // The lengths rangesOf writes: /8, /16, /24 and /32 for IPv4, /48 for IPv6; /32 counts for both.
        assert.deepEqual(probes, asked.family === 4 ? [8, 16, 24, 32] : [32, 48]);
      }
    });
  }

  it("reads the prefix lengths in use by probes of the ranges' key, one length after another, scanning nothing", async () => {
    // PostgreSQL leaves the recursive step's subquery out of a plan it has not run.
    const shown =
      kind === 'SQLite'
        ? await plan(RANGE_PREFIX_LENGTHS, [])
        : (await run(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${RANGE_PREFIX_LENGTHS}`))
            .map((r) => String(r['QUERY PLAN']))
            .join('\n');
    if (kind === 'SQLite') {
      assert.match(shown, /SEARCH r USING PRIMARY KEY \(prefix_length>\?\)/, shown);
      assert.doesNotMatch(shown, /SCAN site_ranges\b|SCAN r\b|TEMP B-TREE/, shown);
    } else {
      assert.match(shown, /Index Only Scan using site_ranges_pkey on site_ranges r\b/, shown);
      assert.doesNotMatch(shown, /Seq Scan|HashAggregate|Sort|Unique/, shown);
    }
    // Every length rangesOf writes, of its family, and /32 of both: no IPv6 range here is a /32.
    const found = (await run(RANGE_PREFIX_LENGTHS)).map((row) => String(Object.values(row)[0])).sort();
    const distinct = await run("SELECT DISTINCT family || '/' || prefix_length AS length FROM site_ranges");
    assert.deepEqual(found, [...distinct.map((row) => String(row.length)), '6/32'].sort());
    assert.deepEqual(found, ['4/16', '4/24', '4/32', '4/8', '6/32', '6/48']);
  });

  it('reads the prefix lengths in use once for checks that arrive together before any was kept', async (t) => {
    if (kind === 'SQLite') return t.skip('SQLite keeps them by its data version, read on the calling thread');
    // A store of its own, so that nothing is kept yet: every check below finds the lengths unread.
    const cold = await openPostgresStore({ url: store.databaseUrl });
    try {
      const ips = ['10.5.1.3', '10.100.0.4', '2001:db8:2a::1', '192.0.2.1'];
      const { result, statements } = await recordStatements(() =>
        Promise.all(Array.from({ length: 20 }, (_, i) => cold.siteLicences.ofNetwork(address(ips[i % 4]!), now))),
      );
      const lengthsRead = statements.filter((statement) => statement.text === RANGE_PREFIX_LENGTHS);
      assert.equal(lengthsRead.length, 1, `the lengths were read ${lengthsRead.length} times`);
      result.forEach((licences, i) => {
        const ids = licences.map((licence) => licence.id).sort((a, b) => Number(a) - Number(b));
        assert.deepEqual(ids, expectedLicences(ips[i % 4]!));
      });
    } finally {
      await cold.close();
    }
  });

  it('answers a licence once where several of its ranges hold the address', async () => {
    // Licence 7's /16, /24 and /32 all hold 10.7.0.0 (rangesOf(7): 10.7.0.0/16, 10.7.0.0/24, 10.7.0.0/32).
    const licences = await store.store.siteLicences.ofNetwork(address('10.7.0.0'), now);
    const ids = licences.map((licence) => licence.id);
    assert.deepEqual(ids, [...new Set(ids)]);
    assert.deepEqual(
      [...ids].sort((a, b) => Number(a) - Number(b)),
      expectedLicences('10.7.0.0'),
    );
    assert.ok(ids.includes('7'), ids.join(','));
  });

  it('keeps the probes in the plan PostgreSQL makes once for every address of a family (a prepared statement)', async (t) => {
    if (kind === 'SQLite') return t.skip('SQLite plans each statement once, with the values it is given');
    for (const ip of ['10.5.1.3', '2001:db8:2a::1']) {
      const keys = addressKeys(address(ip));
      const { text, values } = licencesOfNetwork('postgres', keys, instantValue(dialect, now)).render('postgres');
      const client = new pg.Client({ connectionString: store.databaseUrl });
      await client.connect();
      try {
        await client.query('SET plan_cache_mode = force_generic_plan');
        await client.query(`PREPARE network AS ${text}`);
        const literal = (v: unknown) =>
          v instanceof Date ? `'${v.toISOString()}'` : `'\\x${Buffer.from(v as Buffer).toString('hex')}'::bytea`;
        const { rows } = await client.query(`EXPLAIN EXECUTE network(${values.map(literal).join(', ')})`);
        assertProbedByValues(rows.map((r) => r['QUERY PLAN']).join('\n'), text, keys.length);
      } finally {
        await client.end();
      }
    }
  });

  it("finds a reader's licences by exact probes of the domains' key, scanning nothing", async () => {
    // The keys of a reader below org42.example's wildcard, as the access check sends them.
    const keys = domainKeys('x.org42.example');
    const domains = kind === 'SQLite' ? JSON.stringify(keys) : keys;
    const { text, values } = asSent(licencesOfDomains(dialect, domains, instantValue(dialect, now)));
    const shown = await plan(text, values);
    if (kind === 'SQLite') {
      assert.match(shown, /SEARCH d USING PRIMARY KEY \(domain=\?\)/, shown);
      assert.doesNotMatch(shown, /SCAN (d|s|users)\b/, shown);
    } else {
      assert.doesNotMatch(shown, /Seq Scan on (site_ranges|site_domains|subscriptions|users)\b/, shown);
      assert.match(
        shown,
        /Index (Only )?Scan (on|using) site_domains_pkey[^\n]*\n\s+Index Cond: \(domain = ANY/,
        shown,
      );
    }
    assert.deepEqual(
      (await run(text, values)).map((r) => String(r.id)),
      ['42'],
    );
  });
});
