// The V8 flags `serve` re-executes itself with (runtime/memory-limits.js) must leave V8's
// code-cache hash as plain Node's: Node's built-in modules carry a code cache made without flags,
// checked against that hash, and a process whose flags change it (as `--expose-gc` does) compiles
// every built-in module it loads from source, on every start (issue 42).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { v8FlagsFor } from '../../src/runtime/memory-limits.js';

const tagWith = (flags: string[]) =>
  execFileSync(process.execPath, [...flags, '-p', 'require("node:v8").cachedDataVersionTag()'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  }).trim();

test('serve’s V8 flags keep Node’s code caches valid, in every role', () => {
  const plain = tagWith([]);
  // The check can fail: a flag that is in the hash changes it.
  assert.notEqual(tagWith(['--expose-gc']), plain);
  for (const role of ['all', 'api', 'worker'] as const) assert.equal(tagWith(v8FlagsFor(role)), plain, role);
});
