// One user's stored data as one ZIP archive, for a data-subject access request. Every file is
// produced while the archive is read, a page at a time and only as the reader takes it: each
// entry's stream is made when the archive reaches it, pulls its next page only when the bytes
// before it have gone out (backpressure through the ZIP's pipes to the socket), and pages are
// sized by the bytes of the rows seen so far, so a page of large records stays about PAGE_BYTES.
// Memory stays flat whatever the user has. A page that fails (the store gone, a row that cannot
// be read) ends the archive's stream with that error: the response is cut, never the process.
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import type * as Yazl from 'yazl';
import { dataTypeNames } from '../../model/index.ts';

/** Rows read per store round trip at most. */
export const ARCHIVE_PAGE = 500;
/** Rows of the first page of each file, before any row's size is known. */
export const FIRST_PAGE = 20;
/** The bytes one page of lines aims at: later pages hold as many rows of the largest size seen. */
export const PAGE_BYTES = 1024 * 1024;

export type ManifestFile = { name: string; count: number; description: string; media_type?: string };

/** A file kept byte for byte (an uploaded lab report, a provider's original), opened when its turn comes. */
export type StoredFile = {
  name: string;
  description: string;
  media_type?: string;
  /** Undefined when it is gone since the archive began. */
  open: () => Promise<Uint8Array | undefined>;
};
export type ArchiveManifest = {
  user_id: string;
  provider: string;
  generated_at: string;
  files: ManifestFile[];
};

/**
 * A source of NDJSON lines, read one page of at most `limit` rows at a time after a cursor
 * (null: from the start); `next` is null after the last page.
 */
type PagedSource<C> = (after: C | null, limit: number) => Promise<{ lines: unknown[]; next: C | null }>;

/** The rows of the next page: as many of the largest line seen as fit PAGE_BYTES, 1 to ARCHIVE_PAGE. */
export const nextPageRows = (largestLineBytes: number) =>
  Math.max(1, Math.min(ARCHIVE_PAGE, Math.floor(PAGE_BYTES / Math.max(1, largestLineBytes))));

export type ArchiveSources = {
  user: Record<string, unknown>;
  userId: string;
  provider: string;
  generatedAt: Date;
  records: (type: (typeof dataTypeNames)[number]) => PagedSource<unknown>;
  rawPayloads: PagedSource<unknown>;
  /** The provider's summaries kept of the user's days between notifications (day companions). */
  dayCompanions: PagedSource<unknown>;
  events: PagedSource<unknown>;
  /** The lab reports of the user's reference id (none without one), results included. */
  labReports: PagedSource<unknown>;
  /** Their uploaded files, each opened when its turn in the archive comes. */
  labFiles: StoredFile[];
  /** The provider's original files of the user's activities (a FIT recording), likewise. */
  originalFiles: StoredFile[];
};

// The zip writer (and node:zlib, which it loads) is required by the first archive, not by a start
// of the service (issue 42); synchronously, as the archive is returned as a stream at once.
const zipWriter = () => createRequire(import.meta.url)('yazl') as typeof Yazl;

/**
 * The archive as a byte stream: `user.json`, `records/<type>.ndjson` for every data type,
 * `raw_payloads.ndjson`, `day_companions.ndjson`, `webhook_events.ndjson`, `lab_reports.ndjson` and each report's file under
 * `lab_report_files/`, each original file under `original_files/`, then `manifest.json` (each
 * file and its line count; written last, once the counts are known: the entries are read in order).
 * A stored file is read only when the archive reaches it, so one at most is in memory.
 */
export function userArchive(sources: ArchiveSources): Readable {
  const zip = new (zipWriter().ZipFile)();
  const files: ManifestFile[] = [];
  const mtime = sources.generatedAt;
  const output = zip.outputStream as Readable;
  // The entry being written: destroyed when the archive ends early (the reader went away).
  let current: Readable | null = null;

  /** Adds an entry whose stream is made only when the archive reaches it, its failure the archive's. */
  const addLazy = (name: string, produce: () => AsyncGenerator<Buffer>) => {
    zip.addReadStreamLazy(name, { mtime }, (callback) => {
      const stream = Readable.from(produce(), { objectMode: false });
      current = stream;
      stream.once('error', (error) => output.destroy(error));
      callback(null, stream);
    });
  };

  const addNdjson = (name: string, description: string, source: PagedSource<unknown>) => {
    const entry: ManifestFile = { name, count: 0, description };
    files.push(entry);
    addLazy(name, async function* lines() {
      let after: unknown = null;
      let limit = FIRST_PAGE;
      do {
        const page = await source(after, limit);
        let largest = 0;
        for (const line of page.lines) {
          const bytes = Buffer.from(`${JSON.stringify(line)}\n`);
          largest = Math.max(largest, bytes.byteLength);
          entry.count += 1;
          // A line at a time: the stream asks for the next only when the last has gone out.
          yield bytes;
        }
        if (page.lines.length > 0) limit = nextPageRows(largest);
        after = page.next;
      } while (after !== null);
    });
  };

  zip.addBuffer(Buffer.from(`${JSON.stringify(sources.user, null, 2)}\n`), 'user.json', { mtime });
  files.push({ name: 'user.json', count: 1, description: 'The user (connection) as the API shows it' });
  for (const type of dataTypeNames) {
    addNdjson(
      `records/${type}.ndjson`,
      `Stored ${type} records: {"key", "record"} per line, in time order`,
      sources.records(type),
    );
  }
  addNdjson(
    'raw_payloads.ndjson',
    'Provider payloads kept as received (RAW_PAYLOAD_RETENTION_DAYS)',
    sources.rawPayloads,
  );
  addNdjson(
    'day_companions.ndjson',
    'Provider summaries kept per day between notifications, to build each day from all of its kinds',
    sources.dayCompanions,
  );
  addNdjson(
    'webhook_events.ndjson',
    'Events about this user sent (or queued) to the developer, with their bodies',
    sources.events,
  );
  addNdjson(
    'lab_reports.ndjson',
    'Lab reports uploaded for the user’s reference_id, with their results',
    sources.labReports,
  );
  for (const file of [...sources.labFiles, ...sources.originalFiles]) {
    const { open, ...described } = file;
    const entry: ManifestFile = { ...described, count: 0 };
    files.push(entry);
    addLazy(file.name, async function* bytes() {
      const opened = await open();
      // Deleted since the archive began: the entry stays, empty, and the manifest says 0.
      if (opened) {
        entry.count = 1;
        yield Buffer.from(opened.buffer, opened.byteOffset, opened.byteLength);
      }
    });
  }
  addLazy('manifest.json', async function* manifest() {
    const body: ArchiveManifest = {
      user_id: sources.userId,
      provider: sources.provider,
      generated_at: sources.generatedAt.toISOString(),
      files: [...files, { name: 'manifest.json', count: 1, description: 'This list' }],
    };
    yield Buffer.from(`${JSON.stringify(body, null, 2)}\n`);
  });
  zip.end();
  // yazl's own failures (an entry of the wrong size) come on the ZipFile: they end the archive too.
  (zip as unknown as NodeJS.EventEmitter).on('error', (error: Error) => output.destroy(error));
  // Ended early (the reader went away, or a page failed): the entry being read stops reading pages.
  output.once('close', () => {
    if (current && !current.destroyed) current.destroy();
  });
  return output;
}
