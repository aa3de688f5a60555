// The launcher runs the bundle's chunks in their script form, each with a V8 code cache that serve
// writes beside it once it has started (src/runtime/cached-script.js). A cache it cannot use (bytes
// that are no cache, one made for another bundle or Node, one whose code was damaged) must never
// stop a start: it is ignored, the service serves, and a good cache replaces it, owner-only.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { crc32 } from 'node:zlib';
import { readManifest } from '../../src/runtime/bundle-manifest.js';
import { CACHE_SUFFIX } from '../../src/runtime/cached-script.js';
import { childEnvironment, startService } from '../helpers/child-service.ts';
import { until } from '../helpers/until.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** The cache file's header words (chunk, bundle hash, Node, arch, V8's flag hash, CRC-32) and whether its code matches the CRC. */
function readCache(file: string) {
  try {
    const bytes = readFileSync(file);
    const length = bytes.readUInt32LE(0);
    const words = bytes.toString('utf8', 4, 4 + length).split(' ');
    const code = bytes.subarray(4 + length);
    return { bytes, words, intact: code.length > 0 && words.at(-1) === String(crc32(code)) };
  } catch {
    return undefined;
  }
}

test('a stale, foreign or damaged code cache is ignored and replaced, and serve still starts', async () => {
  const bundle = join(ROOT, 'dist', `test-script-cache-${process.pid}`);
  const environment = await childEnvironment();
  try {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-bundle.ts'), `--out=${bundle}`], {
      stdio: ['ignore', 'inherit', 'inherit'],
      timeout: 300_000,
    });
    const scripts = readManifest(bundle)?.scripts;
    assert.ok(scripts, 'the bundle has a script form');
    // The entry's cache: every start runs it.
    const cacheFile = join(bundle, `main.cjs${CACHE_SUFFIX}`);
    const env = { ...environment.env, TRIBUTARY_BUNDLE: bundle };

    /** Starts serve over `planted`, awaits /ready, then a good cache in its place, and stops. */
    const startOver = async (planted: Buffer) => {
      writeFileSync(cacheFile, planted);
      const service = await startService(env);
      try {
        const response = await fetch(`${service.url}/ready`);
        assert.equal(response.status, 200);
        const cache = await until('a good cache in place of the planted one', () => readCache(cacheFile), {
          done: (cache) =>
            cache !== undefined && cache.intact && cache.words[1] === scripts && !cache.bytes.equals(planted),
          show: (cache) => JSON.stringify(cache && { words: cache.words, intact: cache.intact }),
        });
        assert.ok(cache);
        return cache;
      } finally {
        await service.stop();
      }
    };

    // Bytes that are no cache at all.
    const first = await startOver(Buffer.from('not a code cache'));
    assert.deepEqual(first.words.slice(0, 3), ['main.js', scripts, process.version]);
    assert.equal(statSync(cacheFile).mode & 0o777, 0o600);

    // Made for another bundle and another Node, its code otherwise good.
    const header = (words: string[]) => Buffer.from(words.join(' '));
    const code = first.bytes.subarray(4 + first.bytes.readUInt32LE(0));
    const foreignHeader = header(['main.js', '0000000000000000', 'v0.0.0', ...first.words.slice(3)]);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(foreignHeader.length);
    await startOver(Buffer.concat([length, foreignHeader, code]));

    // This script's header, its code damaged (one byte changed in the middle).
    const damaged = Buffer.from(first.bytes);
    const middle = 4 + first.bytes.readUInt32LE(0) + Math.floor(code.length / 2);
    damaged[middle] = damaged[middle]! ^ 0xff;
    await startOver(damaged);

    // A chunk first loaded after the start (the OpenAPI document's, built on its first request)
    // gets its cache when serve exits cleanly; the start's own were written once it had started.
    const caches = () => readdirSync(bundle).filter((file) => file.endsWith(CACHE_SUFFIX));
    rmSync(cacheFile);
    const service = await startService(env);
    let afterStart: string[];
    try {
      await until("the entry's cache written after the start", () => readCache(cacheFile), {
        done: (cache) => cache?.intact === true,
      });
      afterStart = caches();
      const document = await fetch(`${service.url}/openapi.json`);
      assert.equal(document.status, 200);
      await document.arrayBuffer();
    } finally {
      await service.stop();
    }
    const added = caches().filter((file) => !afterStart.includes(file));
    assert.ok(added.length > 0, `no chunk's cache written at exit (caches: ${afterStart.join(', ')})`);
  } finally {
    rmSync(bundle, { recursive: true, force: true });
    await environment.cleanup();
  }
});
