// The layering in ARCHITECTURE.md is a rule, not a wish: the dependency-cruiser rules that
// `npm run lint` runs on the real tree must fail on a planted upward import or cycle (small
// planted trees here; the real tree is `npm run lint`'s, not a unit test's).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cruise, type IConfiguration, type ICruiseResult } from 'dependency-cruiser';

const root = fileURLToPath(new URL('../../', import.meta.url));
const config = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs')) as IConfiguration;

async function violationsIn(baseDir: string): Promise<string[]> {
  const result = await cruise(['src'], {
    baseDir,
    validate: true,
    ruleSet: { forbidden: config.forbidden ?? [] },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  });
  const output = result.output as ICruiseResult;
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}

function plantedTree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-layers-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('architecture rules', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('a planted upward import (core importing a feature) fails', async () => {
    const dir = plantedTree({
      'src/features/connections/service.ts': 'export const user = 1;\n',
      'src/core/clock.ts':
        "import { user } from '../features/connections/service.ts';\nexport const x = user;\n",
    });
    dirs.push(dir);
    const violations = await violationsIn(dir);
    assert.ok(
      violations.some((v) =>
        v.startsWith('no-upward-from-core: src/core/clock.ts -> src/features/connections/service.ts'),
      ),
      violations.join('\n'),
    );
  });

  it('a provider importing a feature, the store or another provider fails', async () => {
    const dir = plantedTree({
      'src/features/data/records.ts': 'export const r = 1;\n',
      'src/store/db.ts': 'export const db = 1;\n',
      'src/providers/b/provider.ts': 'export const b = 1;\n',
      'src/providers/a/provider.ts':
        "import { r } from '../../features/data/records.ts';\nimport { db } from '../../store/db.ts';\nimport { b } from '../b/provider.ts';\nexport const a = r + db + b;\n",
    });
    dirs.push(dir);
    const rules = new Set((await violationsIn(dir)).map((v) => v.split(':')[0]));
    assert.ok(rules.has('no-upward-from-providers'));
    assert.ok(rules.has('providers-see-only-the-kit'));
    assert.ok(rules.has('providers-are-independent'));
  });

  it('a planted cycle between two features fails, type-only imports included', async () => {
    const dir = plantedTree({
      'src/features/a/a.ts': "import type { B } from '../b/b.ts';\nexport type A = { b?: B };\n",
      'src/features/b/b.ts': "import type { A } from '../a/a.ts';\nexport type B = { a?: A };\n",
    });
    dirs.push(dir);
    const violations = await violationsIn(dir);
    assert.ok(
      violations.some((v) => v.startsWith('no-cycles:')),
      violations.join('\n'),
    );
  });
});
