import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ChildEnvironment, childEnvironment, runCli, startService } from '../helpers/child-service.ts';

/**
 * The operator's path, end to end through real processes: the CLI creates a developer and
 * keys, the server honours them, revocation and suspension take effect.
 */
describe('CLI and a real server process', () => {
  let environment: ChildEnvironment;
  before(async () => {
    environment = await childEnvironment();
  });
  after(async () => {
    await environment?.cleanup();
  });

  test('developers create --json, keys, revoke and suspend', async () => {
    const { env } = environment;
    const created = await runCli(
      ['developers', 'create', '--name', 'Acme Health', '--environment', 'sandbox', '--json'],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const developer = JSON.parse(created.stdout) as Record<string, string>;
    assert.deepEqual(Object.keys(developer).sort(), ['api_key', 'dev_id', 'environment', 'webhook_secret']);
    assert.match(developer.dev_id!, /^acme-health-[0-9a-f]{8}$/);
    assert.match(developer.api_key!, /^sk_test_[A-Za-z0-9_-]{43}$/);
    assert.equal(developer.environment, 'sandbox');
    assert.match(developer.webhook_secret!, /^whsec_/);

    const second = await runCli(['keys', 'create', developer.dev_id!, '--json'], env);
    assert.equal(second.code, 0, second.stderr);
    const secondKey = JSON.parse(second.stdout) as { key_id: string; api_key: string };
    const keys = JSON.parse((await runCli(['keys', 'list', developer.dev_id!, '--json'], env)).stdout) as {
      id: string;
    }[];
    const firstKeyId = keys.find((key) => key.id !== secondKey.key_id)!.id;
    assert.equal((await runCli(['keys', 'revoke', developer.dev_id!, firstKeyId], env)).code, 0);

    const unknown = await runCli(['developers', 'suspend', 'nobody-00000000'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no developer with dev-id "nobody-00000000"/);
    const usage = await runCli(['developers', 'create', '--name', 'X', '--environment', 'staging'], env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--environment must be sandbox or production/);

    const route = '/v2/webhook';
    let server = await startService(env);
    try {
      const withKey = (apiKey: string) =>
        fetch(`${server.url}${route}`, { headers: { 'dev-id': developer.dev_id!, 'x-api-key': apiKey } });
      assert.equal((await withKey(secondKey.api_key)).status, 200);
      const revoked = await withKey(developer.api_key!);
      assert.equal(revoked.status, 401);
      assert.equal(revoked.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0, 'graceful shutdown exits 0');
    }

    assert.equal((await runCli(['developers', 'suspend', developer.dev_id!], env)).code, 0);
    server = await startService(env);
    try {
      const response = await fetch(`${server.url}${route}`, {
        headers: { 'dev-id': developer.dev_id!, 'x-api-key': secondKey.api_key },
      });
      assert.equal(response.status, 403);
      assert.match(((await response.json()) as { detail: string }).detail, /suspended/);
    } finally {
      await server.stop('SIGTERM');
    }
  });

  test('first start on empty embedded storage creates and prints a sandbox developer', async () => {
    // The default embedded storage, as on a fresh clone.
    const fresh = await childEnvironment({ DATABASE_URL: '' });
    try {
      // PGlite starts slowly on a loaded machine.
      const server = await startService(fresh.env, ['serve'], 180_000);
      const output = server.output();
      await server.stop('SIGTERM');
      const file = join(fresh.env.DATA_DIR!, 'sandbox-credentials.json');
      assert.ok(existsSync(file));
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const credentials = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
      assert.ok(output.includes(credentials.api_key!), 'the key is printed on first start');
      assert.ok(output.includes(credentials.dev_id!));
      assert.ok(output.includes(credentials.webhook_secret!));

      const again = await startService(fresh.env);
      const secondOutput = again.output();
      await again.stop('SIGTERM');
      assert.ok(!secondOutput.includes(credentials.api_key!), 'later starts do not print the key again');
    } finally {
      await fresh.cleanup();
    }
  });
});
