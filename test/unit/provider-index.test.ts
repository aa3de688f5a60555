// src/providers/index.ts is generated from the provider folders (scripts/new-provider.ts). This
// fails when someone edits it by hand or adds, renames or removes a folder without regenerating.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { expectedIndex, INDEX_FILE, providerFolders } from '../../scripts/provider-scaffold/index-file.ts';
import { validateDeclaration } from '../../src/provider-kit/validate.ts';
import { isProviderId, PROVIDER_IDS, providerRegistry } from '../../src/providers/index.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('src/providers/index.ts is what the generator makes of the folders present', async () => {
  const current = await readFile(join(root, INDEX_FILE), 'utf8');
  assert.equal(
    current,
    await expectedIndex(root),
    `${INDEX_FILE} does not match the provider folders: run \`npm run new-provider -- --index\``,
  );
});

test('one registry entry per folder, keyed by the id its declaration states', async () => {
  assert.equal(PROVIDER_IDS.length, (await providerFolders(root)).length);
  for (const id of PROVIDER_IDS) {
    assert.equal(providerRegistry[id].declaration.id, id);
    assert.deepEqual(validateDeclaration(id, providerRegistry[id]), [], id);
  }
});

test('isProviderId knows exactly the registered ids', () => {
  assert.ok(isProviderId('OURA'));
  assert.ok(isProviderId('SANDBOX'));
  assert.equal(isProviderId('oura'), false, 'ids are upper-case on the wire');
  assert.equal(isProviderId('toString'), false, 'not an inherited property');
  assert.equal(isProviderId('NOPE'), false);
});
