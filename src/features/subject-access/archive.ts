// One user's stored data as one ZIP archive, for a data-subject access request. Every file is
// produced while the archive is read, a page at a time: memory stays flat whatever the user has.
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { dataTypeNames } from '../../model/index.ts';

/** Rows read per store round trip. */
export const ARCHIVE_PAGE = 500;

export type ManifestFile = { name: string; count: number; description: string };
export type ArchiveManifest = {
  user_id: string;
  provider: string;
  generated_at: string;
  files: ManifestFile[];
};

/** A source of NDJSON lines, read one page at a time after a cursor (null: from the start). */
type PagedSource<C> = (after: C | null) => Promise<{ lines: unknown[]; next: C | null }>;

export type ArchiveSources = {
  user: Record<string, unknown>;
  userId: string;
  provider: string;
  generatedAt: Date;
  records: (type: (typeof dataTypeNames)[number]) => PagedSource<unknown>;
  rawPayloads: PagedSource<unknown>;
  events: PagedSource<unknown>;
  /** The lab reports of the user's reference id (none without one), results included. */
  labReports: PagedSource<unknown>;
  /** Their uploaded files, each opened when its turn in the archive comes. */
  labFiles: { name: string; open: () => Promise<Buffer | undefined> }[];
};

/**
 * The archive as a byte stream: `user.json`, `records/<type>.ndjson` for every data type,
 * `raw_payloads.ndjson`, `webhook_events.ndjson`, `lab_reports.ndjson` and each report's file under
 * `lab_report_files/`, then `manifest.json` (each file and its line
 * count; written last, once the counts are known: the entries are read in order).
 */
export function userArchive(sources: ArchiveSources): Readable {
  const zip = new ZipFile();
  const files: ManifestFile[] = [];
  const mtime = sources.generatedAt;
  const addNdjson = (name: string, description: string, source: PagedSource<unknown>) => {
    const entry: ManifestFile = { name, count: 0, description };
    files.push(entry);
    async function* lines() {
      let after: unknown = null;
      do {
        const page = await source(after);
        if (page.lines.length > 0) {
          entry.count += page.lines.length;
          yield Buffer.from(page.lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
        }
        after = page.next;
      } while (after !== null);
    }
    zip.addReadStream(Readable.from(lines(), { objectMode: false }), name, { mtime });
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
    'webhook_events.ndjson',
    'Events about this user sent (or queued) to the developer, with their bodies',
    sources.events,
  );
  addNdjson(
    'lab_reports.ndjson',
    'Lab reports uploaded for the user’s reference_id, with their results',
    sources.labReports,
  );
  for (const file of sources.labFiles) {
    const entry: ManifestFile = { name: file.name, count: 0, description: 'An uploaded lab report file' };
    files.push(entry);
    async function* bytes() {
      const opened = await file.open();
      // Deleted since the archive began: the entry stays, empty, and the manifest says 0.
      if (opened) {
        entry.count = 1;
        yield opened;
      }
    }
    zip.addReadStream(Readable.from(bytes(), { objectMode: false }), file.name, { mtime });
  }
  async function* manifest() {
    const body: ArchiveManifest = {
      user_id: sources.userId,
      provider: sources.provider,
      generated_at: sources.generatedAt.toISOString(),
      files: [...files, { name: 'manifest.json', count: 1, description: 'This list' }],
    };
    yield Buffer.from(`${JSON.stringify(body, null, 2)}\n`);
  }
  zip.addReadStream(Readable.from(manifest(), { objectMode: false }), 'manifest.json', { mtime });
  zip.end();
  const output = zip.outputStream as Readable;
  // A failed page read fails the entry's stream; yazl reports it on the ZipFile: end the response.
  (zip as unknown as NodeJS.EventEmitter).on('error', (error: Error) => output.destroy(error));
  return output;
}
