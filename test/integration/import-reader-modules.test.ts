// What an import's reader process loads (features/mobile/import-task.ts with the Apple provider):
// its start is part of every import, and the schema library alone (typebox, ~370 modules) was
// about half of it (issue 44). The reader needs the model's code tables, not their schemas, so
// it imports them from model/code-tables.ts and model/activity-type-codes.ts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

const NODE = new URL('../../node_modules/.bin/node', import.meta.url).pathname;
const TASK = new URL('../../src/features/mobile/import-task.ts', import.meta.url).href;
const PROVIDER = new URL('../../src/features/mobile/provider-module.ts', import.meta.url).href;

test('an import’s reader loads the Apple provider’s export reader without the schema library', () => {
  // A fresh process, as the reader is: what it loads is recorded by a module hook.
  const script = `
    import { registerHooks } from 'node:module';
    const loaded = [];
    registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
    await import(${JSON.stringify(TASK)});
    const { loadProvider } = await import(${JSON.stringify(PROVIDER)});
    const provider = await loadProvider('APPLE');
    if (!provider?.connector?.mobile?.exportFile) throw new Error('no export reader');
    console.log(JSON.stringify(loaded));`;
  const child = spawnSync(NODE, ['--input-type=module', '--eval', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  const loaded = JSON.parse(child.stdout) as string[];
  assert.ok(
    loaded.some((url) => url.includes('/providers/apple/')),
    'the provider was loaded',
  );
  const schemaLibrary = loaded.filter((url) => url.includes('/node_modules/typebox/'));
  assert.deepEqual(schemaLibrary.slice(0, 3), [], `${schemaLibrary.length} typebox modules loaded`);
});
