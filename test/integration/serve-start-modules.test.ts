// What `serve` loads before it answers /ready is most of a later start's time (issue 42), so
// modules that nothing on that path uses are loaded on first use: TypeBox's compiler and value
// library (about 310 modules: core/schema-compiler.ts), the migrations' code (store/migrate.ts
// reads their names from the files), and the API documentation's plugins with yaml and their
// static-file server (about 150: http/openapi.ts builds them on the first request), and the sandbox
// provider's data generator (about 25, loaded when it is first asked for data), and the readers and
// writers of imports and archives (node:readline, saxes, yauzl, yazl: loaded by their first use).
// Checked in a fresh process that imports what `serve` imports up to the runtime, whose module
// loads are watched.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = new URL('../../', import.meta.url);

test('serve imports neither TypeBox’s compiler nor value library, any migration, the docs’ plugins, nor the readers and writers of imports and archives', () => {
  const script = `
    import { registerHooks } from 'node:module';
    const loaded = new Set();
    registerHooks({ resolve(specifier, context, next) {
      const result = next(specifier, context);
      loaded.add(result.url);
      return result;
    } });
    for (const path of ['src/runtime/main.ts', 'src/runtime/cli/serve.ts', 'src/runtime/runtime.ts'])
      await import(new URL(path, ${JSON.stringify(ROOT.href)}).href);
    process.stdout.write(JSON.stringify([...loaded]));
  `;
  const loaded = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 120_000,
    }),
  ) as string[];
  // The check can fail: the runtime's own modules were watched.
  assert.ok(loaded.some((url) => url.endsWith('/src/http/app.ts')));
  const unwanted = loaded.filter((url) =>
    /\/typebox\/build\/(compile|value)\/|\/src\/store\/migrations\/|\/node_modules\/(@fastify\/swagger|@fastify\/swagger-ui|@fastify\/static|yaml|saxes|yauzl|yazl)\/|^node:readline$|\/src\/http\/openapi-document\.ts$|\/src\/providers\/sandbox\/generate\.ts$/.test(
      url,
    ),
  );
  assert.deepEqual(unwanted, []);
});

// Node strips types with a module of its own (amaro) that it loads for the first TypeScript file
// whose stripped code is not in the compile cache: ~65 ms of CPU in each image of the launcher's
// re-exec where the cache is empty (a container's /tmp is new at each start). What the launcher
// loads before the entry it runs (the bundle, or src/runtime/main.ts) is JavaScript.
test('the launcher loads no TypeScript before the entry it runs', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'tributary-launcher-modules-'));
  try {
    const hook = join(scratch, 'hook.mjs');
    const out = join(scratch, 'loaded.json');
    writeFileSync(
      hook,
      `import { registerHooks } from 'node:module';
       import { writeFileSync } from 'node:fs';
       const loaded = [];
       registerHooks({ resolve(specifier, context, next) {
         const result = next(specifier, context);
         if (result.url.startsWith('file:')) loaded.push(result.url);
         return result;
       } });
       process.on('exit', () => writeFileSync(${JSON.stringify(out)}, JSON.stringify(loaded)));`,
    );
    execFileSync(
      process.execPath,
      [`--import=${hook}`, new URL('bin/tributary.js', ROOT).pathname, '--help'],
      {
        cwd: scratch,
        env: { PATH: process.env.PATH ?? '' },
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    const loaded = JSON.parse(readFileSync(out, 'utf8')) as string[];
    const entry = loaded.findIndex((url) => /\/src\/runtime\/main\.ts$|\/dist\/serve\/main\.js$/.test(url));
    assert.ok(entry > 0, `the entry was loaded: ${loaded.join(', ')}`);
    const launcher = loaded.slice(0, entry);
    // The check can fail: the launcher's own modules were watched.
    assert.ok(
      launcher.some((url) => /\/src\/runtime\/bundle-manifest\.[jt]s$/.test(url)),
      launcher.join(', '),
    );
    assert.deepEqual(
      launcher.filter((url) => url.endsWith('.ts')),
      [],
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
