// @ts-check
// The bundle's manifest: what scripts/build-bundle.ts wrote the bundle from, so that the launcher
// (bin/tributary.js) runs the bundle only while it is the code the sources would run. Every
// input file of the project's own is recorded with its size and modification time, and every
// source folder an input lies in with its modification time (a file added there, such as a
// provider that a dynamic import would now find, changes the folder's). The installed
// dependencies are recorded by the install itself (INSTALL_RECORDS). Any difference, or a
// missing file, makes the bundle stale and the launcher runs the sources instead. Times are whole
// seconds, which every copy keeps (a container image's layers, `cp -a`); scripts/build-bundle.ts
// writes the manifest only once the clock has passed the second of every time it records, so a
// later edit differs.
// JavaScript, its types in JSDoc (checked by `npm run typecheck`), as runtime/memory-limits.js is:
// the launcher loads it before the bundle, and a TypeScript file would load Node's type stripper.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';

/** Where `npm start` builds the bundle and the launcher looks for it, relative to the checkout. */
export const BUNDLE_DIR = 'dist/serve';
/** The manifest's file name in a bundle folder; written last, so a bundle without one is incomplete. */
export const MANIFEST_FILE = 'manifest.json';

/**
 * @typedef {object} BundleManifest
 * @property {string} entry The entry module (exports `main`, as src/runtime/main.ts does), relative to the bundle folder.
 * @property {string} [scripts] The hash of the chunks' script forms (`<chunk>.cjs`, runtime/cached-script.js runs them), where the bundle has them.
 * @property {Record<string, [number, number]>} files Input file (or install record) → [size in bytes, modification time in s], paths relative to the checkout.
 * @property {Record<string, number>} folders Source folder of an input → its modification time in s, relative to the checkout.
 */

/** @param {number} mtimeMs */
const seconds = (mtimeMs) => Math.floor(mtimeMs / 1000);

/** Where the dependencies are installed, relative to the checkout. */
const DEPENDENCIES = 'node_modules/';
/**
 * Recorded in place of the ~1,800 dependency files a bundle is built from, so that a start stats
 * two files for them instead of every one: npm writes its hidden lockfile anew at the end of every
 * install that reifies the tree (`npm ci`, `npm install`, `npm update`, `npm uninstall`: a new
 * modification time at least), and package-lock.json says what an install would bring. The
 * trade: a hand edit inside node_modules (no install) no longer makes the bundle stale; run the
 * sources with TRIBUTARY_BUNDLE=off, or rebuild (`npm run build`). Where no hidden lockfile was
 * written (another package manager), every dependency file is recorded, as the project's are.
 */
export const INSTALL_RECORDS = ['package-lock.json', `${DEPENDENCIES}.package-lock.json`];

/**
 * Records the current state of `inputs` (paths relative to `root`) for a bundle built from them.
 * @param {string} root
 * @param {string} entry
 * @param {string[]} inputs
 * @param {string} [scripts] The hash of the chunks' script forms, where the bundle has them.
 * @returns {BundleManifest}
 */
export function describeInputs(root, entry, inputs, scripts) {
  /** @type {BundleManifest['files']} */
  const files = {};
  /** @type {BundleManifest['folders']} */
  const folders = {};
  const installed = existsSync(join(root, DEPENDENCIES, '.package-lock.json'));
  if (installed)
    for (const record of INSTALL_RECORDS) {
      const stats = statSync(join(root, record), { throwIfNoEntry: false });
      if (stats) files[record] = [stats.size, seconds(stats.mtimeMs)];
    }
  for (const input of inputs) {
    // Only the checkout's own node_modules is the hidden lockfile's (one nested elsewhere, as in
    // a workspace package's folder, is recorded file by file).
    if (installed && input.startsWith(DEPENDENCIES)) continue;
    const stats = statSync(join(root, input));
    files[input] = [stats.size, seconds(stats.mtimeMs)];
    // Dependencies change as whole installs, which write every file of a package anew; a new
    // file matters in the project's own folders, where a dynamic import pattern can pick it up.
    if (!input.includes('node_modules/'))
      folders[dirname(input)] ??= seconds(statSync(join(root, dirname(input))).mtimeMs);
  }
  return { entry, ...(scripts ? { scripts } : {}), files, folders };
}

/**
 * The manifest of the bundle in `bundleDir`, or undefined when there is none.
 * @param {string} bundleDir
 * @returns {BundleManifest | undefined}
 */
export function readManifest(bundleDir) {
  try {
    return /** @type {BundleManifest} */ (JSON.parse(readFileSync(join(bundleDir, MANIFEST_FILE), 'utf8')));
  } catch {
    return undefined;
  }
}

// The launcher checks every input on every start (~800 files): one stat each, no exception for a
// missing file, and paths joined by concatenation (path.join normalizes each: measured, about half
// of the check's CPU).
/**
 * @param {string} path
 * @param {number | undefined} size
 * @param {number} mtime
 */
const unchanged = (path, size, mtime) => {
  const stats = statSync(path, { throwIfNoEntry: false });
  return (
    stats !== undefined && (size === undefined || stats.size === size) && seconds(stats.mtimeMs) === mtime
  );
};

/**
 * The absolute path of the entry (and the hash of the chunks' script forms, where it has them) of the
 * bundle in `bundleDir` when every file and folder it was built from is as it was then; undefined
 * when it is missing, incomplete or stale.
 * @param {string} root
 * @param {string} bundleDir
 * @returns {{ entry: string, scripts: string | undefined } | undefined}
 */
export function freshBundle(root, bundleDir) {
  const manifest = readManifest(bundleDir);
  if (!manifest) return undefined;
  // Manifest paths are relative and normalized (describeInputs): `root/` + path is their join.
  const base = root.endsWith(sep) ? root : root + sep;
  for (const file in manifest.files) {
    const [size, mtime] = /** @type {[number, number]} */ (manifest.files[file]);
    if (!unchanged(base + file, size, mtime)) return undefined;
  }
  for (const folder in manifest.folders)
    if (!unchanged(base + folder, undefined, /** @type {number} */ (manifest.folders[folder])))
      return undefined;
  return {
    entry: join(bundleDir, manifest.entry),
    scripts: manifest.scripts,
  };
}

/**
 * The absolute path of the entry of the bundle in `bundleDir` when it is fresh (freshBundle).
 * @param {string} root
 * @param {string} bundleDir
 * @returns {string | undefined}
 */
export const freshBundleEntry = (root, bundleDir) => freshBundle(root, bundleDir)?.entry;
