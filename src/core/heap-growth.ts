import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what a full collection left alive, while held:
 * `--heap-growing-percent=100` (twice the live heap) instead of the factor V8 derives itself.
 *
 * Why (issue 44, `--trace-gc --trace-incremental-marking` of an import under the server's flags,
 * runtime/memory-limits.js): after each full collection V8 set the next marking's limit only
 * ~10 MB above the ~33 MB left alive, and while an export's batches were stored a marking started
 * every batch or two although the heap itself had grown by 1–2 MB: what used the slack was
 * Buffers (each batch's rows arriving from the reader and streamed to PostgreSQL, the upload's
 * 64 KiB chunks being spooled). 18 full collections of the whole heap for a 32 MB export, each
 * freeing about 1 MB: ~1 s of the importing process's ~2.7 s of CPU. Held, the same import ran
 * 3–6 and the process used ~1 s less CPU, its peak memory as before (bench/FINDINGS.md, import
 * ninth pass). Not held for the rebuild that follows: what it allocates is garbage in earnest,
 * and held there the importing process's peak at 1 GB grew by ~10 MB.
 *
 * Only while something holds it, since the server's cap is on purpose elsewhere (long reads
 * collect sooner): the first hold sets the flag, the last release gives V8 its own factor back
 * (0). It takes effect at the next full collection. An operator's own `--heap-growing-percent`
 * is left alone. The flag is part of the hash V8 checks code caches against (as `--expose-gc` is,
 * core/gc-handle.ts): a module first loaded while it is held compiles without its cache;
 * released, the hash is the process's again.
 */
const HELD_PERCENT = 100;

export type HeapGrowth = {
  /** Holds the larger growth until the returned release is called (once; later calls do nothing). */
  hold(): () => void;
  /** Whether anything holds it now. */
  held(): boolean;
  /**
   * Runs `run` (synchronous: nothing is compiled meanwhile) with the growth at `percent`, then
   * sets back what holds it now (the held percent, or V8's own); returns false without running it
   * when the operator set their own growth. For one collection that sizes the next trigger
   * (core/start-up-collection.ts): this module is the flag's one writer.
   */
  during(percent: number, run: () => void): boolean;
};

/** `setFlags`: V8's flag setter (a test's recorder). `execArgv`: where an operator's own flag would be. */
export function createHeapGrowth(
  setFlags: (flags: string) => void = setFlagsFromString,
  execArgv: readonly string[] = process.execArgv,
): HeapGrowth {
  const operatorsOwn = execArgv.some((word) => word.replace(/_/g, '-').startsWith('--heap-growing-percent'));
  let holders = 0;
  return {
    hold() {
      if (holders++ === 0 && !operatorsOwn) setFlags(`--heap-growing-percent=${HELD_PERCENT}`);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (--holders === 0 && !operatorsOwn) setFlags('--heap-growing-percent=0');
      };
    },
    held: () => holders > 0,
    during(percent, run) {
      if (operatorsOwn) return false;
      setFlags(`--heap-growing-percent=${percent}`);
      try {
        run();
      } finally {
        setFlags(`--heap-growing-percent=${holders > 0 ? HELD_PERCENT : 0}`);
      }
      return true;
    },
  };
}

/** The process's. */
export const heapGrowth: HeapGrowth = createHeapGrowth();
