/**
 * The webhook rules on their own: signing as Standard Webhooks does, secrets derived per webhook,
 * exponential waits with jitter, what an attempt's outcome is, and which addresses are endpoints.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  attemptOutcome,
  isAllowedDestination,
  isEndpointUrl,
  isRefusedLiteral,
  newSecretSalt,
  parseNetworks,
  retryDelayMs,
  signature,
  signingSecret,
  type RetryPolicy,
} from '../../src/domain/webhooks.js';

const POLICY: RetryPolicy = { baseMs: 1000, maxMs: 60_000, maxAttempts: 5 };

describe('webhook signatures', () => {
  it('verify with the Standard Webhooks reference library', () => {
    const secret = signingSecret(randomBytes(32), 'salt');
    const body = JSON.stringify({ type: 'user.created', data: { id: '42' } });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': '42',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature(secret, '42', timestamp, body),
    };
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  });

  it('differ for each salt and each key, and are the same again for the same ones', () => {
    const key = randomBytes(32);
    assert.equal(signingSecret(key, 'a'), signingSecret(key, 'a'));
    assert.notEqual(signingSecret(key, 'a'), signingSecret(key, 'b'));
    assert.notEqual(signingSecret(key, 'a'), signingSecret(randomBytes(32), 'a'));
  });

  it('take whsec_ as the prefix only where it begins the secret: elsewhere it is part of the key', () => {
    const bare = 'AAAAwhsec_AAAA';
    const expected = createHmac('sha256', Buffer.from(bare, 'base64')).update('42.1700000000.{}').digest('base64');
    assert.equal(signature(bare, '42', 1700000000, '{}'), `v1,${expected}`);
    assert.equal(signature(`whsec_${bare}`, '42', 1700000000, '{}'), `v1,${expected}`);
  });
});

describe('secret salts', () => {
  it('are 128 random bits in hex, new for every webhook', () => {
    const salt = newSecretSalt();
    assert.match(salt, /^[0-9a-f]{32}$/);
    assert.notEqual(newSecretSalt(), salt);
  });
});

describe('retry waits', () => {
  it('double with each failure, between half and all of base × 2^(attempt-1)', () => {
    for (const [attempt, full] of [
      [1, 1000],
      [2, 2000],
      [3, 4000],
    ] as const) {
      assert.equal(
        retryDelayMs(POLICY, attempt, () => 0),
        full / 2,
      );
      assert.equal(
        retryDelayMs(POLICY, attempt, () => 0.999999),
        full,
      );
    }
  });

  it('never exceed the maximum, however many attempts failed', () => {
    assert.equal(
      retryDelayMs(POLICY, 30, () => 0.999999),
      POLICY.maxMs,
    );
    assert.equal(
      retryDelayMs(POLICY, 1000, () => 0.999999),
      POLICY.maxMs,
    );
  });
});

describe('attempt outcomes', () => {
  it('deliver on any 2xx, and on nothing below or above', () => {
    for (const status of [100, 199, 300]) {
      assert.equal(attemptOutcome({ status }, 1, 5000, POLICY, () => 0).state, 'pending', String(status));
    }
    for (const status of [200, 202, 204, 299]) {
      assert.deepEqual(attemptOutcome({ status }, 1, 5000, POLICY), {
        state: 'delivered',
        at: 5000,
        nextAttemptAt: null,
        status,
        error: null,
      });
    }
  });

  it('wait for another attempt after a 3xx, 4xx, 5xx or no answer', () => {
    for (const result of [{ status: 301 }, { status: 410 }, { status: 500 }, { error: 'ECONNREFUSED' }]) {
      const outcome = attemptOutcome(result, 2, 5000, POLICY, () => 0);
      assert.equal(outcome.state, 'pending');
      assert.equal(outcome.nextAttemptAt, 5000 + 1000);
    }
  });

  it('say why an attempt without an answer failed, and which status one with an answer had', () => {
    assert.deepEqual(
      attemptOutcome({ error: 'ECONNREFUSED' }, 1, 5000, POLICY, () => 0),
      {
        state: 'pending',
        at: 5000,
        nextAttemptAt: 5500,
        status: null,
        error: 'ECONNREFUSED',
      },
    );
    assert.equal(attemptOutcome({ status: 503 }, 1, 5000, POLICY, () => 0).error, 'the endpoint answered 503');
  });

  it('fail for good after the last attempt allowed, saying why', () => {
    assert.deepEqual(attemptOutcome({ status: 500 }, POLICY.maxAttempts, 5000, POLICY), {
      state: 'failed',
      at: 5000,
      nextAttemptAt: null,
      status: 500,
      error: 'the endpoint answered 500',
    });
  });
});

describe('endpoint addresses', () => {
  it('are absolute http(s) URLs', () => {
    for (const url of ['https://crm.example.com/hooks', 'http://127.0.0.1:8080/h?x=1', 'https://[::1]/h']) {
      assert.ok(isEndpointUrl(url), url);
    }
  });

  it('carry no credentials, fragment or whitespace, and no other scheme', () => {
    for (const url of [
      'https://user:pw@example.com/',
      'https://user@example.com/',
      'https://example.com/#',
      'https://example.com/ a',
      'ftp://example.com/',
      'javascript:alert(1)',
      '//example.com/',
    ]) {
      assert.ok(!isEndpointUrl(url), url);
    }
  });
});

describe('webhook destinations', () => {
  const refused = [
    '127.0.0.1',
    '127.1.2.3',
    '::1',
    '0.0.0.0',
    '::',
    '169.254.169.254',
    'fe80::1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    'fc00::1',
    'fd12:3456::1',
    '100.64.0.1',
    '224.0.0.1',
    'ff02::1',
    '255.255.255.255',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
    '192.0.2.1',
  ];
  for (const address of refused) {
    it(`refuse ${address}`, () => assert.equal(isAllowedDestination(address, []), false));
  }

  for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:93.184.216.34']) {
    it(`allow the public address ${address}`, () => assert.equal(isAllowedDestination(address, []), true));
  }

  it('allow the networks a deployment names, and only those', () => {
    const allowed = parseNetworks('10.1.0.0/16, fd00::/8 ,192.168.7.7');
    assert.equal(isAllowedDestination('10.1.2.3', allowed), true);
    assert.equal(isAllowedDestination('10.2.0.1', allowed), false);
    assert.equal(isAllowedDestination('fd00::5', allowed), true);
    assert.equal(isAllowedDestination('192.168.7.7', allowed), true);
    assert.equal(isAllowedDestination('192.168.7.8', allowed), false);
    assert.equal(isAllowedDestination('127.0.0.1', allowed), false);
  });

  it('refuse what is not an IP address at all', () => {
    for (const text of ['', 'example.com', '10.0.0.0/8', '1.2.3.4.5']) {
      assert.equal(isAllowedDestination(text, parseNetworks('0.0.0.0/0, ::/0')), false, text);
    }
  });

  it('refuse a setting that names no network', () => {
    assert.throws(() => parseNetworks('10.0.0.0/33'), /not an IP address or a CIDR range/);
    assert.throws(() => parseNetworks('intranet'), /not an IP address or a CIDR range/);
    assert.deepEqual(parseNetworks(''), []);
  });

  it('judge an endpoint URL on its face when it names an address or localhost, and leave other names to delivery', () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://127.0.0.1:8080/',
      'http://[::1]:22/',
      'http://0.0.0.0:6379/',
      'http://2130706433/',
      'http://localhost:3000/',
      'https://api.localhost/',
      'http://[::ffff:7f00:1]/',
    ]) {
      assert.equal(isRefusedLiteral(url, []), true, url);
    }
    assert.equal(isRefusedLiteral('https://hooks.example.com/', []), false);
    assert.equal(isRefusedLiteral('http://93.184.216.34/', []), false);
    assert.equal(isRefusedLiteral('http://127.0.0.1:8080/', parseNetworks('127.0.0.0/8, ::1')), false);
  });

  it('allow localhost only where both loopback addresses it may resolve to are allowed', () => {
    const url = 'http://localhost:3000/';
    assert.equal(isRefusedLiteral(url, parseNetworks('127.0.0.0/8, ::1')), false);
    assert.equal(isRefusedLiteral('https://api.localhost/', parseNetworks('127.0.0.1, ::1')), false);
    assert.equal(isRefusedLiteral(url, parseNetworks('127.0.0.0/8')), true);
    assert.equal(isRefusedLiteral(url, parseNetworks('::1')), true);
    assert.equal(isRefusedLiteral(url, []), true);
  });
});
