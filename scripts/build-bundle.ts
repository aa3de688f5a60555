/**
 * Builds the bundle the launcher runs (issue 42's later start): src/runtime/main.ts and what it
 * imports, dependencies included, as a few dozen ES modules in dist/serve/, with a manifest of the
 * files it was built from (src/runtime/bundle-manifest.js). A later start from the sources loads
 * about 1,800 modules through Node's loader (resolve, read, strip types, compile, link each one);
 * from the bundle it loads a handful of files, and lazy `import()`s stay separate chunks. Each
 * chunk is also written as a CommonJS script (`<chunk>.cjs`), which the launcher runs with a V8
 * code cache per chunk (src/runtime/cached-script.js).
 *
 *   node scripts/build-bundle.ts [--if-stale] [--root=DIR] [--out=DIR]
 *
 * `--if-stale` (npm's prestart) builds only when the bundle is missing or older than its sources,
 * and builds nothing, quietly, where esbuild is not installed (a production install): the
 * launcher then runs the sources. `--root` builds from another tree (the image's, whose
 * dependencies are installed apart). The bundle replaces the previous one in one rename.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import type * as Esbuild from 'esbuild';
import {
  BUNDLE_DIR,
  MANIFEST_FILE,
  describeInputs,
  freshBundleEntry,
} from '../src/runtime/bundle-manifest.js';

const option = (name: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const ROOT = resolve(option('root') ?? new URL('..', import.meta.url).pathname);
const OUT = resolve(ROOT, option('out') ?? BUNDLE_DIR);
const ifStale = process.argv.includes('--if-stale');

// Left to Node at run time, each for a reason: native addons and packages that start workers or
// read their own files by path (they must stay where they are installed), and pg's optional
// native binding.
const EXTERNAL = ['@napi-rs/canvas', 'tesseract.js', 'pdfjs-dist', 'pg-native'];

// Every chunk can `require` (CommonJS dependencies bundled into ES modules call it for Node's
// own modules) and find a file by its path relative to the chunk (below).
const BANNER = [
  "import { createRequire as __bundleCreateRequire } from 'node:module';",
  "import { fileURLToPath as __bundleFileURLToPath } from 'node:url';",
  'const require = __bundleCreateRequire(import.meta.url);',
  'const __bundlePath = (relative) => __bundleFileURLToPath(new URL(relative, import.meta.url));',
].join(' ');

/**
 * The script form's wrapper (src/runtime/cached-script.js calls the function): `require` is made
 * for the script's path, `__bundleFilename` is that path, and the script's `import.meta.url` (its
 * own modules' locations, below) and `import.meta.resolve` are the script's file, as they are a
 * chunk's in the modules. Strict, as ES modules are.
 */
const SCRIPT_BANNER = [
  "(function (exports, require, module, __bundleFilename) { 'use strict';",
  "const __bundleUrl = require('node:url').pathToFileURL(__bundleFilename).href;",
  "const __bundleResolve = (specifier) => require('node:url').pathToFileURL(require.resolve(specifier)).href;",
  "const __bundlePath = (relative) => require('node:url').fileURLToPath(new URL(relative, __bundleUrl));",
].join(' ');

/** A path from the bundle's folder to `path`, as a URL would resolve it from a chunk. */
const fromBundle = (path: string) => relative(OUT, path).split('\\').join('/') || '.';

/**
 * The modules keep the locations they were written for: in the project's own modules
 * `import.meta.url` is their source file's URL (the migrations folder, the isolation host and
 * task modules run as child processes, package.json, `createRequire` of a package), and in a
 * bundled CommonJS dependency `__dirname` and `__filename` are its installed folder and file
 * (Swagger UI's static files, pino's workers).
 */
const keepLocations = {
  name: 'keep-locations',
  setup(build: Esbuild.PluginBuild) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return { contents: text, loader: 'ts' };
      const own = `new URL(${JSON.stringify(fromBundle(args.path))}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', own), loader: 'ts' };
    });
    build.onLoad({ filter: /\/node_modules\/.*\.c?js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      // A module that declares these itself (an ES module's shim) keeps its own.
      if (!/\b__(dirname|filename)\b/.test(text) || /\b(const|let)\s+__(dirname|filename)\b/.test(text))
        return undefined;
      const header =
        `var __filename = __bundlePath(${JSON.stringify(fromBundle(args.path))}), ` +
        `__dirname = __bundlePath(${JSON.stringify(`${fromBundle(dirname(args.path))}/`)}).replace(/[\\\\/]$/, '');\n`;
      return { contents: header + text, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/**
 * Node's own modules are `require`d, also where a module `import`s them. An ES module import of a
 * built-in module makes Node build its ES facade, which reads every export, lazy ones included:
 * `node:http`'s WebSocket and its siblings load undici (~70 internal modules), `node:process` and
 * `node:util` theirs; measured, ~35 ms of CPU at start for `node:http` alone against ~4 ms for
 * `require`. Each import becomes one of a CommonJS module that re-exports `require(name)`: the
 * same functions, read from the module object where they are used (as the banner's `require`
 * already gives bundled CommonJS dependencies). A dynamic `import()` is left as written.
 */
const builtinsRequired = {
  name: 'builtins-required',
  setup(build: Esbuild.PluginBuild) {
    build.onResolve({ filter: /^[a-z0-9_:/]+$/ }, (args) =>
      args.kind === 'import-statement' && isBuiltin(args.path)
        ? { path: args.path, namespace: 'builtin-required' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'builtin-required' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

class SourceChanged extends Error {
  constructor(path: string) {
    super(`${path} changed during the build`);
  }
}

if (ifStale && freshBundleEntry(ROOT, OUT)) process.exit(0);

let esbuild: typeof Esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  if (ifStale) process.exit(0);
  throw new Error('build-bundle: esbuild is not installed (it is a devDependency: npm ci)');
}
// It parses chunks with TypeScript, a devDependency as esbuild is: loaded only to build.
const { asciiOnly, isAscii } = await import('./ascii-chunk.ts');

/**
 * Every chunk pure ASCII (scripts/ascii-chunk.ts: a one-byte string for V8, half the memory of
 * the two-byte one a single `…` made, and Node's fast decoding); the build fails otherwise.
 */
function makeChunksAscii(folder: string) {
  const chunks = readdirSync(folder).filter((file) => file.endsWith('.js'));
  for (const chunk of chunks) {
    const path = join(folder, chunk);
    const bytes = readFileSync(path);
    if (!isAscii(bytes)) writeFileSync(path, asciiOnly(chunk, bytes.toString('utf8')));
  }
  const left = chunks.filter((chunk) => !isAscii(readFileSync(join(folder, chunk))));
  if (left.length > 0) throw new Error(`build-bundle: chunks not pure ASCII: ${left.join(', ')}`);
}

/**
 * Every chunk again as one CommonJS function for `vm.Script` (src/runtime/cached-script.js: a code
 * cache per chunk made after the start): `<chunk>.cjs` beside it, without the ES banner (the
 * wrapper gives `require`), its imports of other chunks made `require('./chunk-….js')` (live
 * bindings as getters) and its `import()`s of them a `require` in a promise. Returns a hash of
 * them all, which each cache names.
 */
async function buildScriptChunks(folder: string): Promise<string> {
  const hash = createHash('sha256');
  for (const chunk of readdirSync(folder)
    .filter((file) => file.endsWith('.js'))
    .sort()) {
    const text = readFileSync(join(folder, chunk), 'latin1');
    if (!text.startsWith(BANNER)) throw new Error(`build-bundle: ${chunk} does not start with the banner`);
    const { code } = await esbuild.transform(text.slice(BANNER.length), {
      format: 'cjs',
      loader: 'js',
      platform: 'node',
      target: 'node24',
      supported: { 'dynamic-import': false },
      define: { 'import.meta.url': '__bundleUrl', 'import.meta.resolve': '__bundleResolve' },
      banner: SCRIPT_BANNER,
      footer: '})',
      logLevel: 'warning',
    });
    if (!isAscii(Buffer.from(code))) throw new Error(`build-bundle: ${chunk}'s script is not pure ASCII`);
    writeFileSync(join(folder, chunk.replace(/\.js$/, '.cjs')), code);
    hash.update(chunk).update(code);
  }
  return hash.digest('hex').slice(0, 16);
}

const started = Date.now();
const building = `${OUT}.building-${process.pid}`;
rmSync(building, { recursive: true, force: true });
try {
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    // The launcher runs serve's start-up collection before it loads main (runtime/start-up-heap.ts).
    entryPoints: { main: 'src/runtime/main.ts', 'start-up-heap': 'src/runtime/start-up-heap.ts' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    outdir: building,
    external: EXTERNAL,
    banner: { js: BANNER },
    plugins: [keepLocations, builtinsRequired],
    metafile: true,
    logLevel: 'warning',
  });
  makeChunksAscii(building);
  const scripts = await buildScriptChunks(building);
  const inputs = Object.keys(result.metafile.inputs).filter((input) => !input.includes(':'));
  // A file saved while the build read it may be in the bundle as it was before: not fresh.
  const changed = [...inputs, ...inputs.map(dirname)].find(
    (path) => statSync(join(ROOT, path)).mtimeMs >= started,
  );
  if (changed) throw new SourceChanged(changed);
  const manifest = describeInputs(ROOT, 'main.js', inputs, scripts);
  // The manifest keeps whole seconds: an edit made after it is written must fall in a later one.
  const latest = Math.max(
    ...Object.values(manifest.files).map(([, mtime]) => mtime),
    ...Object.values(manifest.folders),
  );
  while (Math.floor(Date.now() / 1000) <= latest) await new Promise((resolve) => setTimeout(resolve, 50));
  writeFileSync(join(building, MANIFEST_FILE), JSON.stringify(manifest));
  // The previous bundle goes in one rename; a launcher starting in between runs the sources.
  const previous = `${OUT}.previous-${process.pid}`;
  if (existsSync(OUT)) renameSync(OUT, previous);
  renameSync(building, OUT);
  rmSync(previous, { recursive: true, force: true });
} catch (error) {
  // npm start goes on with the sources, which the launcher runs while the bundle is stale.
  if (!(error instanceof SourceChanged) || !ifStale) throw error;
  console.error(`build-bundle: ${error.message}; the sources run until the next build`);
} finally {
  rmSync(building, { recursive: true, force: true });
}
