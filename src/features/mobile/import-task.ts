// The isolated side of an export import (run by core/isolation.ts in a child process): the export
// is read (zip, XML, referenced files) and its elements turned into samples here, and each batch
// crosses to the parent, which stores it with its checkpoint and answers. The next batch is read
// and normalized while the parent stores the last one (issue 28: the reader used to wait idle on
// every store), but it is handed over only after that answer: one batch in the parent at a time,
// in order, so checkpoints stay in file order. Nothing here touches the store.
//
// The samples cross as the rows they are stored in, COPY text in UTF-8 (sample-rows.ts): one
// buffer copies between processes as memory, where thousands of objects or strings are rebuilt
// one by one, and the parent streams it to the store as it is (issue 44: the parent spent over a
// quarter of its time collecting garbage, and a tenth building literals).
// Only the importing provider's module is loaded (provider-module.ts), not all of them. A batch is
// read a few hundred elements at a time, each part encoded at once (READ_BATCH), so the objects of
// its elements and samples die young.
import type { IsolationChannel } from '../../core/isolation-host.ts';
import { MobileRecordError, type MobileSample } from '../../provider-kit/mobile/samples.ts';
import { type ExportProgress, readExport, type ExportSpec } from './export-stream.ts';
import { loadProvider } from './provider-module.ts';
import { type EncodedSampleRows, EncodedRowsWriter, sampleRows } from './sample-rows.ts';

export type ImportTaskInput = { path: string; provider: string; skip: number; batchSize: number };

export type ImportTaskMessage =
  | { type: 'start'; totalBytes: number }
  | {
      type: 'batch';
      rows: EncodedSampleRows;
      elements: number;
      invalid: number;
      firstProblem?: string;
      progress: ExportProgress;
    };

/**
 * Data elements read and encoded at a time, several such parts making one batch of the parent's
 * (`batchSize`); readExport hands a part over after each slice of text (64 KiB, ~150 elements of
 * an export) once it holds this many. An element and its samples then live while one slice is
 * read, not five thousand elements: they die young, in the scavenger's cheap collections. Held
 * for a whole batch they outlived two scavenges into the old generation, and the reader (its
 * heap capped, so its old generation's limit stays tight) ran a full collection every batch or
 * so: 19–24 of them for a 32 MB export, against 4 now (issue 44; `--trace-gc`, the reader's flags).
 */
const READ_BATCH = 100;

/** What was read since the last hand-over; its rows wait encoded in the writer. */
type Held = {
  ids: Set<string>;
  elements: number;
  invalid: number;
  firstProblem?: string | undefined;
  /** Where the last part read ended: the batch's checkpoint. */
  progress?: ExportProgress;
};
const nothingHeld = (): Held => ({ ids: new Set(), elements: 0, invalid: 0 });

/**
 * Loads the importing provider's module while the upload is still spooling (the child was forked
 * ahead: import-isolated.ts `prepareExportReader`); `run` then finds it loaded.
 */
export async function prepare(provider: unknown): Promise<void> {
  if (typeof provider === 'string') await loadProvider(provider);
}

export async function run(
  input: ImportTaskInput,
  channel: IsolationChannel<ImportTaskMessage, void>,
): Promise<ExportProgress> {
  const spec: ExportSpec | undefined = (await loadProvider(input.provider))?.connector?.mobile?.exportFile;
  if (!spec) throw new Error(`${input.provider} has no export format`);
  // The batch the parent is storing: awaited before the next is handed over, and at the end.
  let storing: Promise<void> | undefined;
  const handOver = async (message: ImportTaskMessage) => {
    await storing;
    storing = channel.send(message);
    // Awaited later; until then a failure of the parent's must not count as unhandled here.
    storing.catch(() => {});
  };
  const writer = new EncodedRowsWriter();
  let held = nothingHeld();
  const handOverHeld = async () => {
    const batch = held;
    held = nothingHeld();
    await handOver({
      type: 'batch',
      rows: writer.take(),
      elements: batch.elements,
      invalid: batch.invalid,
      ...(batch.firstProblem ? { firstProblem: batch.firstProblem } : {}),
      progress: batch.progress!,
    });
  };
  try {
    const progress = await readExport(input.path, spec, {
      skip: input.skip,
      batchSize: READ_BATCH,
      onStart: (totalBytes) => channel.send({ type: 'start', totalBytes }),
      onBatch: async (elements, progress) => {
        const samples: MobileSample[] = [];
        let invalid = 0;
        let firstProblem: string | undefined;
        for (const element of elements) {
          try {
            samples.push(...spec.fromElement(element));
          } catch (error) {
            if (!(error instanceof MobileRecordError) && !(error instanceof RangeError)) throw error;
            invalid++;
            firstProblem ??= `${element.name}: ${error.message}`;
          }
        }
        const rows = sampleRows(samples);
        // An id held already goes in the next batch (one statement may touch a row once): what is
        // held is handed over first, so the later copy still wins, as it does across batches.
        if (held.progress && rows.ids.some((id) => held.ids.has(id))) await handOverHeld();
        for (const id of rows.ids) held.ids.add(id);
        writer.add(rows);
        held.elements += elements.length;
        held.invalid += invalid;
        held.firstProblem ??= firstProblem;
        held.progress = progress;
        if (held.elements >= input.batchSize) await handOverHeld();
      },
    });
    // The last part (readExport always ends with one, if empty, carrying the final progress).
    if (held.progress) await handOverHeld();
    return progress;
  } finally {
    // The result (or the reader's error) reaches the parent only after the last batch was stored.
    await storing;
  }
}
