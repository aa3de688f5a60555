import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { migrations } from '../../src/store/migrations/index.ts';

/**
 * What a new user meets first on the command line, each through a real `bin/tributary.js`
 * process: `migrate` names the migrations it applied (on an empty database: all of them, though
 * opening the store is what applied them); an unknown option is a usage error (status 2, one line,
 * then the usage) for every command, `serve` included, before anything is touched; a taken port is
 * one line and status 1, said before the data directory is set up.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');
const BIN = join(ROOT, 'bin/tributary.js');
const ALL_MIGRATIONS = Object.keys(migrations).sort();

type Run = { code: number; stdout: string; stderr: string };

function run(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      NODE,
      [BIN, ...args],
      {
        cwd: ROOT,
        // No DATABASE_URL unless the test gives one: embedded storage in the test's DATA_DIR.
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
        timeout: 120_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

const STACK_LINE = /^\s+at /m;

describe('tributary on a first run', () => {
  let scratch: string;
  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'tributary-first-hour-'));
    // Embedded PostgreSQL runs as an unprivileged user under root: it must pass through.
    chmodSync(scratch, 0o711);
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  test('migrate on an empty embedded store names every migration it applied, then says none is pending', async () => {
    const env = { DATA_DIR: join(scratch, 'migrate') };
    const first = await run(['migrate'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(
      first.stdout,
      `applied ${ALL_MIGRATIONS.length} migrations:\n${ALL_MIGRATIONS.map((name) => `  ${name}\n`).join('')}`,
    );
    const again = await run(['migrate'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, 'migrations up to date: none pending\n');
  });

  test('migrate on an empty PostgreSQL schema names every migration it applied', async (t) => {
    const url = process.env.DATABASE_URL;
    if (!url)
      return t.skip('needs PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)');
    const schema = `t_migrate_${randomBytes(5).toString('hex')}`;
    const env = {
      DATABASE_URL: url,
      DATABASE_SCHEMA: schema,
      DATA_DIR: join(scratch, 'pg'),
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    };
    try {
      const first = await run(['migrate'], env);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, new RegExp(`^applied ${ALL_MIGRATIONS.length} migrations:\n`));
      assert.deepEqual(
        first.stdout
          .split('\n')
          .slice(1, -1)
          .map((line) => line.trim()),
        ALL_MIGRATIONS,
      );
      const again = await run(['migrate'], env);
      assert.equal(again.stdout, 'migrations up to date: none pending\n', again.stderr);
    } finally {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
      await client.end();
    }
  });

  test('an unknown option is status 2 with one line and the usage, for every command', async () => {
    const dataDir = join(scratch, 'options');
    const lines = [
      ['serve'],
      ['migrate'],
      ['developers', 'list'],
      ['keys', 'list', 'dev-1'],
      ['providers', 'list'],
      ['sandbox', 'env'],
      ['sandbox', 'connect'],
      ['scores', 'recompute'],
      ['webhook', 'get', 'dev-1'],
      ['destinations', 'list', 'dev-1'],
      ['import', 'apple-health', 'export.zip'],
      ['backup', 'copy.tar'],
      ['restore', 'copy.tar'],
      ['listen'],
    ];
    const runs = await Promise.all(lines.map((args) => run([...args, '--bogus'], { DATA_DIR: dataDir })));
    runs.forEach((result, i) => {
      const what = `tributary ${lines[i]!.join(' ')} --bogus`;
      assert.equal(result.code, 2, `${what}: ${result.stdout}${result.stderr}`);
      assert.equal(result.stdout, '', what);
      assert.match(result.stderr, /^tributary: unknown option --bogus\nusage:/, what);
      assert.doesNotMatch(result.stderr, STACK_LINE, what);
    });
    // serve refused before reading the configuration or touching DATA_DIR.
    const serve = await run(['serve', '--bogus'], { DATA_DIR: join(scratch, 'serve-untouched') });
    assert.equal(serve.code, 2);
    assert.equal(existsSync(join(scratch, 'serve-untouched')), false, 'serve --bogus created no DATA_DIR');
    const role = await run(['serve', '--role', 'everything'], { DATA_DIR: join(scratch, 'serve-untouched') });
    assert.equal(role.code, 2);
    assert.match(role.stderr, /^tributary: --role must be one of api, worker, all, not "everything"\nusage:/);
  });

  describe('a port another program holds', () => {
    let holder: Server;
    let port: number;
    before(async () => {
      holder = createServer();
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
      port = (holder.address() as { port: number }).port;
    });
    after(() => new Promise<void>((resolve) => holder.close(() => resolve())));

    test('serve says so in one line, status 1, before it sets up the data directory', async () => {
      const dataDir = join(scratch, 'port');
      const result = await run(['serve'], { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' });
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.equal(
        result.stderr,
        `tributary: 127.0.0.1:${port} is already in use (another tributary serve, or another program); ` +
          'stop it, or set PORT (and HOST) to a free address\n',
      );
      assert.doesNotMatch(result.stdout, STACK_LINE);
      // Nothing of the store or its lock: the port was checked first.
      const left = existsSync(dataDir) ? readdirSync(dataDir) : [];
      assert.deepEqual(
        left.filter((name) => name !== 'encryption.key'),
        [],
        `DATA_DIR holds only the key the configuration made: ${left.join(', ')}`,
      );
    });
  });
});
