// An import's reader loads only its provider (features/mobile/provider-module.ts), not the
// registry of every provider: checked in a fresh process, whose module loads are watched.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { providerRegistry } from '../../src/providers/index.ts';
import type { Provider } from '../../src/provider-kit/types.ts';

const ROOT = new URL('../../', import.meta.url);

/** The modules under src/providers/ a fresh process loads to find provider `id`. */
function providerModulesLoadedFor(id: string): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const loaded = [];
    registerHooks({ resolve(specifier, context, next) {
      const result = next(specifier, context);
      if (result.url.includes('/src/providers/')) loaded.push(result.url.slice(result.url.indexOf('/src/providers/') + 1));
      return result;
    } });
    const { loadProvider } = await import(${JSON.stringify(new URL('src/features/mobile/provider-module.ts', ROOT).href)});
    const provider = await loadProvider(${JSON.stringify(id)});
    if (provider?.declaration.id !== ${JSON.stringify(id)}) throw new Error('not found');
    process.stdout.write(JSON.stringify([...new Set(loaded)]));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out) as string[];
}

test('a provider with an export format is found without loading the registry of every provider', () => {
  const exporting = Object.entries(providerRegistry as Readonly<Record<string, Provider>>)
    .filter(([, provider]) => provider.connector?.mobile?.exportFile)
    .map(([id]) => id);
  assert.ok(exporting.length > 0);
  for (const id of exporting) {
    const loaded = providerModulesLoadedFor(id);
    assert.ok(!loaded.includes('src/providers/index.ts'), `${id} loaded the registry: ${loaded.join(', ')}`);
    assert.ok(
      loaded.every((path) => path.startsWith(`src/providers/${id.toLowerCase()}/`)),
      `${id} loaded other providers: ${loaded.join(', ')}`,
    );
  }
});
