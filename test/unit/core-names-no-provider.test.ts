// Providers are data plus small hooks; core code never names a provider (ARCHITECTURE.md,
// Layers). Whatever is true of one provider is said in its own folder (src/providers/<folder>/:
// its declaration, its connector's hooks, its comments), and core code reads it generically, so
// adding, renaming or removing a provider touches only its folder. This fails when a file of
// src/ outside src/providers names a provider id (as code, text or comment) or reaches into a
// provider's folder. Display names ("Garmin") are not checked: several are ordinary words too
// (a sandbox developer, polar coordinates), and a comment citing a maker is not a branch on it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { providerRegistry } from '../../src/providers/index.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every provider's id, as its declaration states it (the registry is keyed by them). */
const PROVIDER_IDS = Object.values(providerRegistry).map((provider) => provider.declaration.id);

/** Every provider's folder under src/providers/. */
const PROVIDER_FOLDERS = readdirSync(join(root, 'src/providers')).filter((entry) =>
  statSync(join(root, 'src/providers', entry)).isDirectory(),
);

/**
 * Where core code may still name a provider, each with its reason. An entry that no longer
 * matches fails too, so the list only shrinks.
 */
const ALLOWED: readonly { file: string; names: readonly string[]; reason: string }[] = [
  {
    file: 'src/http/routes/sandbox-consent.ts',
    names: ['providers/sandbox/'],
    reason:
      "the simulated provider's consent page and token endpoint are hosted by Tributary (its authorizeUrl is a path here); the kit has no hook for hosted consent pages yet",
  },
  {
    file: 'src/runtime/cli/sandbox.ts',
    names: ['providers/sandbox/'],
    reason: "`tributary sandbox connect` takes that hosted consent page's decision without a browser",
  },
  {
    file: 'src/runtime/cli/import.ts',
    names: ['APPLE'],
    reason:
      'pending: its usage says which provider an export import creates a user of (import4 edits this file)',
  },
  {
    file: 'src/runtime/workers/data.ts',
    names: ['SANDBOX'],
    reason: 'pending: a comment naming the simulated provider (src/runtime is outside tidy4)',
  },
  {
    file: 'src/features/mobile/service.ts',
    names: ['APPLE', 'HEALTH_CONNECT', 'SAMSUNG'],
    reason:
      'pending: the not-an-SDK-source message lists the SDK providers; to be read from the catalog (import4 edits features/mobile)',
  },
  {
    file: 'src/features/mobile/schemas.ts',
    names: ['APPLE', 'HEALTH_CONNECT', 'SAMSUNG'],
    reason:
      'pending: SDK schema descriptions and examples; to be read from the catalog (import4 edits features/mobile)',
  },
  {
    file: 'src/features/mobile/provider-module.ts',
    names: ['HEALTH_CONNECT', 'providers/health_connect/'],
    reason: 'its comment shows the id-to-folder rule that loadProvider relies on, with one example',
  },
];

/** Released migrations are history: what they wrote is never edited. */
const isReleasedMigration = (file: string) => /^src\/store\/migrations\/\d{4}_[\w-]+\.ts$/.test(file);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else out.push(path);
  }
  return out;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A provider id as a whole word (`SANDBOX_ARRIVAL_MINUTES` is a setting, not the id). */
const idPatterns = PROVIDER_IDS.map(
  (id) => [id, new RegExp(`(?<![A-Za-z0-9_$])${escape(id)}(?![A-Za-z0-9_$])`)] as const,
);
/** A path into one provider's folder (an import, or a dynamic import's template). */
const folderPatterns = PROVIDER_FOLDERS.map(
  (folder) => [`providers/${folder}/`, new RegExp(`\\bproviders/${escape(folder)}/`)] as const,
);

/** The provider names (ids and folder paths) a text contains. */
function providerNamesIn(text: string): string[] {
  return [...idPatterns, ...folderPatterns].filter(([, pattern]) => pattern.test(text)).map(([name]) => name);
}

/** `file: name` for every core file and provider name it contains. */
function coreFindings(): string[] {
  const found: string[] = [];
  for (const path of sourceFiles(join(root, 'src'))) {
    const file = relative(root, path).split('\\').join('/');
    if (file.startsWith('src/providers/') || isReleasedMigration(file)) continue;
    for (const name of providerNamesIn(readFileSync(path, 'utf8'))) found.push(`${file}: ${name}`);
  }
  return found.sort();
}

describe('core code names no provider', () => {
  const allowed = ALLOWED.flatMap(({ file, names }) => names.map((name) => `${file}: ${name}`));

  it('no file of src/ outside src/providers and the migrations names a provider id or folder', () => {
    const found = coreFindings();
    assert.deepEqual(
      found.filter((finding) => !allowed.includes(finding)),
      [],
      "say it in the provider's own folder (declaration data or a connector hook) and read it generically",
    );
  });

  it('every allowed entry still occurs (the allow-list only shrinks)', () => {
    const found = new Set(coreFindings());
    assert.deepEqual(
      allowed.filter((entry) => !found.has(entry)),
      [],
    );
  });

  it('finds a planted provider branch and import, and leaves look-alikes alone', () => {
    const oneId = PROVIDER_IDS[0]!;
    const oneFolder = PROVIDER_FOLDERS[0]!;
    assert.deepEqual(providerNamesIn(`if (provider.id === '${oneId}') return;`), [oneId]);
    assert.deepEqual(providerNamesIn(`import { x } from '../../providers/${oneFolder}/provider.ts';`), [
      `providers/${oneFolder}/`,
    ]);
    assert.deepEqual(providerNamesIn(`const setting = '${oneId}_CLIENT_ID'; // ${oneId.toLowerCase()}`), []);
  });
});
