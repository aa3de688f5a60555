import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { portProblem } from '../../src/runtime/cli/listen-port.ts';
import { migrateReport } from '../../src/runtime/cli/output.ts';
import { engineReport, undecidedInstallScripts, type EngineWant } from '../../scripts/engine-report.ts';
import { olderNode } from '../helpers/packed-package.ts';

/**
 * What a new user reads and runs in the first hour, kept true: the engines npm checks, the
 * README's command list, the shell variables the docs use, a clean tree after `npm pack`, and the
 * CLI's one-line answers (migrate, a taken port).
 */
const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');
// semver ships no types: the one function used here, typed.
const satisfies = createRequire(import.meta.url)('semver/functions/satisfies') as (
  version: string,
  range: string,
) => boolean;

type Manifest = {
  scripts: Record<string, string>;
  engines: { node: string };
  devEngines: { runtime: { name: string; version: string; onFail: string } };
  devDependencies: Record<string, string>;
  allowScripts: Record<string, boolean>;
};
const pkg = JSON.parse(read('package.json')) as Manifest;
const pinned = pkg.devDependencies.node!;

test('every locked package accepts the pinned Node 24, so npm’s EBADENGINE on an older Node is noise', () => {
  // npm compares engines with the Node it runs on; the code runs on the pinned one. This is the
  // check that matters, and it fails on a real mismatch (a package needing a newer Node).
  const lock = JSON.parse(read('package-lock.json')) as {
    packages: Record<string, { engines?: { node?: string } | string[] }>;
  };
  const refused = Object.entries(lock.packages)
    .map(([path, entry]) => [path, Array.isArray(entry.engines) ? undefined : entry.engines?.node] as const)
    .filter(([, range]) => range !== undefined && !satisfies(pinned, range))
    .map(([path, range]) => `${path || 'the project'} wants node ${range}`);
  assert.deepEqual(refused, [], `packages that refuse Node ${pinned}`);
  assert.ok(satisfies(pinned, pkg.engines.node), 'the pinned Node satisfies the project’s engines');
});

test('after an install, npm’s EBADENGINE list is one line saying which Node runs the packages', () => {
  const wants: EngineWant[] = [
    { name: 'tributary', range: '>=24', project: true },
    { name: 'kysely@0.29.9', range: '>=22.18' },
    { name: '@babel/core@8.0.0', range: '^22.18.0 || >=24.11.0' },
    { name: 'pg@8.23.1', range: '>= 16.0.0' },
  ];
  const facts = { runtimePath: 'node_modules/.bin/node', wants, satisfies };
  const older = engineReport({ ...facts, npmNode: 'v20.20.2', runtimeNode: 'v24.21.0' });
  assert.deepEqual(older.mismatches, []);
  assert.equal(older.notes.length, 1);
  // The project's own engines are not among npm's warnings (devEngines), so not counted.
  assert.match(older.notes[0]!, /^tributary: npm ran on Node v20\.20\.2, older than 2 dependencies ask for /);
  assert.match(
    older.notes[0]!,
    /run them on Node v24\.21\.0 \(node_modules\/\.bin\/node\), which they accept\.$/,
  );

  const same = engineReport({ ...facts, npmNode: 'v24.21.0', runtimeNode: 'v24.21.0' });
  assert.deepEqual(same, { notes: [], mismatches: [] });
});

test('a package that refuses the Node running it is named, though npm’s own warnings are off', () => {
  const wants: EngineWant[] = [
    { name: 'tributary', range: '>=24', project: true },
    { name: 'future@1.0.0', range: '>=26' },
    { name: 'pg@8.23.1', range: '>= 16.0.0' },
  ];
  const facts = { npmNode: 'v24.21.0', runtimePath: 'node_modules/.bin/node', wants, satisfies };
  const pinned = engineReport({ ...facts, runtimeNode: 'v24.21.0' });
  assert.deepEqual(pinned.notes, []);
  assert.deepEqual(pinned.mismatches, [
    'tributary: 1 package refuses Node v24.21.0 (node_modules/.bin/node), which runs it: ' +
      'future@1.0.0 (node >=26). Raise the pinned Node (the `node` devDependency and .nvmrc) or hold those packages back.',
  ]);
  // Run on an older Node (no pinned one), the project itself is among the refusals.
  const old = engineReport({
    ...facts,
    npmNode: 'v20.20.2',
    runtimeNode: 'v20.20.2',
    runtimePath: '/usr/bin/node',
  });
  assert.match(
    old.mismatches[0]!,
    /^tributary: 2 packages refuse Node v20\.20\.2 \(\/usr\/bin\/node\), which runs them: tributary \(node >=24\), future@1\.0\.0/,
  );
});

test('an install script allowScripts does not decide is named, though npm’s warnings are off', () => {
  const installed = [
    { name: 'node', hasInstallScript: true },
    { name: 'tesseract.js', hasInstallScript: true },
    { name: 'native-thing', hasInstallScript: true },
    { name: 'pg', hasInstallScript: false },
  ];
  assert.deepEqual(undecidedInstallScripts(installed, { node: true, 'tesseract.js@7.0.0': false }), [
    "tributary: npm did not run the install scripts of native-thing: package.json's allowScripts " +
      'does not decide them (review with `npm install-scripts ls`, then allow or decline each there).',
  ]);
  assert.deepEqual(undecidedInstallScripts(installed.slice(0, 2), { node: true, 'tesseract.js': false }), []);
  // This install: every package with an install script is decided in package.json.
  const lock = JSON.parse(read('node_modules/.package-lock.json')) as {
    packages: Record<string, { hasInstallScript?: boolean }>;
  };
  const ours = Object.entries(lock.packages)
    .filter(([path]) => path.includes('node_modules/'))
    .map(([path, entry]) => ({
      name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length),
      hasInstallScript: entry.hasInstallScript === true,
    }));
  assert.deepEqual(undecidedInstallScripts(ours, pkg.allowScripts), []);
});

test('the root postinstall prints that one line for this install, on the Node npm scripts run on', () => {
  assert.equal(pkg.scripts.postinstall, 'node scripts/check-engines.js');
  assert.match(read('.npmrc'), /^loglevel=error$/m);
  const script = new URL('scripts/check-engines.js', ROOT).pathname;
  // As npm runs it after `npm ci` on Node 20: its user agent names the Node npm ran on.
  const result = spawnSync(process.execPath, [script], {
    env: { ...process.env, npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false' },
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stderr, '');
  assert.match(
    result.stdout,
    /^tributary: npm ran on Node v20\.20\.2, older than \d+ dependencies ask for [^\n]*\n$/,
  );
});

test('without the pinned Node, the postinstall says npm scripts would run on a Node too old', (t) => {
  const old = olderNode(18);
  if (!old) return t.skip('no Node older than 24 on this machine to run scripts/check-engines.js with');
  const script = new URL('scripts/check-engines.js', ROOT).pathname;
  const result = spawnSync(old.path, [script], { encoding: 'utf8' });
  assert.equal(result.status, 0, 'it warns, as npm does; bin/tributary.js is what refuses to run');
  assert.equal(result.stdout, '');
  const version = execFileSync(old.path, ['--version'], { encoding: 'utf8' }).trim();
  assert.match(
    result.stderr,
    new RegExp(`^tributary: this runs on Node ${version.replaceAll('.', '\\.')} [^\n]*need Node 24[^\n]*\n$`),
  );
});

test('devEngines names the Node npm may run on here; engines the Node the service runs on', () => {
  // With devEngines, npm stops comparing the project's own engines with the Node it runs on (the
  // two EBADENGINE lines every `npx tributary` printed on Node 20); npm 11 itself needs 20.17.
  assert.deepEqual(pkg.devEngines, { runtime: { name: 'node', version: '>=20.17.0', onFail: 'warn' } });
  assert.equal(pkg.engines.node, '>=24');
  assert.ok(satisfies(pinned, pkg.devEngines.runtime.version));
  assert.ok(!satisfies('20.16.0', pkg.devEngines.runtime.version));
});

test('the README’s command list names every command', () => {
  const readme = read('README.md');
  const list = /## Command line\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const listed = new Set([...list.matchAll(/^npx tributary (\S+)/gm)].map((match) => match[1]));
  const commands = read('src/runtime/cli/help.ts');
  const usages = /const USAGES: Record<string, string> = \{([\s\S]*?)\};/.exec(commands)?.[1] ?? '';
  const known = [...usages.matchAll(/^\s+(\w+):/gm)].map((match) => match[1]!);
  assert.ok(known.length >= 13, `the commands help knows: ${known.join(', ')}`);
  assert.deepEqual(
    known.filter((name) => !listed.has(name)),
    [],
    'commands missing from the README',
  );
});

test('the docs call the API with the variables `tributary sandbox env` sets ($API, $DEV, $KEY)', () => {
  const files = [
    'README.md',
    'packages/client/README.md',
    'packages/sdk-client/README.md',
    ...readdirSync(new URL('docs/', ROOT))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
  const problems: string[] = [];
  for (const file of files) {
    const text = read(file);
    for (const [, name] of text.matchAll(/dev-id: \$\{?(\w+)/g))
      if (name !== 'DEV') problems.push(`${file}: dev-id: $${name}`);
    for (const [, name] of text.matchAll(/x-api-key: \$\{?(\w+)/g))
      if (name !== 'KEY') problems.push(`${file}: x-api-key: $${name}`);
    for (const [, name] of text.matchAll(/(?:curl[^\n]*?|^\s*)"\$\{?(\w+)\}?\/(?:v2|v3|api)\//gm))
      if (name !== 'API') problems.push(`${file}: "$${name}/…"`);
  }
  assert.deepEqual(problems, []);
});

test('npm pack’s tarballs are ignored, so packing leaves a clean tree', () => {
  assert.match(read('.gitignore'), /^\*\.tgz$/m);
});

test('migrate says each migration it applied, one a line, or that none was pending', () => {
  assert.equal(migrateReport([]), 'migrations up to date: none pending\n');
  assert.equal(migrateReport(['0001_a']), 'applied 1 migration:\n  0001_a\n');
  assert.equal(migrateReport(['0001_a', '0002_b']), 'applied 2 migrations:\n  0001_a\n  0002_b\n');
});

test('a listen error about the address is one line naming it and what to do', () => {
  const inUse = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8080'), {
    code: 'EADDRINUSE',
  });
  assert.equal(
    portProblem(inUse, '127.0.0.1', 8080)?.message,
    '127.0.0.1:8080 is already in use (another tributary serve, or another program); ' +
      'stop it, or set PORT (and HOST) to a free address',
  );
  assert.match(
    portProblem({ code: 'EADDRINUSE' }, '::1', 80)?.message ?? '',
    /^\[::1\]:80 is already in use/,
  );
  assert.match(
    portProblem({ code: 'EACCES' }, '0.0.0.0', 80)?.message ?? '',
    /not permitted to listen on 0\.0\.0\.0:80/,
  );
  assert.equal(portProblem(new Error('something else'), '127.0.0.1', 8080), null);
});
