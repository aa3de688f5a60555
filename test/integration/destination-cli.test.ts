import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ChildEnvironment, childEnvironment, runCli } from '../helpers/child-service.ts';

/**
 * `tributary destinations …` as an operator runs it: settings from a file (the secret never on
 * the command line nor in any output), list, get, disable, enable, a refused test send, delete,
 * and usage errors.
 */
describe('destinations CLI', () => {
  let environment: ChildEnvironment;
  const dir = mkdtempSync(join(tmpdir(), 'tributary-destinations-cli-'));
  before(async () => {
    environment = await childEnvironment();
  });
  after(async () => {
    await environment?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  test('add from a file, list, get, disable, refused test, enable, delete', async () => {
    const { env } = environment;
    const created = await runCli(
      ['developers', 'create', '--name', 'Cli Dest', '--environment', 'sandbox', '--json'],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const devId = (JSON.parse(created.stdout) as { dev_id: string }).dev_id;
    const settingsFile = join(dir, 's3.json');
    writeFileSync(
      settingsFile,
      JSON.stringify({
        bucket: 'events',
        endpoint: 'http://127.0.0.1:9',
        access_key_id: 'AKIAEXAMPLE',
        secret_access_key: 'cli-secret-never-printed',
      }),
    );
    const added = await runCli(
      [
        'destinations',
        'add',
        devId,
        '--kind',
        's3',
        '--settings',
        `@${settingsFile}`,
        '--name',
        'lake',
        '--json',
      ],
      env,
    );
    assert.equal(added.code, 0, added.stderr);
    assert.ok(!added.stdout.includes('cli-secret-never-printed'));
    const destination = JSON.parse(added.stdout) as {
      id: string;
      kind: string;
      settings: Record<string, unknown>;
    };
    assert.equal(destination.kind, 's3');
    assert.equal(destination.settings.access_key_id, 'AKIAEXAMPLE');
    assert.equal(destination.settings.secret_access_key, undefined);

    const listed = await runCli(['destinations', 'list', devId], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /webhook/);
    assert.match(listed.stdout, new RegExp(`${destination.id}.*s3.*lake`));
    assert.ok(!listed.stdout.includes('cli-secret-never-printed'));

    const disabled = await runCli(['destinations', 'set', devId, destination.id, '--disable', '--json'], env);
    assert.equal(disabled.code, 0, disabled.stderr);
    assert.equal((JSON.parse(disabled.stdout) as { status: string }).status, 'disabled');
    const refused = await runCli(['destinations', 'test', devId, destination.id], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /the destination is disabled/);
    const enabled = await runCli(['destinations', 'set', devId, destination.id, '--enable', '--json'], env);
    assert.equal((JSON.parse(enabled.stdout) as { status: string }).status, 'active');
    const got = await runCli(['destinations', 'get', devId, destination.id], env);
    assert.match(got.stdout, /status\s+active/);

    const bad = await runCli(
      ['destinations', 'add', devId, '--kind', 's3', '--settings', '{"bucket":"x"}'],
      env,
    );
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /invalid settings\.bucket/);
    const usage = await runCli(['destinations', 'add', devId], env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--kind and --settings are required/);

    assert.equal((await runCli(['destinations', 'delete', devId, destination.id], env)).code, 0);
    const gone = await runCli(['destinations', 'get', devId, destination.id], env);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /no destination/);
  });
});
