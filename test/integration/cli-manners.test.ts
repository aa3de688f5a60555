import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { prettyLine } from '../../src/core/log-pretty.ts';
import { startTestService, type TestService } from '../helpers/app.ts';
import { olderNode } from '../helpers/packed-package.ts';

/**
 * How the command line behaves for a person: help on stdout with status 0 for every command and
 * subcommand, short usage errors with status 2, ./.env read (the environment winning), one line
 * when the Node on PATH is too old, and the log lines (one per request at info, readable on a
 * terminal). Every run is a real `bin/tributary.js` process.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');
const BIN = join(ROOT, 'bin/tributary.js');

type Run = { code: number; stdout: string; stderr: string };

function run(args: string[], options: { cwd?: string; env?: Record<string, string>; node?: string } = {}) {
  return new Promise<Run>((resolve) => {
    execFile(
      options.node ?? NODE,
      [BIN, ...args],
      {
        cwd: options.cwd ?? ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          // The test run's compile cache (scripts/test.ts).
          ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
          ...options.env,
        },
        // A bound against a hang: seventeen of these start at once on a machine shared with others.
        timeout: 180_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('tributary on the command line', () => {
  let scratch: string;
  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'tributary-cli-manners-'));
    // Embedded PostgreSQL runs as an unprivileged user under root: it must pass through.
    chmodSync(scratch, 0o711);
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  test('--help answers on stdout with status 0 for every command and subcommand', async () => {
    // A DATA_DIR that must stay untouched: help reads no configuration and opens no store.
    const env = { DATA_DIR: join(scratch, 'untouched'), LOG_LEVEL: 'not-a-level' };
    const lines: [string[], RegExp][] = [
      [['--help'], /^usage: tributary <command>/],
      [['-h'], /^usage: tributary <command>/],
      [['help'], /^usage: tributary <command>/],
      [[], /^usage: tributary <command>/],
      [['help', 'webhook'], /tributary webhook rotate-secret/],
      [['serve', '--help'], /tributary serve \[--role/],
      [['migrate', '--help'], /tributary migrate/],
      [['developers', '--help'], /tributary developers create/],
      [['developers', 'create', '--help'], /tributary developers create/],
      [['keys', 'revoke', '--help'], /tributary keys revoke/],
      [['providers', 'set', '--help'], /tributary providers set/],
      [['sandbox', 'connect', '--help'], /tributary sandbox connect/],
      [['sandbox', 'env', '-h'], /tributary sandbox env/],
      [['webhook', 'deliveries', '--help'], /tributary webhook deliveries/],
      [['listen', '--help'], /tributary listen \[--forward-to URL\]/],
      [['import', '--help'], /tributary import apple-health <file>/],
      [['import', 'apple-health', '--help'], /tributary import apple-health <file>/],
    ];
    const runs = await Promise.all(lines.map(([args]) => run(args, { env })));
    runs.forEach((result, i) => {
      const [args, expected] = lines[i]!;
      const what = `tributary ${args.join(' ')}`;
      assert.equal(result.code, 0, `${what}: ${result.stderr}`);
      assert.equal(result.stderr, '', what);
      assert.match(result.stdout, /^usage:/, what);
      assert.match(result.stdout, expected, what);
    });
    assert.match(
      runs[0]!.stdout,
      /exit status:\n {2}0 {2}done\n {2}1 {2}refused or failed.*\n {2}2 {2}usage/,
    );
    assert.equal(existsSync(env.DATA_DIR), false, 'help opened no store');
  });

  test('a bad command line: a short message and the usage on stderr, status 2', async () => {
    const env = { DATA_DIR: join(scratch, 'untouched') };
    const unknownOption = await run(['import', 'apple-health', 'export.zip', '--bogus'], { env });
    assert.equal(unknownOption.code, 2);
    assert.equal(unknownOption.stdout, '');
    assert.match(
      unknownOption.stderr,
      /^tributary: unknown option --bogus\nusage:\n {2}tributary import apple-health/,
    );
    assert.doesNotMatch(unknownOption.stderr, /To specify a positional argument/);

    const missingValue = await run(['webhook', 'get', 'dev-1', '--limit'], { env });
    assert.equal(missingValue.code, 2);
    assert.match(missingValue.stderr, /^tributary: option '--limit <value>' argument missing\nusage:/);

    // A value of the wrong shape the command line can judge itself is a usage error too; whether a
    // well-formed value is allowed is the service's to say (a refusal, 1).
    const notAUrl = await run(['webhook', 'set', 'dev-1', '--url', 'not a url'], { env });
    assert.equal(notAUrl.code, 2, notAUrl.stderr);
    assert.match(
      notAUrl.stderr,
      /^tributary: --url must be an absolute http\(s\) URL, got "not a url"\nusage:/,
    );
    const notANumber = await run(['webhook', 'deliveries', 'dev-1', '--limit', 'ten'], { env });
    assert.equal(notANumber.code, 2, notANumber.stderr);
    assert.match(
      notANumber.stderr,
      /^tributary: --limit must be a whole number of at least 1, got "ten"\nusage:/,
    );

    const unknownCommand = await run(['frobnicate'], { env });
    assert.equal(unknownCommand.code, 2);
    assert.match(unknownCommand.stderr, /^tributary: unknown command "frobnicate"\nusage: tributary/);
    assert.equal(unknownCommand.stdout, '');
  });

  test('./.env is read, and a variable already in the environment wins over it', async () => {
    const project = join(scratch, 'project');
    rmSync(project, { recursive: true, force: true });
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(
      join(project, '.env'),
      `# as copied from .env.example\nDATA_DIR=${join(project, 'from-dotenv')}\nLOG_LEVEL=loud\n`,
    );
    const fromFile = await run(['migrate'], { cwd: project });
    assert.equal(fromFile.code, 2, fromFile.stderr);
    assert.match(fromFile.stderr, /LOG_LEVEL must be one of .*got "loud"/);

    const environmentWins = await run(['migrate'], { cwd: project, env: { LOG_LEVEL: 'warn' } });
    assert.equal(environmentWins.code, 0, environmentWins.stderr);
    // A fresh DATA_DIR: every migration is applied, and named.
    assert.match(environmentWins.stdout, /^applied \d+ migrations:\n {2}0001_/);
    assert.ok(existsSync(join(project, 'from-dotenv')), 'DATA_DIR came from .env');
  });

  test('a Node older than 24 gets one line saying so, status 1', async (t) => {
    const old = olderNode(0);
    if (!old) return t.skip('no Node older than 24 on this machine to run bin/tributary.js with');
    const result = await run(['developers', 'list'], { node: old.path });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^tributary needs Node\.js 24 or later; this is v\d+\.[^\n]*\n$/);
  });
});

describe('log lines', () => {
  let service: TestService;
  const lines: string[] = [];
  before(async () => {
    const logTo = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    service = await startTestService({ env: { LOG_LEVEL: 'info' }, logTo, work: false });
  });
  after(async () => service?.close());

  test('one compact line per request at info; probes only at debug', async () => {
    await service.app.inject({ method: 'GET', url: '/v2/subscriptions?secret=kept-out' });
    await service.app.inject({ method: 'GET', url: '/health' });
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const requests = entries.filter((entry) => 'status' in entry && 'path' in entry);
    assert.equal(requests.length, 1, JSON.stringify(entries));
    const [entry] = requests;
    assert.equal(entry!.level, 30);
    assert.match(String(entry!.msg), /^GET \/v2\/subscriptions 401 \d+ms$/);
    assert.equal(entry!.status, 401);
    assert.equal(typeof entry!.reqId, 'string');
    assert.doesNotMatch(lines.join('\n'), /kept-out|incoming request|request completed/);
  });

  test('a terminal gets readable lines: time, level, message, the other fields', () => {
    const time = Date.UTC(2026, 10, 27, 21, 4, 5, 123);
    const request = JSON.stringify({
      level: 30,
      time,
      pid: 1,
      hostname: 'h',
      reqId: 'req_1',
      method: 'GET',
      path: '/v2/activity',
      status: 200,
      ms: 12,
      msg: 'GET /v2/activity 200 12ms',
    });
    assert.equal(prettyLine(request, false), '21:04:05.123 INFO  GET /v2/activity 200 12ms  reqId=req_1\n');
    const failure = JSON.stringify({
      level: 50,
      time,
      err: { message: 'boom', stack: 'Error: boom\n    at x' },
      queue: 'webhooks deliver',
      msg: 'job failed',
    });
    assert.equal(
      prettyLine(failure, false),
      '21:04:05.123 ERROR job failed  err=boom queue="webhooks deliver"\n    Error: boom\n        at x\n',
    );
    assert.ok(prettyLine(request, true).includes('\u001b[32mINFO '), 'the level in colour');
    assert.equal(prettyLine('not json', false), 'not json\n');
  });
});
