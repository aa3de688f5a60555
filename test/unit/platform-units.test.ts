import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/core/config.ts';
import { createSecretBox } from '../../src/core/secret-box.ts';
import { createLogger } from '../../src/core/log.ts';
import { generateApiKey, hashApiKey, matchesAnyKey } from '../../src/features/developers/api-keys.ts';

describe('configuration', () => {
  const tempDir = () => mkdtempSync(join(tmpdir(), 'tributary-config-'));

  test('defaults for a laptop: embedded storage, generated key kept 0600 in the data dir', () => {
    const dir = tempDir();
    try {
      const config = loadConfig({ DATA_DIR: dir });
      assert.equal(config.port, 8080);
      assert.equal(config.host, '127.0.0.1');
      assert.equal(config.publicUrl, 'http://127.0.0.1:8080');
      assert.equal(config.databaseUrl, undefined);
      assert.equal(config.databaseSchema, 'public');
      assert.equal(config.encryptionKey.length, 32);
      const keyFile = join(dir, 'encryption.key');
      assert.equal(statSync(keyFile).mode & 0o777, 0o600);
      assert.equal(readFileSync(keyFile, 'utf8').trim(), config.encryptionKey.toString('hex'));
      assert.deepEqual(
        loadConfig({ DATA_DIR: dir }).encryptionKey,
        config.encryptionKey,
        'the key is reused',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('fails fast with a message naming the variable', () => {
    const dir = tempDir();
    try {
      const fails = (env: Record<string, string>, pattern: RegExp) =>
        assert.throws(
          () => loadConfig({ DATA_DIR: dir, ...env }),
          (error: unknown) => {
            assert.ok(error instanceof ConfigError);
            assert.match(error.message, pattern);
            return true;
          },
        );
      fails({ PORT: 'eighty' }, /^PORT must be an integer/);
      fails({ PORT: '70000' }, /^PORT must be an integer/);
      fails({ DATABASE_URL: 'postgres://db/x' }, /^ENCRYPTION_KEY is required when DATABASE_URL is set/);
      fails({ DATABASE_URL: 'mysql://db/x' }, /^DATABASE_URL must be a postgres/);
      fails({ ENCRYPTION_KEY: 'abcd' }, /^ENCRYPTION_KEY must be 32 bytes/);
      fails({ PUBLIC_URL: 'ftp://x' }, /^PUBLIC_URL must use http or https/);
      fails({ PUBLIC_URL: 'not a url' }, /^PUBLIC_URL must be an absolute/);
      fails({ LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of/);
      fails({ DATABASE_SCHEMA: 'Robert"); DROP' }, /^DATABASE_SCHEMA must be/);
      fails({ DATABASE_READ_URL: 'postgres://replica/x' }, /^DATABASE_READ_URL needs DATABASE_URL/);
      fails(
        {
          DATABASE_URL: 'postgres://db/x',
          DATABASE_READ_URL: 'http://replica',
          ENCRYPTION_KEY: 'a'.repeat(64),
        },
        /^DATABASE_READ_URL must be a postgres/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('PUBLIC_URL loses its trailing slash; an explicit key is used as given', () => {
    const dir = tempDir();
    try {
      const key = randomBytes(32);
      const config = loadConfig({
        DATA_DIR: dir,
        PUBLIC_URL: 'https://health.example.com/',
        ENCRYPTION_KEY: key.toString('base64'),
        DATABASE_URL: 'postgres://db/tributary',
      });
      assert.equal(config.publicUrl, 'https://health.example.com');
      assert.deepEqual(config.encryptionKey, key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('secret box', () => {
  test('round-trips, never stores the plaintext, and refuses another key or a tampered body', () => {
    const box = createSecretBox(randomBytes(32));
    const sealed = box.seal('refresh-token-123');
    assert.ok(!sealed.includes('refresh-token-123'));
    assert.notEqual(box.seal('refresh-token-123'), sealed, 'a fresh IV every time');
    assert.equal(box.open(sealed), 'refresh-token-123');
    assert.throws(() => createSecretBox(randomBytes(32)).open(sealed));
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] = (body[0] ?? 0) ^ 1;
    assert.throws(() => box.open([parts[0], parts[1], parts[2], body.toString('base64url')].join('.')));
  });
});

describe('API keys', () => {
  test('prefixed per environment, hashed, matched only by the right key', () => {
    const live = generateApiKey('production');
    const test_ = generateApiKey('sandbox');
    assert.match(live.plaintext, /^sk_live_/);
    assert.match(test_.plaintext, /^sk_test_/);
    // SHA-256 hex: a fixed vector, and the stored hash recomputed with node:crypto, not with hashApiKey.
    assert.equal(
      hashApiKey('sk_test_known-vector'),
      '2a553863ce64379e883e15d8cf869f6c1a080b3d91613265dd78ce54887252a0',
    );
    assert.equal(live.hash, createHash('sha256').update(live.plaintext, 'utf8').digest('hex'));
    assert.match(live.plaintext, /^sk_live_[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
    assert.match(live.id, /^key_[0-9a-f]{16}$/);
    assert.equal(live.displayPrefix, `${live.plaintext.slice(0, 'sk_live_'.length + 6)}…`);
    assert.equal(test_.displayPrefix, `${test_.plaintext.slice(0, 'sk_test_'.length + 6)}…`);
    assert.notEqual(generateApiKey('production').plaintext, live.plaintext);
    assert.ok(!live.hash.includes(live.plaintext));
    assert.ok(matchesAnyKey(live.plaintext, [test_.hash, live.hash]));
    assert.ok(!matchesAnyKey(live.plaintext, [test_.hash]));
    assert.ok(!matchesAnyKey(live.plaintext, []));
    assert.ok(!matchesAnyKey(`${live.plaintext}x`, [live.hash]));
    // A malformed stored hash (another length) is skipped, not an error, and the others still count.
    assert.ok(matchesAnyKey(live.plaintext, ['abcd', live.hash, 'zz']));
    assert.ok(!matchesAnyKey(live.plaintext, ['abcd']));
    // Every candidate is compared, so a match is found wherever it sits in the list.
    assert.ok(matchesAnyKey(live.plaintext, [live.hash, test_.hash]));
  });
});

describe('logging', () => {
  test('credentials are redacted and query strings dropped', () => {
    let output = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        output += chunk.toString();
        done();
      },
    });
    const log = createLogger('info', sink);
    log.info({
      req: { method: 'GET', url: '/v2/auth/callback/x?code=secret-code&state=s', id: 'req_1', headers: {} },
    });
    log.info({ req: { headers: { 'x-api-key': 'sk_test_leak', authorization: 'Basic leak' } } }, 'headers');
    log.info({ token: { access_token: 'at-leak', refresh_token: 'rt-leak' } }, 'tokens');
    assert.ok(!output.includes('secret-code'));
    assert.ok(!output.includes('leak'));
    assert.match(output, /"url":"\/v2\/auth\/callback\/x"/);
  });
});
