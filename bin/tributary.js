#!/usr/bin/env node
// Runs the bundle that `npm start` builds (scripts/build-bundle.ts) while it is fresh, and the
// TypeScript sources directly (Node 24 strips types) otherwise: no build step is ever needed, the
// bundle only starts faster (a few files to load instead of about 1,800 modules). The compile
// cache keeps V8's compiled code between runs, which shortens every later start of either; the
// bundle's script form keeps, besides, what a start compiled lazily (src/runtime/cached-script.js).
import { existsSync } from 'node:fs';
import module from 'node:module';
import { setImmediate } from 'node:timers';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';

// One message, before anything else can fail less clearly: the sources are TypeScript, which
// Node runs only from 24 on (an older `node` first on PATH fails on the first `.ts` import).
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  // In a clone, name the Node 24 that `npm ci` installed (the `node` devDependency) by its path.
  const pinned = new URL('../node_modules/.bin/node', import.meta.url).pathname;
  console.error(
    `tributary needs Node.js 24 or later; this is ${process.version} (${process.execPath}). ` +
      (existsSync(pinned)
        ? `Use the Node 24 that \`npm ci\` installed: \`npx tributary …\`, \`npm start\`, or ${pinned} ${process.argv[1]} …`
        : 'In a clone, `npm ci` installs Node 24 (then `npx tributary …`); elsewhere, install Node 24 (.nvmrc names it).'),
  );
  process.exit(1);
}

// ./.env, as `.env.example` invites: read once, and a variable already in the environment wins
// (Node's own --env-file rules). Read before the memory tuning below, which is configured by it.
if (existsSync('.env')) process.loadEnvFile('.env');

module.enableCompileCache?.();

// `serve` (and `import`) size their own memory (src/runtime/memory-limits.js): V8 and malloc settings can only be
// given to a process image as it starts, so it re-executes itself once with them (same pid).
if (typeof process.execve === 'function') {
  const { tunedLaunch } = await import('../src/runtime/memory-limits.js');
  const launch = tunedLaunch(process.argv.slice(2), process.env, process.execArgv);
  if (launch) {
    const script = process.argv[1];
    try {
      process.execve(
        process.execPath,
        [process.execPath, ...launch.execArgv, script, ...process.argv.slice(2)],
        launch.env,
      );
    } catch (error) {
      // Not fatal: the service runs with Node's default sizing instead.
      console.error(
        `tributary: could not apply its memory settings (${error.message}); running without them`,
      );
    }
  }
}

// TRIBUTARY_BUNDLE=off runs the sources; TRIBUTARY_BUNDLE=DIR runs the bundle in DIR, and only it.
const { BUNDLE_DIR, freshBundle } = await import('../src/runtime/bundle-manifest.js');
const choice = process.env.TRIBUTARY_BUNDLE;
let entry = new URL('../src/runtime/main.ts', import.meta.url);
let startUpHeap = new URL('../src/runtime/start-up-heap.ts', import.meta.url);
/** @type {import('../src/runtime/cached-script.js').ScriptChunks | undefined} The bundle's chunks as scripts. */
let chunks;
if (choice !== 'off') {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const bundle = choice
    ? new URL(choice, pathToFileURL(`${process.cwd()}/`))
    : new URL(`../${BUNDLE_DIR}/`, import.meta.url);
  const fresh = freshBundle(root, fileURLToPath(bundle));
  if (fresh) {
    entry = pathToFileURL(fresh.entry);
    startUpHeap = new URL('start-up-heap.js', entry);
    // Its chunks as scripts with the code caches of an earlier start (src/runtime/cached-script.js),
    // where it has them; its ES modules where there is no cache and none can be made.
    if (fresh.scripts) {
      const { scriptChunks } = await import('../src/runtime/cached-script.js');
      chunks = scriptChunks(fileURLToPath(new URL('.', entry)), fresh.scripts, 'main.js');
    }
  } else if (choice) {
    console.error(`tributary: no bundle in ${fileURLToPath(bundle)} as fresh as the sources (npm run build)`);
    process.exit(1);
  }
}
// Serve's one start-up collection, before the service loads, while the heap holds only Node and
// this launcher (src/runtime/start-up-heap.ts).
if (process.argv[2] === 'serve') {
  const { collectBeforeServing } = chunks ? chunks.load('start-up-heap.js') : await import(startUpHeap.href);
  collectBeforeServing(process.argv.slice(2), process.env.TRIBUTARY_MEMORY_TUNING);
}
const { main } = chunks ? chunks.load('main.js') : await import(entry.href);
// Serve writes the caches of the chunks it ran without one once it has started (below); any
// command as it exits cleanly (serve too: a stop right after /ready, before its start-up finished,
// and the chunks it loaded on first use since), so that a command's own chunks get theirs; never
// after a failure.
const saveCaches = chunks?.saveCaches;
if (saveCaches) process.once('exit', (code) => code === 0 && saveCaches());

main(process.argv.slice(2)).then(
  (code) => {
    // `serve` keeps running; every other command ends here.
    if (process.argv[2] !== 'serve' || code !== 0) process.exit(code);
    // Serve has started (after /ready): what it compiled goes into the caches, after this turn.
    if (saveCaches) setImmediate(saveCaches).unref();
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
