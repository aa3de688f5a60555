// Under the old-generation ceiling serve sets itself (runtime/memory-limits.js: 384 MB), V8 let
// the heap grow only ~8 MB between full collections, and a start ran three of them before /ready,
// each freeing 1-2.5 MB of the start's live data (~10 % of a later start's CPU, issue 42). Serve
// now collects once, early, sized for the rest of the start (core/start-up-collection.ts), and
// that before the service's bundle loads (the launcher's, runtime/start-up-heap.ts: less to mark
// while the main thread waits). Counted in the serving image (after the launcher's re-exec) by
// V8's GC profiler from a preload, up to the first 200 from /ready, in a start from the bundle
// (what `npm start` runs: built here into a folder of its own, as the launcher runs the sources
// whenever the checkout's bundle is stale).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { childEnvironment, startService } from '../helpers/child-service.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

const HOOK = `
  import { subscribe } from 'node:diagnostics_channel';
  import { writeFileSync } from 'node:fs';
  import { registerHooks } from 'node:module';
  import { constants, PerformanceObserver } from 'node:perf_hooks';
  import { GCProfiler } from 'node:v8';
  import vm from 'node:vm';
  if (process.env.TRIBUTARY_MEMORY_TUNED) {
    const profiler = new GCProfiler();
    profiler.start();
    // When each full collection began, and when the bundle's main chunk was first imported.
    const majorsAt = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries())
        if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorsAt.push(entry.startTime);
    }).observe({ entryTypes: ['gc'] });
    let mainAt;
    // The bundle's main chunk as an ES module, or as the script the launcher runs with its code
    // cache (runtime/cached-script.js).
    const Script = vm.Script;
    vm.Script = class extends Script {
      constructor(code, options) {
        if (mainAt === undefined && options?.filename?.endsWith('/main.cjs')) mainAt = performance.now();
        super(code, options);
      }
    };
    registerHooks({
      resolve(specifier, context, next) {
        const result = next(specifier, context);
        if (mainAt === undefined && result.url.endsWith('/main.js')) mainAt = performance.now();
        return result;
      },
    });
    let done = false;
    subscribe('http.server.response.finish', ({ request, response }) => {
      if (done || request.url !== '/ready' || response.statusCode !== 200) return;
      done = true;
      const { statistics } = profiler.stop();
      const kinds = statistics.map((gc) => gc.gcType);
      writeFileSync(process.env.COLLECTIONS_OUT, JSON.stringify({ kinds, majorsAt, mainAt }));
    });
  }
`;

test('serve runs one full collection before it is ready, before its bundle loads', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'tributary-start-collections-'));
  const hook = join(scratch, 'hook.mjs');
  const out = join(scratch, 'collections.json');
  const bundle = join(ROOT, 'dist', `test-collections-${process.pid}`);
  writeFileSync(hook, HOOK);
  const environment = await childEnvironment({
    NODE_OPTIONS: `--import=${hook}`,
    COLLECTIONS_OUT: out,
    TRIBUTARY_BUNDLE: bundle,
  });
  try {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-bundle.ts'), `--out=${bundle}`], {
      stdio: ['ignore', 'inherit', 'inherit'],
      timeout: 300_000,
    });
    const service = await startService(environment.env);
    await service.stop();
    const seen = JSON.parse(readFileSync(out, 'utf8')) as {
      kinds: string[];
      majorsAt: number[];
      mainAt: number;
    };
    const { kinds, majorsAt, mainAt } = seen;
    // The check can fail: the start's young-generation collections were seen.
    assert.ok(kinds.includes('Scavenge'), JSON.stringify(kinds));
    assert.equal(kinds.filter((kind) => kind === 'MarkSweepCompact').length, 1, JSON.stringify(kinds));
    // That one ran before the bundle's main chunk was imported (the launcher's).
    assert.equal(majorsAt.length, 1, JSON.stringify(seen));
    assert.ok(majorsAt[0]! < mainAt, JSON.stringify(seen));
  } finally {
    await environment.cleanup();
    rmSync(scratch, { recursive: true, force: true });
    rmSync(bundle, { recursive: true, force: true });
  }
});
