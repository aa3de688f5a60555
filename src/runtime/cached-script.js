// @ts-check
// Runs the bundle's script form (scripts/build-bundle.ts: `main-<hash>.cjs`, one CommonJS
// function) as a `vm.Script` with a V8 code cache made after the start (issue 42, later start).
// Node's own compile cache (module.enableCompileCache) is saved as each module compiles, so it
// holds only what V8 compiled eagerly; the ~3,000 functions a start compiles lazily were compiled
// again at every start. A script's `createCachedData()` called once the service serves holds them
// too. ES modules have no such call without --experimental-vm-modules, hence the script form.
//
// The cache lies beside the script (whoever may write the bundle writes it; the build replaces
// the folder, and a new build a new name). It is read only when its header names this script, this
// Node and V8's flag hash and the CRC-32 of the code it holds (V8's release builds check a cache's
// versions, not its bytes: a damaged one must not reach them), and V8 checks it again; a cache
// refused either way is ignored and written anew after the start. Written at most once per process, owner-only, through a temporary
// file and a rename, so a reader sees a whole cache or none.
// JavaScript, its types in JSDoc, as runtime/bundle-manifest.js is: the launcher loads it.
import { accessSync, closeSync, constants, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { crc32 } from 'node:zlib';

/** The cache's file: the script's path plus this. */
export const CACHE_SUFFIX = '.cache';

/**
 * What a cache must say it was made for: the script (its name holds its content's hash), the Node
 * release and V8's flag hash (a flag such as --expose-gc changes it).
 * @param {string} file
 */
const cacheKey = (file) => `${basename(file)} ${process.version} ${process.arch} ${v8.cachedDataVersionTag()}`;

/**
 * The code cache saved in `cacheFile`, when its header is this key and the code's CRC-32;
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
 * Writes `data` under `key` to `cacheFile` whole or not at all: a failure (a read-only bundle
 * folder, a full disk) leaves the start as it was, without a cache.
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
 * Runs the script `file` (its text is `(function (exports, require, module, __bundleFilename)
 * {…})`) and returns its exports, and `saveCache`, to call once the start is over: it writes the
 * code cache unless the one read was used. Undefined, having run nothing, when there is no cache
 * and none could be written (a bundle folder the service may not write, as in the image): without
 * one the script compiles all of itself at every start, where the bundle's ES modules have Node's
 * compile cache.
 * @param {string} file
 * @returns {{ exports: Record<string, any>, saveCache: () => void } | undefined}
 */
export function runCachedScript(file) {
  const cacheFile = file + CACHE_SUFFIX;
  const key = cacheKey(file);
  const cachedData = readCache(cacheFile, key);
  if (!cachedData && !writable(dirname(file))) return undefined;
  // latin1: the script is ASCII (the build checks), and a one-byte string is what V8 keeps.
  const script = new vm.Script(readFileSync(file, 'latin1'), {
    filename: file,
    cachedData,
    // Its `import()`s (Node's modules, the packages left outside the bundle) go to Node's loader.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const used = cachedData !== undefined && script.cachedDataRejected === false;
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file);
  let saved = used;
  return {
    exports: module.exports,
    saveCache() {
      if (saved) return;
      saved = true;
      writeCache(cacheFile, key, script.createCachedData());
    },
  };
}
