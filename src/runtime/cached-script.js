// @ts-check
// Runs the bundle's chunks in their script form (scripts/build-bundle.ts: each ES chunk again as
// one CommonJS function, `<chunk>.cjs`) as `vm.Script`s, each with a V8 code cache made after the
// start (issue 42, later start). Node's own compile cache (module.enableCompileCache) is saved as
// each module compiles, so it holds only what V8 compiled eagerly; the ~3,000 functions a start
// compiles lazily were compiled again at every start. A script's `createCachedData()` called once
// the service serves holds them too. ES modules have no such call without
// --experimental-vm-modules, hence the script form. One script per chunk, loaded when a chunk is
// first required or imported, as the modules are: the runtime's chunks (and their caches) are
// still read while the embedded server boots, not before serve has started it.
//
// Each cache lies beside its chunk (whoever may write the bundle writes it; the build replaces the
// folder). It is read only when its header names the chunk, the bundle's hash, this Node and V8's
// flag hash and the CRC-32 of the code it holds (V8's release builds check a cache's versions, not
// its bytes: a damaged one must not reach them), and V8 checks it again; a cache refused either
// way is ignored and written anew after the start. Written at most once per process, owner-only,
// through a temporary file and a rename, so a reader sees a whole cache or none.
// JavaScript, its types in JSDoc, as runtime/bundle-manifest.js is: the launcher loads it.
import { Buffer } from 'node:buffer';
import {
  accessSync,
  closeSync,
  constants,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { crc32 } from 'node:zlib';

/** A chunk's cache file: its script's path plus this. */
export const CACHE_SUFFIX = '.cache';

/**
 * The code cache saved in `cacheFile`, when its header is `key` and the code's CRC-32;
 * undefined otherwise (none, a stale one, damaged bytes).
 * @param {string} cacheFile
 * @param {string} key
 * @returns {Buffer | undefined}
 */
function readCache(cacheFile, key) {
  try {
    const bytes = readFileSync(cacheFile);
    const headerLength = bytes.readUInt32LE(0);
    if (headerLength > 1024 || bytes.length <= 4 + headerLength) return undefined;
    const data = bytes.subarray(4 + headerLength);
    if (bytes.toString('utf8', 4, 4 + headerLength) !== `${key} ${crc32(data)}`) return undefined;
    return data;
  } catch {
    return undefined;
  }
}

/**
 * Writes `data` under `key` to `cacheFile` whole or not at all: a failure (a full disk) leaves the
 * next start as it was, without this cache.
 * @param {string} cacheFile
 * @param {string} key
 * @param {Buffer} data
 */
function writeCache(cacheFile, key, data) {
  const header = Buffer.from(`${key} ${crc32(data)}`, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      for (const part of [length, header, data]) writeSync(fd, part);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, cacheFile);
  } catch {
    rmSync(temporary, { force: true });
  }
}

/** @param {string} folder */
const writable = (folder) => {
  try {
    accessSync(folder, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * @typedef {object} ScriptChunks
 * @property {(name: string) => Record<string, any>} load The exports of the chunk `name` (`main.js`), run once.
 * @property {() => void} saveCaches Writes the cache of every chunk run without a usable one and not written yet (after the start; at exit).
 */

/**
 * A loader of the script chunks of the bundle in `folder` (`bundleHash`: the manifest's hash of
 * them). Undefined when the entry has no usable cache and none could be written (a bundle folder
 * the service may not write, as in the image): without caches the scripts compile all of
 * themselves at every start, where the ES modules have Node's compile cache.
 * @param {string} folder
 * @param {string} bundleHash
 * @param {string} entry
 * @returns {ScriptChunks | undefined}
 */
export function scriptChunks(folder, bundleHash, entry) {
  const version = `${bundleHash} ${process.version} ${process.arch} ${v8.cachedDataVersionTag()}`;
  /** @type {Map<string, { module: { exports: Record<string, any> }, script: vm.Script, key: string, used: boolean }>} */
  const loaded = new Map();
  const scriptOf = (/** @type {string} */ name) => join(folder, name.replace(/\.js$/, '.cjs'));
  if (!readCache(scriptOf(entry) + CACHE_SUFFIX, `${entry} ${version}`) && !writable(folder))
    return undefined;

  /** @param {string} name a chunk's file name, as its ES module was named */
  const load = (name) => {
    const known = loaded.get(name);
    if (known) return known.module.exports;
    const file = scriptOf(name);
    const key = `${name} ${version}`;
    const cachedData = readCache(file + CACHE_SUFFIX, key);
    // latin1: the chunks are ASCII (the build checks), and a one-byte string is what V8 keeps.
    const script = new vm.Script(readFileSync(file, 'latin1'), {
      filename: file,
      cachedData,
      // Its `import()`s left to Node (packages outside the bundle) go to Node's loader.
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    const module = { exports: {} };
    loaded.set(name, {
      module,
      script,
      key,
      used: cachedData !== undefined && script.cachedDataRejected === false,
    });
    const nodeRequire = createRequire(file);
    // A chunk requires another as `./chunk-….js` (its ES import, made CommonJS by the build).
    const require = Object.assign(
      (/** @type {string} */ specifier) =>
        specifier.startsWith('./') && !specifier.includes('/', 2)
          ? load(specifier.slice(2))
          : nodeRequire(specifier),
      { resolve: nodeRequire.resolve },
    );
    script.runInThisContext()(module.exports, require, module, file);
    return module.exports;
  };
  return {
    load,
    // Each chunk's cache is written once: the first call (after the start) writes those the start
    // ran, a later one (at exit) those loaded since, on first use (a page, a report reader).
    saveCaches() {
      for (const [name, chunk] of loaded) {
        if (chunk.used) continue;
        chunk.used = true;
        writeCache(scriptOf(name) + CACHE_SUFFIX, chunk.key, chunk.script.createCachedData());
      }
    },
  };
}
