// test/unit holds pure unit tests only (no database, no PGlite, no child process, no HTTP server),
// so that `npm run test:unit` stays fast. This checks each unit test file's own imports against
// the modules that bring one of those in; a test that needs one belongs in test/integration.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

const UNIT_DIR = new URL('./', import.meta.url);

/** Import specifiers that mean a database, a process or a server, and why. */
const FORBIDDEN: readonly [RegExp, string][] = [
  [/^node:child_process$/, 'starts a child process'],
  [/^node:(http|https|net|http2)$/, 'opens a socket'],
  [/^(pg|@electric-sql\/pglite)(\/|$)/, 'opens a database'],
  [/\/src\/store\/(db|migrate)\.ts$/, 'opens a database'],
  [/\/src\/core\/isolation\.ts$/, 'starts a child process'],
  [/\/src\/(http\/app|runtime\/context|runtime\/runtime)\.ts$/, 'builds the service'],
  [
    /\/helpers\/(app|child-service|child-store|scratch-database|migration-store|jobs|database)\.ts$/,
    'uses the test service or a database',
  ],
  [/\/fakes\/fake-server\.ts$/, 'opens a socket'],
  [/\/helpers\/(webhook-receiver|tcp-proxy|browser|ports)\.ts$/, 'opens a socket or a browser'],
];

/** Value imports only: `import type` brings nothing in at run time. */
function valueImports(source: string): string[] {
  const specifiers: string[] = [];
  for (const match of source.matchAll(/^import\s+(?!type\s)[^;]*?from\s+'([^']+)';/gms))
    specifiers.push(match[1]!);
  for (const match of source.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) specifiers.push(match[1]!);
  return specifiers;
}

test('every file in test/unit imports nothing that opens a database, a socket or a process', () => {
  const problems: string[] = [];
  for (const name of readdirSync(UNIT_DIR)
    .filter((file) => file.endsWith('.test.ts'))
    .sort()) {
    const source = readFileSync(new URL(name, UNIT_DIR), 'utf8');
    for (const specifier of valueImports(source)) {
      const hit = FORBIDDEN.find(([pattern]) => pattern.test(specifier));
      if (hit) problems.push(`${name}: ${specifier} ${hit[1]}; move the test to test/integration`);
    }
  }
  assert.deepEqual(problems, []);
});

test('the check sees a planted violation', () => {
  const planted =
    "import { startTestService } from '../helpers/app.ts';\nimport { spawn } from 'node:child_process';\n";
  const hits = valueImports(planted).filter((specifier) =>
    FORBIDDEN.some(([pattern]) => pattern.test(specifier)),
  );
  assert.deepEqual(hits, ['../helpers/app.ts', 'node:child_process']);
  assert.deepEqual(valueImports("import type { Server } from 'node:http';\n"), []);
});
