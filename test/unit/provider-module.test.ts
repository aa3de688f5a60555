import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadProvider } from '../../src/features/mobile/provider-module.ts';
import type { Provider } from '../../src/provider-kit/types.ts';
import { providerRegistry } from '../../src/providers/index.ts';

test('an import reader finds each provider with an export format, and nothing for an unknown id', async () => {
  const exporting = Object.entries(providerRegistry as Readonly<Record<string, Provider>>).filter(
    ([, provider]) => provider.connector?.mobile?.exportFile,
  );
  assert.ok(exporting.length > 0);
  // The same module instance as the registry's: the reader reads with the hooks the server lists.
  for (const [id, provider] of exporting) assert.equal(await loadProvider(id), provider, id);
  assert.equal(await loadProvider('NO_SUCH_PROVIDER'), undefined);
  assert.equal(await loadProvider('../apple'), undefined);
});
