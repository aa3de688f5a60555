import { getHeapStatistics } from 'node:v8';
import type { Collect } from './gc-handle.ts';
import { type HeapGrowth, heapGrowth } from './heap-growth.ts';

// Why a start collects once, on purpose (issue 42). After each full collection V8 sets the next
// one's trigger at the live heap × a growing factor, at least live + 8 MB, plus the young
// generation's capacity. The factor's cap scales with the old generation's ceiling: 1.3 at
// 256 MB up to 2.0 just under 2 GB, 4.0 from 2 GB on (64-bit Node, no pointer compression). At the
// 384 MB that serve sets (runtime/memory-limits.js) it is 1.36, so the 8 MB step rules: the
// start's ~25 MB of live modules, schemas and routes crossed three such steps, three full
// collections before /ready that each freed 1-2.5 MB (--trace-gc-verbose: limits 13, 22.5,
// 28.8 MB). One collection here, with V8's growing flag raised for its duration only, sets the
// next trigger above what the rest of the start keeps (the ceiling and every later collection are
// as before): one full collection per start instead of three.

/**
 * What the old generation may hold before the collection after the start-up one: a later start
 * holds ~25 MB at /ready (bundle, embedded), and a 5-year read's own cycles reach 60-70 MB. Not a
 * factor: V8 keeps the pages a full collection frees in a pool, so a first cycle allowed to grow
 * far (4x a heap of 36 MB let a read reach 145 MB) kept ~50 MB more resident for good.
 */
export const START_UP_HEAP_BUDGET_BYTES = 48 * 1_048_576;

/** Below this growth (V8's own at 384 MB is 36 %, at least 8 MB) the collection gains nothing. */
const LEAST_WORTHWHILE_PERCENT = 50;

/**
 * The growth that sets the next trigger at the budget, from the heap's size before collecting
 * (what survives is less, so the trigger lands below it); undefined when not worth a collection.
 */
export function startUpGrowingPercent(usedBytes: number): number | undefined {
  const percent = Math.floor((START_UP_HEAP_BUDGET_BYTES / usedBytes - 1) * 100);
  return percent >= LEAST_WORTHWHILE_PERCENT ? percent : undefined;
}

/**
 * One full collection, now, after which the old generation may grow to about the budget before
 * the next. The growing flag is in the hash V8 checks code caches against (as `--expose-gc` is:
 * core/gc-handle.ts), so it is set only while the collection runs (`HeapGrowth.during`:
 * synchronously, nothing is compiled in between) and set back at once; V8 reads it only to size
 * the next trigger at a collection's end, and every later collection sizes its own as before. An
 * operator's own `--heap-growing-percent` is left alone (no collection then). Returns whether it
 * collected.
 */
export function collectStartUpHeap(
  collect: Collect,
  growth: HeapGrowth = heapGrowth,
  usedBytes = getHeapStatistics().used_heap_size,
): boolean {
  const percent = startUpGrowingPercent(usedBytes);
  if (percent === undefined) return false;
  return growth.during(percent, () => collect({ type: 'major', execution: 'sync' }));
}
