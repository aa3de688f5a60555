// The launcher runs the bundle that `npm start` builds (scripts/build-bundle.ts) while it is as
// fresh as the sources (src/runtime/bundle-manifest.js). Built here into a folder of its own, the
// bundle must serve as the sources do: embedded PostgreSQL started from it (its binaries found
// from the sources' location), the same OpenAPI document (built on the first request, with
// @fastify/swagger reading its own files), the docs' static files, the dashboard's pages; and any
// change to what it was built from makes it stale. Every chunk is pure ASCII (scripts/ascii-chunk.ts:
// one-byte source strings for V8), with the characters it escaped still what the pages show.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { describeInputs, freshBundleEntry, MANIFEST_FILE } from '../../src/runtime/bundle-manifest.js';
import { childEnvironment, startService } from '../helpers/child-service.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

async function openApiAndDocs(env: Record<string, string>) {
  const service = await startService(env);
  try {
    const document = await fetch(`${service.url}/openapi.json`).then((response) => response.text());
    const docs = await fetch(`${service.url}/docs/`);
    await docs.arrayBuffer();
    // The sign-in page, less its per-visit form token.
    const signIn = await fetch(`${service.url}/dashboard`)
      .then((response) => response.text())
      .then((page) => page.replaceAll(/name="csrf" value="[^"]*"/g, 'name="csrf"'));
    return { document, docsStatus: docs.status, signIn };
  } finally {
    await service.stop();
  }
}

test('serve runs from the bundle to /ready and serves the same OpenAPI document as the sources', async () => {
  const bundle = join(ROOT, 'dist', `test-${process.pid}`);
  const environment = await childEnvironment({ DATABASE_URL: '' });
  try {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-bundle.ts'), `--out=${bundle}`], {
      stdio: ['ignore', 'inherit', 'inherit'],
      timeout: 300_000,
    });
    // Node's own modules are required: an ES import builds a built-in's facade, reading every
    // lazy export (node:http's loads undici). Only the banner's two imports are left.
    const imported = readdirSync(bundle)
      .filter((file) => file.endsWith('.js'))
      .flatMap((file) =>
        [
          ...readFileSync(join(bundle, file), 'utf8').matchAll(
            /(?:^|;)\s*import\b[^;'"]*?from\s*["']([^"']+)["']/gm,
          ),
        ]
          .map((match) => match[1]!)
          .filter((specifier) => isBuiltin(specifier)),
      );
    assert.deepEqual([...new Set(imported)].sort(), ['node:module', 'node:url']);
    const notAscii = readdirSync(bundle).filter((file) =>
      readFileSync(join(bundle, file)).some((byte) => byte > 0x7f),
    );
    assert.deepEqual(notAscii, []);
    // TRIBUTARY_BUNDLE=DIR runs that bundle or refuses to start: never the sources in its place.
    const bundled = await openApiAndDocs({ ...environment.env, TRIBUTARY_BUNDLE: bundle });
    const sources = await openApiAndDocs({ ...environment.env, TRIBUTARY_BUNDLE: 'off' });
    assert.ok(JSON.parse(sources.document).paths, 'the sources serve an OpenAPI document');
    assert.equal(bundled.document, sources.document);
    assert.equal(bundled.docsStatus, 200);
    // The page's title is written `\u00b7` in its template (the chunks are ASCII): it shows `·`.
    assert.match(sources.signIn, /<title>[^<]* \u00b7 Tributary dashboard<\/title>/);
    assert.equal(bundled.signIn, sources.signIn);
    assert.equal(sources.docsStatus, 200);
  } finally {
    rmSync(bundle, { recursive: true, force: true });
    await environment.cleanup();
  }
});

test('a bundle is stale once a file it was built from changes, or a file appears beside its sources', () => {
  const root = mkdtempSync(join(tmpdir(), 'tributary-bundle-manifest-'));
  try {
    mkdirSync(join(root, 'src'));
    mkdirSync(join(root, 'node_modules/a'), { recursive: true });
    mkdirSync(join(root, 'dist'));
    writeFileSync(join(root, 'src/main.ts'), 'export const main = 1;');
    writeFileSync(join(root, 'node_modules/a/index.js'), 'module.exports = 1;');
    const write = () =>
      writeFileSync(
        join(root, 'dist', MANIFEST_FILE),
        JSON.stringify(describeInputs(root, 'main.js', ['src/main.ts', 'node_modules/a/index.js'])),
      );
    // Times in the past: a change made now gets another time even where the clock is coarse.
    const past = new Date(Date.now() - 60_000);
    const age = (...paths: string[]) => {
      for (const path of paths) utimesSync(join(root, path), past, past);
    };
    age('src/main.ts', 'src', 'node_modules/a/index.js');
    const fresh = () => freshBundleEntry(root, join(root, 'dist'));

    // Installed without npm's hidden lockfile: every dependency file is recorded.
    write();
    assert.equal(fresh(), join(root, 'dist/main.js'));
    // Same size, another modification time (an edit, a checkout, a reinstall).
    utimesSync(join(root, 'node_modules/a/index.js'), new Date(), new Date());
    assert.equal(fresh(), undefined);

    write();
    assert.equal(fresh(), join(root, 'dist/main.js'));
    writeFileSync(join(root, 'src/other.ts'), '');
    assert.equal(fresh(), undefined);
    rmSync(join(root, 'src/other.ts'));
    age('src');

    // Installed by npm: the install's records stand for the dependencies, the sources are still
    // checked file by file.
    writeFileSync(join(root, 'package-lock.json'), '{}');
    writeFileSync(join(root, 'node_modules/.package-lock.json'), '{}');
    age('package-lock.json', 'node_modules/.package-lock.json');
    write();
    assert.equal(fresh(), join(root, 'dist/main.js'));
    // The trade (bundle-manifest.js INSTALL_RECORDS): a dependency edited by hand goes unseen...
    utimesSync(join(root, 'node_modules/a/index.js'), new Date(), new Date());
    assert.equal(fresh(), join(root, 'dist/main.js'));
    // ...and any install, which writes its hidden lockfile anew, is seen.
    utimesSync(join(root, 'node_modules/.package-lock.json'), new Date(), new Date());
    assert.equal(fresh(), undefined);
    write();
    writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}');
    assert.equal(fresh(), undefined);
    write();
    utimesSync(join(root, 'src/main.ts'), new Date(), new Date());
    assert.equal(fresh(), undefined);

    write();
    rmSync(join(root, 'src/main.ts'));
    assert.equal(fresh(), undefined);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
