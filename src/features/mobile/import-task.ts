// The isolated side of an export import (run by core/isolation.ts in a child process): the export
// is read (zip, XML, referenced files) and its elements turned into samples here, and each batch
// crosses to the parent, which stores it with its checkpoint and answers. The next batch is read
// and normalized while the parent stores the last one (issue 28: the reader used to wait idle on
// every store), but it is handed over only after that answer: one batch in the parent at a time,
// in order, so checkpoints stay in file order. Nothing here touches the store.
//
// The samples cross as the columns they are stored in, each one array literal in UTF-8
// (sample-rows.ts): six buffers copy between processes as memory, where thousands of objects or
// strings are rebuilt one by one, and the parent hands them to the store as they are (issue 44:
// the parent spent over a quarter of its time collecting garbage, and a tenth building literals). Only the importing provider's module is loaded (provider-module.ts), not all of them.
import type { IsolationChannel } from '../../core/isolation-host.ts';
import { MobileRecordError, type MobileSample } from '../../provider-kit/mobile/samples.ts';
import { type ExportProgress, readExport, type ExportSpec } from './export-stream.ts';
import { loadProvider } from './provider-module.ts';
import { type EncodedSampleRows, encodeSampleRows, sampleRows } from './sample-rows.ts';

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
  try {
    return await readExport(input.path, spec, {
      skip: input.skip,
      batchSize: input.batchSize,
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
        await handOver({
          type: 'batch',
          rows: encodeSampleRows(sampleRows(samples)),
          elements: elements.length,
          invalid,
          ...(firstProblem ? { firstProblem } : {}),
          progress,
        });
      },
    });
  } finally {
    // The result (or the reader's error) reaches the parent only after the last batch was stored.
    await storing;
  }
}
