// What `serve` loads before it answers /ready is most of a later start's time (issue 42), so
// modules that nothing on that path uses are loaded on first use: TypeBox's compiler and value
// library (about 310 modules: core/schema-compiler.ts), the migrations' code (store/migrate.ts
// reads their names from the files), and the API documentation's plugins with yaml and their
// static-file server (about 150: http/openapi.ts builds them on the first request), and the sandbox
// provider's data generator (about 25, loaded when it is first asked for data). Checked in a fresh process that imports what `serve` imports
// up to the runtime, whose module loads are watched.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const ROOT = new URL('../../', import.meta.url);

test('serve imports neither TypeBox’s compiler nor value library, any migration, nor the docs’ plugins', () => {
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
    /\/typebox\/build\/(compile|value)\/|\/src\/store\/migrations\/|\/node_modules\/(@fastify\/swagger|@fastify\/swagger-ui|@fastify\/static|yaml)\/|\/src\/http\/openapi-document\.ts$|\/src\/providers\/sandbox\/generate\.ts$/.test(
      url,
    ),
  );
  assert.deepEqual(unwanted, []);
});
