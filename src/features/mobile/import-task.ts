// The isolated side of an export import (run by core/isolation.ts in a child process): the export
// is read (zip, XML, referenced files) and its elements turned into samples here, and each batch
// crosses to the parent, which stores it with its checkpoint and answers; the next batch is read
// only after that answer. Nothing here touches the store.
import type { IsolationChannel } from '../../core/isolation-host.ts';
import { MobileRecordError, type MobileSample } from '../../provider-kit/mobile/samples.ts';
import { providerRegistry } from '../../providers/index.ts';
import { type ExportProgress, readExport } from './export-stream.ts';

export type ImportTaskInput = { path: string; provider: string; skip: number; batchSize: number };

export type ImportTaskMessage =
  | { type: 'start'; totalBytes: number }
  | {
      type: 'batch';
      samples: MobileSample[];
      elements: number;
      invalid: number;
      firstProblem?: string;
      progress: ExportProgress;
    };

export async function run(
  input: ImportTaskInput,
  channel: IsolationChannel<ImportTaskMessage, void>,
): Promise<ExportProgress> {
  const registry = providerRegistry as Readonly<
    Record<string, (typeof providerRegistry)[keyof typeof providerRegistry]>
  >;
  const spec = registry[input.provider]?.connector?.mobile?.exportFile;
  if (!spec) throw new Error(`${input.provider} has no export format`);
  return readExport(input.path, spec, {
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
      await channel.send({
        type: 'batch',
        samples,
        elements: elements.length,
        invalid,
        ...(firstProblem ? { firstProblem } : {}),
        progress,
      });
    },
  });
}
