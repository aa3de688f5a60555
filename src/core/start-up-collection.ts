import { setFlagsFromString } from 'node:v8';
import type { Collect } from './gc-handle.ts';

// Why a start collects once, on purpose (issue 42). After each full collection V8 sets the next
// one's trigger at the live heap × a growing factor, at least live + 8 MB, plus the young
// generation's capacity. The factor's cap scales with the old generation's ceiling: 1.3 at
// 256 MB up to 2.0 just under 2 GB, 4.0 from 2 GB on (64-bit Node, no pointer compression). At the
// 384 MB that serve sets (runtime/memory-limits.js) it is 1.36, so the 8 MB step rules: the
// start's ~25 MB of live modules, schemas and routes crossed three such steps, three full
// collections before /ready that each freed 1-2.5 MB (--trace-gc-verbose: limits 13, 22.5,
// 28.8 MB). One collection here, with V8's growing flag at 4× for its duration only, sets the next
// trigger above what the rest of the start keeps (the ceiling and every later collection are as
// before): one full collection per start instead of three.

/** The growth after the start-up collection: factor 4, what V8 gives a heap of a 2 GB ceiling. */
export const START_UP_HEAP_GROWING_PERCENT = 300;

const GROWING_FLAG = '--heap-growing-percent';

/** Whether the operator set V8's growing factor on node's command line: theirs is left alone. */
const setByOperator = (execArgv: readonly string[]) =>
  execArgv.some((word) => word.replace(/_/g, '-').split('=')[0] === GROWING_FLAG);

/**
 * One full collection, now, after which the old generation may grow 4× before the next. The flag
 * is in the hash V8 checks code caches against (as `--expose-gc` is: core/gc-handle.ts), so it is
 * set only while the collection runs (synchronously: nothing is compiled in between) and set back
 * to its default at once; V8 reads it only to size the next trigger at a collection's end.
 */
export function collectStartUpHeap(collect: Collect, execArgv: readonly string[] = process.execArgv): void {
  if (setByOperator(execArgv)) return;
  setFlagsFromString(`${GROWING_FLAG}=${START_UP_HEAP_GROWING_PERCENT}`);
  try {
    collect({ type: 'major', execution: 'sync' });
  } finally {
    setFlagsFromString(`${GROWING_FLAG}=0`);
  }
}
