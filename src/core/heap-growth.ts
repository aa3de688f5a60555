import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what a full collection left alive, while held:
 * `--heap-growing-percent=100` (twice the live heap) instead of the factor V8 derives itself.
 *
 * Why (issue 44, `--trace-gc --trace-incremental-marking` of an import under the server's flags):
 * the server's `--max-old-space-size=384` (runtime/memory-limits.js) caps V8's growing factor near
 * 1.3, so with ~33 MB alive the next marking starts ~10 MB later, and V8 counts the Buffers
 * allocated since the last full collection against that slack. An export streaming through (the
 * upload's 64 KiB chunks spooled, each batch's rows arriving from the reader and going to
 * PostgreSQL, the rebuild's days) allocates that much every batch or two: 18 full collections of
 * the whole 33 MB heap for a 32 MB export, each freeing about 1 MB, ~1 s of the importing
 * process's ~2.7 s of CPU. Held, the same import ran 6, the process's CPU about 0.8 s less, and
 * its peak memory did not grow (bench/FINDINGS.md, import ninth pass).
 *
 * Only while something holds it, since the cap is on purpose elsewhere (long reads collect
 * sooner): the first hold sets the flag, the last release sets V8's own factor back (0). It
 * takes effect at the next full collection. An operator's own `--heap-growing-percent` is left
 * alone. The flag is part of the hash V8 checks code caches against (as `--expose-gc` is,
 * core/gc-handle.ts): a module first loaded while it is held compiles without its cache (the
 * rebuild's few lazy imports, ~20 ms in a profile); released, the hash is the process's again.
 */
const HELD_PERCENT = 100;

export type HeapGrowth = {
  /** Holds the larger growth until the returned release is called (once; later calls do nothing). */
  hold(): () => void;
  /** Whether anything holds it now. */
  held(): boolean;
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
  };
}

/** The process's. */
export const heapGrowth: HeapGrowth = createHeapGrowth();
