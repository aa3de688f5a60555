import type { Collect } from '../../core/gc-handle.ts';

// A full collection after every few megabytes a long read streams, in a process that asks for
// them: `serve` (api, all) with its memory sizing on (runtime/cli/serve.ts), or one whose
// operator exposed `gc` (`--expose-gc`). A 5-year read with
// samples is ~120 MB of rows decoded to strings and of socket buffers, garbage as soon as written;
// V8 sizes its next full collection from the heap's size after the last one, so during two such
// reads the garbage piled up to the process's peak (issue 44: 176–183 MB for two at once at load
// 35–43, against 171–172 MB collecting every 16 MB, three alternating pairs). The collection is
// asked for asynchronously: V8 runs it as its own task, concurrently where it can, not inside the
// read's write.

/**
 * Bytes streamed between two collections: a few per second at a read's pace. 8 MB, not 16: two
 * 5-year reads at once peaked 3-9 MB lower (issue 44: 168.8, 164.5 against 172.1, 173.9 MB, two
 * alternating pairs, embedded, load 17-24), for twice as many of these asynchronous collections.
 */
export const COLLECT_EVERY_BYTES = 8 * 1_048_576;

/** Counts what reads stream (all reads of the process together) and asks for a collection every step. */
export function createReadCollection(collect: Collect | undefined, step = COLLECT_EVERY_BYTES) {
  let sinceLast = 0;
  return (bytes: number): void => {
    if (!collect) return;
    sinceLast += bytes;
    if (sinceLast < step) return;
    sinceLast = 0;
    collect({ type: 'major', execution: 'async' });
  };
}

const operatorsGc = (globalThis as { gc?: Collect }).gc;
let processCollection = operatorsGc ? createReadCollection(operatorsGc) : undefined;

/** Makes the process's reads ask `collect` for collections as they stream (serve: core/gc-handle.ts). */
export function collectAsReadsStream(collect: Collect | undefined): void {
  processCollection = createReadCollection(collect);
}

/** What a read of this process streamed: counted toward a collection once the process asks for them. */
export const streamedBytes = (bytes: number): void => processCollection?.(bytes);
