import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addressKeys,
  domainKeys,
  licenceSearchKeys,
  formatAddress,
  normalDomains,
  normalRanges,
  rangeKeyOf,
  formatRange,
  parseAddress,
  parseLicenceDomain,
  parseRange,
  parseWrittenAddress,
  siteTermProblems,
  type Parsed,
} from '../../src/domain/site-licence.js';

function value<T>(parsed: Parsed<T>): T {
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.problem);
  return parsed.value;
}

function problem<T>(parsed: Parsed<T>): string {
  assert.ok(!parsed.ok, `parsed: ${JSON.stringify(parsed)}`);
  return parsed.problem;
}

const written = (text: string) => formatRange(value(parseRange(text)));
const address = (text: string) => formatAddress(value(parseAddress(text)));

describe('parseAddress', () => {
  it('reads IPv4 and IPv6, written in their one form', () => {
    assert.equal(address('10.0.0.1'), '10.0.0.1');
    assert.equal(address('255.255.255.255'), '255.255.255.255');
    assert.equal(address('2001:DB8:0:0:0:0:0:1'), '2001:db8::1');
    assert.equal(address('2001:db8::'), '2001:db8::');
    assert.equal(address('::'), '::');
    assert.equal(address('::1'), '::1');
    assert.equal(address('2001:db8:0:1:0:0:0:1'), '2001:db8:0:1::1');
    // RFC 5952: the longest run of zeros, the first of equal ones; a single zero group is not shortened.
    assert.equal(address('2001:0:0:1:0:0:0:1'), '2001:0:0:1::1');
    assert.equal(address('2001:db8:0:0:1:0:0:1'), '2001:db8::1:0:0:1');
    assert.equal(address('2001:db8:1:1:1:1:0:1'), '2001:db8:1:1:1:1:0:1');
    assert.equal(address('64:ff9b::10.0.0.1'), '64:ff9b::a00:1');
    assert.equal(formatAddress(value(parseWrittenAddress('::FFFF:a00:1'))), '::ffff:10.0.0.1');
  });

  it('reads an IPv4-mapped IPv6 address as the IPv4 address it maps', () => {
    assert.deepEqual(value(parseAddress('::ffff:10.0.0.1')), { family: 4, bytes: new Uint8Array([10, 0, 0, 1]) });
    assert.deepEqual(value(parseAddress('::FFFF:a00:1')), { family: 4, bytes: new Uint8Array([10, 0, 0, 1]) });
  });

  it('refuses a leading zero and a zone id, saying why', () => {
    assert.match(problem(parseAddress('010.0.0.1')), /leading zero/);
    assert.match(problem(parseAddress('10.0.0.01')), /leading zero/);
    assert.match(problem(parseAddress('fe80::1%eth0')), /zone id/);
  });

  it('refuses what is not an address', () => {
    for (const text of [
      '',
      '10.0.0',
      '10.0.0.1.1',
      '256.0.0.1',
      '10.0.0.-1',
      '1e1.0.0.1',
      ' 10.0.0.1',
      '1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:8:9',
      '1::2::3',
      ':::',
      '12345::',
      'g::1',
      '1.2.3.4::',
      '1.2.3.4:1::',
      '::1.2.3',
      '1:2:3:4:5:6:7::1.2.3.4',
      'example.com',
    ]) {
      assert.match(problem(parseAddress(text)), /is not an IP address/, text);
    }
  });
});

describe('parseRange', () => {
  it('takes a bare address as a /32 or /128', () => {
    assert.equal(written('192.0.2.7'), '192.0.2.7/32');
    assert.equal(written('2001:db8::7'), '2001:db8::7/128');
  });

  it('takes ranges from /8 to /32 (IPv4) and /32 to /128 (IPv6), and refuses wider ones', () => {
    assert.equal(written('10.0.0.0/8'), '10.0.0.0/8');
    assert.equal(written('10.1.0.0/16'), '10.1.0.0/16');
    assert.match(problem(parseRange('10.0.0.0/7')), /wider than a licence may be.*\/8/);
    assert.match(problem(parseRange('0.0.0.0/0')), /wider than a licence may be/);
    assert.equal(written('2001:db8::/32'), '2001:db8::/32');
    assert.match(problem(parseRange('2001:db8::/31')), /wider than a licence may be.*\/32/);
    assert.match(problem(parseRange('::/0')), /wider/);
    assert.match(problem(parseRange('10.0.0.1/33')), /at most 32/);
    assert.match(problem(parseRange('::1/129')), /at most 128/);
  });

  it('refuses host bits set, naming the network of that prefix', () => {
    assert.match(problem(parseRange('10.1.2.3/8')), /host bits set: the network of this prefix is 10\.0\.0\.0\/8/);
    assert.match(problem(parseRange('2001:db8::1/64')), /2001:db8::\/64/);
    assert.equal(written('10.1.2.3/32'), '10.1.2.3/32');
  });

  it('refuses a range in, or holding, this host, loopback or link-local addresses, and takes one beside them', () => {
    for (const text of ['127.0.0.0/8', '127.0.0.1', '0.0.0.0/8', '169.254.10.0/24', '::1', '::', 'fe80::/64']) {
      assert.match(problem(parseRange(text)), /no reader's request comes from it/, text);
    }
    assert.match(problem(parseRange('126.0.0.0/7')), /wider/);
    for (const text of ['126.255.255.0/24', '128.0.0.0/8', '169.253.0.0/16', '169.255.0.0/16', '::2', 'fec0::/64']) {
      assert.equal(written(text), text.includes('/') ? text : `${text}/${text.includes(':') ? 128 : 32}`);
    }
    // An intranet's paywall sees its readers by private addresses: those stay open to licences.
    assert.equal(written('10.0.0.0/8'), '10.0.0.0/8');
  });

  it('refuses a mapped range, a zone id, a leading zero and a malformed prefix', () => {
    assert.match(problem(parseRange('::ffff:10.0.0.0/104')), /IPv4-mapped/);
    assert.match(problem(parseRange('fe80::%eth0/64')), /zone id/);
    assert.match(problem(parseRange('010.0.0.0/8')), /leading zero/);
    for (const text of ['10.0.0.0/', '10.0.0.0/08', '10.0.0.0/-8', '10.0.0.0/8/8', '10.0.0.0/ 8', 'acme.com/8']) {
      assert.match(problem(parseRange(text)), /is not a CIDR range/, text);
    }
  });
});

describe('addressKeys', () => {
  it('are the networks of an IPv4 address at /8 to /32: 25 keys', () => {
    const keys = addressKeys(value(parseAddress('10.1.2.3')));
    assert.equal(keys.length, 25);
    assert.deepEqual(
      [keys[0], keys[16], keys[24]].map((k) => k && formatRange(k)),
      ['10.0.0.0/8', '10.1.2.0/24', '10.1.2.3/32'],
    );
  });

  it('are the networks of an IPv6 address at /32 to /128: 97 keys', () => {
    const keys = addressKeys(value(parseAddress('2001:db8:1:2:3:4:5:6')));
    assert.equal(keys.length, 97);
    assert.equal(formatRange(keys[0] as never), '2001:db8::/32');
    assert.equal(formatRange(keys[32] as never), '2001:db8:1:2::/64');
    assert.equal(formatRange(keys[96] as never), '2001:db8:1:2:3:4:5:6/128');
  });

  it('are the networks at the prefix lengths asked for alone, in their order', () => {
    const address = value(parseAddress('2001:db8:1:2:3:4:5:6'));
    assert.deepEqual(addressKeys(address, [32, 64]).map(formatRange), ['2001:db8::/32', '2001:db8:1:2::/64']);
    assert.deepEqual(addressKeys(address, []), []);
    assert.deepEqual(
      addressKeys(value(parseAddress('10.1.2.3')), [8, 24, 32]).map(formatRange),
      ['10.0.0.0/8', '10.1.2.0/24', '10.1.2.3/32'],
    );
  });

  it('hold every range that holds the address, in the same bytes as the range is kept', () => {
    const keys = addressKeys(value(parseAddress('::ffff:10.200.3.4'))).map(formatRange);
    for (const range of ['10.0.0.0/8', '10.128.0.0/9', '10.200.0.0/16', '10.200.3.4/32']) {
      assert.ok(keys.includes(written(range)), range);
    }
    assert.ok(!keys.includes(written('10.201.0.0/16')));
  });
});

describe('parseLicenceDomain', () => {
  it('lower-cases a domain and keeps a wildcard of its subdomains', () => {
    assert.equal(value(parseLicenceDomain('Acme.COM')), 'acme.com');
    assert.equal(value(parseLicenceDomain('*.Acme.com')), '*.acme.com');
    assert.equal(value(parseLicenceDomain('xn--bcher-kva.example')), 'xn--bcher-kva.example');
    assert.equal(value(parseLicenceDomain('ox.ac.uk')), 'ox.ac.uk');
  });

  it('keeps an internationalised domain sent in Unicode in its xn-- form, the form of readers’ addresses', () => {
    assert.equal(value(parseLicenceDomain('bücher.example')), 'xn--bcher-kva.example');
    assert.equal(value(parseLicenceDomain('BÜCHER.Example')), 'xn--bcher-kva.example');
    assert.equal(value(parseLicenceDomain('*.münchen.example')), '*.xn--mnchen-3ya.example');
    assert.ok(domainKeys('xn--bcher-kva.example').includes(value(parseLicenceDomain('bücher.example'))));
    // Unicode that is no domain, and a name whose xn-- form is longer than a label may be.
    for (const text of ['bü cher.example', 'bücher..example', `${'ä'.repeat(60)}.example`]) {
      assert.match(problem(parseLicenceDomain(text)), /is not a domain name/, text);
    }
  });

  it('refuses a public suffix and the wildcard of one', () => {
    for (const text of ['com', 'co.uk', 'CO.UK', '*.co.uk', '*.com', 'ac.uk', 'com.au', 'github.io']) {
      assert.match(problem(parseLicenceDomain(text)), /public suffix/, text);
    }
  });

  it('refuses a mail provider anyone may take an address at, and its wildcard; not its own subdomains', () => {
    for (const text of ['gmail.com', 'GMAIL.COM', '*.gmail.com', 'outlook.com', 'yahoo.co.uk', 'web.de']) {
      assert.match(problem(parseLicenceDomain(text)), /mail provider anyone may take an address at/, text);
    }
    for (const text of ['gmail.acme.com', 'corp.outlook.com', 'acmegmail.com']) {
      assert.equal(value(parseLicenceDomain(text)), text);
    }
  });

  it('refuses what is not a domain name', () => {
    for (const text of ['', 'acme..com', '-acme.com', 'acme-.com', 'ac me.com', '*acme.com']) {
      assert.match(problem(parseLicenceDomain(text)), /is not a domain name/, text);
    }
    assert.match(problem(parseLicenceDomain(`${'a'.repeat(64)}.com`)), /is not a domain name/);
    assert.match(problem(parseLicenceDomain(`${'a.'.repeat(126)}com`)), /is not a domain name/);
    assert.equal(value(parseLicenceDomain(`${'a'.repeat(63)}.com`)), `${'a'.repeat(63)}.com`);
  });
});

describe('domainKeys', () => {
  it('are the domain and the wildcard of each parent: acme.com matches neither evilacme.com nor x.acme.com', () => {
    assert.deepEqual(domainKeys('X.Acme.com'), ['x.acme.com', '*.acme.com', '*.com']);
    assert.deepEqual(domainKeys('acme.com'), ['acme.com', '*.com']);
    assert.ok(!domainKeys('evilacme.com').includes('acme.com'));
    assert.ok(!domainKeys('evilacme.com').includes('*.acme.com'));
  });
});

describe('siteTermProblems', () => {
  it('points at each element refused, and at a repeat of one written the same way', () => {
    assert.deepEqual(siteTermProblems('ipRanges', ['10.0.0.1', '10.0.0.0/7', '10.0.0.1/32', 7]), [
      { pointer: '/data/attributes/ipRanges/1', detail: problem(parseRange('10.0.0.0/7')) },
      { pointer: '/data/attributes/ipRanges/2', detail: 'repeats element 0 (10.0.0.1/32)' },
    ]);
    assert.deepEqual(siteTermProblems('emailDomains', ['acme.com', 'ACME.com', 'com']), [
      { pointer: '/data/attributes/emailDomains/1', detail: 'repeats element 0 (acme.com)' },
      { pointer: '/data/attributes/emailDomains/2', detail: problem(parseLicenceDomain('com')) },
    ]);
    assert.deepEqual(siteTermProblems('emailDomains', ['acme.com', '*.acme.com']), []);
  });
});

describe('licenceSearchKeys', () => {
  it('asks for the domain, its parents’ wildcards and its own wildcard; a wildcard as written', () => {
    assert.deepEqual(licenceSearchKeys('Lib.Uni.example'), {
      ok: true,
      value: ['lib.uni.example', '*.uni.example', '*.example', '*.lib.uni.example'],
    });
    assert.deepEqual(licenceSearchKeys('*.Uni.example'), { ok: true, value: ['*.uni.example'] });
  });

  it('refuses what is no domain name', () => {
    for (const text of ['@uni.example', 'uni..example', 'uni.example.', '-uni.example', 'a b.example']) {
      assert.equal(licenceSearchKeys(text).ok, false, text);
    }
  });
});

describe('IPv6 addresses, further', () => {
  it('takes :: for a single zero group', () => {
    assert.equal(address('1:2:3:4:5:6::7'), '1:2:3:4:5:6:0:7');
  });

  it('reads as IPv4 only an address in ::ffff:0:0/96, not one that merely ends like one', () => {
    for (const text of ['2001:db8::ffff:a00:1', '::ff:a00:1', '::ff00:a00:1', '::1']) {
      assert.equal(value(parseAddress(text)).family, 6, text);
    }
  });
});

describe('reserved networks', () => {
  it('are named in the refusal of a range in them', () => {
    const named = {
      '0.0.0.0/8': 'is in 0.0.0.0/8, this network',
      '127.0.0.1': 'is in 127.0.0.0/8, loopback',
      '169.254.1.0/24': 'is in 169.254.0.0/16, link-local',
      '::': 'is in ::/128, the unspecified address',
      '::1': 'is in ::1/128, loopback',
      'fe80::/64': 'is in fe80::/10, link-local',
    };
    for (const [text, start] of Object.entries(named)) {
      assert.equal(problem(parseRange(text)), `${start}: no reader's request comes from it`, text);
    }
  });
});

describe('public suffixes, further', () => {
  it('say whether the name or its wildcard is the suffix', () => {
    const why = "a public suffix, under which anyone may register a name: name the organisation's own domain";
    assert.equal(problem(parseLicenceDomain('co.uk')), `is ${why}`);
    assert.equal(problem(parseLicenceDomain('*.co.uk')), `is the wildcard of ${why}`);
  });

  it('keeps an ASCII name as written, an xn-- label included, as a reader’s address carries it', () => {
    assert.equal(value(parseLicenceDomain('xn--zz.example')), 'xn--zz.example');
  });
});

describe('normalRanges, normalDomains and rangeKeyOf', () => {
  it('write ranges and domains in their one form, and key a stored range', () => {
    assert.deepEqual(normalRanges(['10.0.0.1', '2001:DB8::/32']), ['10.0.0.1/32', '2001:db8::/32']);
    assert.deepEqual(normalDomains(['Acme.com', '*.Uni.example']), ['acme.com', '*.uni.example']);
    assert.deepEqual(rangeKeyOf('10.0.0.0/8'), { family: 4, prefixLength: 8, network: new Uint8Array([10, 0, 0, 0]) });
  });

  it('throw, naming it, on a value that was never checked', () => {
    assert.throws(() => normalRanges(['10.0.0.0/7']), /unchecked range 10\.0\.0\.0\/7/);
    assert.throws(() => normalDomains(['com']), /unchecked domain com/);
    assert.throws(() => rangeKeyOf('acme.com'), /a stored range is not one: acme\.com/);
  });
});
