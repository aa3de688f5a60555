// Streaming an export file (an export.zip or its export.xml) into batches of data elements,
// without ever holding the document: the file is read in chunks (a zip entry is inflated as it
// is read, which is why uploads are spooled to disk first: a zip's directory sits at its end),
// filtered, fed to the export scanner (export-scanner.ts), and every data element (a child of the root the provider names)
// is handed over in batches, with back-pressure: the next chunk is read only after the batch
// has been stored. The file is untrusted: every structure the reader builds is bounded
// (EXPORT_LIMITS), and passing a bound fails the import with a reason naming it.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Entry } from 'yauzl';
import type { MobileHooks, XmlElement } from '../../provider-kit/mobile/samples.ts';
import { XmlLimitError } from '../../provider-kit/mobile/xml-guard.ts';
import { createExportScanner, XmlBoundError, XmlSyntaxError } from './export-scanner.ts';

export type ExportSpec = NonNullable<MobileHooks['exportFile']>;

export type ExportProgress = { bytesRead: number; totalBytes: number; elementsRead: number };

export class ExportFileError extends Error {
  override name = 'ExportFileError';
}

/**
 * Bounds on what an export may make the reader build (issue 24: a 15 KB zip nesting two million
 * elements, one 400 MB attribute, 32 million children of one record each ran the heap out).
 * Real exports sit far below each: HealthData > Workout > WorkoutRoute > Location is 4 deep; a
 * record's tag is under 1 KB; a workout's inline route is its largest element (1 point a second).
 */
export const EXPORT_LIMITS = {
  /** Nesting of the document. */
  maxDepth: 32,
  /** Characters of one tag, its attributes included: bounds every attribute's length. */
  maxTagChars: 64 * 1024,
  /** Characters of text between tags (an export has only indentation there). */
  maxTextChars: 1024 * 1024,
  /** Direct children of one element inside a data element (a route's Locations: 48 h at 1 Hz). */
  maxChildren: 172_800,
  /** Elements of one data element, itself and every descendant. */
  maxElementsPerRecord: 200_000,
  /** Elements of the whole document: an 8 GiB export holds ~50 million. */
  maxElements: 200_000_000,
  /** Entries of a zip archive (export.xml, a GPX per workout route, ECG files). */
  maxZipEntries: 200_000,
  /**
   * Elements made from referenced files (route points, ~350 bytes each) after which a batch is
   * handed over before the next route is read: a batch holds this plus one route at most.
   */
  maxReferencedPerBatch: 100_000,
} as const;

/** The failure of an export past one of its limits, naming the limit. */
const exceeded = (what: string) => new ExportFileError(`the export exceeds a limit: ${what}`);

const ZIP_MAGIC = 0x04034b50;

async function isZip(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(4);
    const { bytesRead } = await handle.read(buffer, 0, 4, 0);
    return bytesRead === 4 && buffer.readUInt32LE(0) === ZIP_MAGIC;
  } finally {
    await handle.close();
  }
}

type OpenZip = {
  /** Every entry by name (the central directory only: nothing is inflated). */
  entries: Map<string, Entry>;
  read(entry: Entry): Promise<Readable>;
  close(): void;
};

/** Opens a zip and lists its entries. */
async function openZip(path: string): Promise<OpenZip> {
  // The zip reader is loaded by the first export read, not by a start of the service (issue 42).
  const { default: yauzl } = await import('yauzl');
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, zip) => {
      if (error || !zip)
        return reject(new ExportFileError(`the zip archive cannot be read: ${error?.message}`));
      const entries = new Map<string, Entry>();
      let listed = 0;
      zip.on('error', (zipError: Error) =>
        reject(new ExportFileError(`the zip archive is damaged: ${zipError.message}`)),
      );
      zip.on('entry', (entry: Entry) => {
        if (++listed > EXPORT_LIMITS.maxZipEntries) {
          zip.close();
          return reject(exceeded(`the zip archive has more than ${EXPORT_LIMITS.maxZipEntries} entries`));
        }
        if (!entry.fileName.includes('__MACOSX')) entries.set(entry.fileName, entry);
        zip.readEntry();
      });
      zip.on('end', () =>
        resolve({
          entries,
          close: () => zip.close(),
          read: (entry) =>
            new Promise((done, fail) =>
              zip.openReadStream(entry, (streamError, stream) =>
                streamError || !stream
                  ? fail(
                      new ExportFileError(
                        `the entry ${entry.fileName} cannot be read: ${streamError?.message}`,
                      ),
                    )
                  : done(stream),
              ),
            ),
        }),
      );
      zip.readEntry();
    });
  });
}

/**
 * Hands referenced archive files to the elements that name them: a path such as
 * `/workout-routes/route_….gpx` is matched against the entries below the export's folder, the file
 * is streamed to the provider's reader, and what it reads becomes the element's children. A file
 * named more often than the provider allows fails the import; so does its reader's limit.
 * Returns how many elements the references added.
 */
function createReferenceResolver(zip: OpenZip | null, spec: ExportSpec) {
  const references = spec.references;
  const byPath = new Map<string, Entry>();
  for (const [name, entry] of zip?.entries ?? []) byPath.set(`/${name.split('/').slice(1).join('/')}`, entry);
  const uses = new Map<string, number>();
  const visit = async (element: XmlElement): Promise<number> => {
    let added = 0;
    for (const child of element.children) added += await visit(child);
    if (!zip || !references || element.name !== references.element) return added;
    const path = element.attributes[references.attribute];
    const entry = path
      ? (byPath.get(path.startsWith('/') ? path : `/${path}`) ?? zip.entries.get(path))
      : undefined;
    if (!entry || entry.uncompressedSize > references.maxBytes) return added;
    const count = (uses.get(entry.fileName) ?? 0) + 1;
    uses.set(entry.fileName, count);
    if (count > references.maxReferences)
      throw exceeded(`${entry.fileName} is referenced more than ${references.maxReferences} times`);
    try {
      const read = await references.read(await zip.read(entry));
      // One by one: a route of 100 000 points spread as arguments overflows the call stack.
      for (const child of read) element.children.push(child);
      return added + read.length;
    } catch (error) {
      if (error instanceof XmlLimitError) throw exceeded(`in ${entry.fileName}: ${error.message}`);
      throw error;
    }
  };
  return async (element: XmlElement): Promise<number> =>
    zip && references && element.children.length > 0 ? visit(element) : 0;
}

const HEAD_LIMIT = 4 * 1024 * 1024;
const SLICE_CHARS = 64 * 1024;

/**
 * Drops the inline DTD (`<!DOCTYPE … ]>`): nothing depends on it, and iOS 16 exports ship a
 * malformed one that breaks parsers. Returns the text to parse, or null while still in the head.
 */
function createHeadFilter() {
  let head = '';
  let done = false;
  return (text: string): string | null => {
    if (done) return text;
    head += text;
    const start = head.indexOf('<!DOCTYPE');
    if (start >= 0) {
      const bracket = head.indexOf('[', start);
      const close = head.indexOf('>', start);
      let end = -1;
      if (close >= 0 && (bracket < 0 || close < bracket)) end = close + 1;
      else if (bracket >= 0) {
        const subsetEnd = head.indexOf(']>', bracket);
        if (subsetEnd >= 0) end = subsetEnd + 2;
      }
      if (end < 0 && head.length < HEAD_LIMIT) return null;
      if (end < 0) throw new ExportFileError('the export.xml DOCTYPE never ends');
      done = true;
      const rest = head.slice(0, start) + head.slice(end);
      head = '';
      return rest;
    }
    // No DOCTYPE yet: keep buffering while it could still come (before the root element).
    if (!/<[A-Za-z]/.test(head.replace(/<\?xml[^>]*\?>/, '')) && head.length < HEAD_LIMIT) return null;
    done = true;
    const rest = head;
    head = '';
    return rest;
  };
}

export type ReadExportOptions = {
  /** Data elements already stored by an earlier run: parsed but not handed over again. */
  skip: number;
  batchSize: number;
  onStart(totalBytes: number): Promise<void>;
  onBatch(elements: XmlElement[], progress: ExportProgress): Promise<void>;
};

/** Reads the export at `path`; resolves with the final progress once every batch was handled. */
export async function readExport(
  path: string,
  spec: ExportSpec,
  options: ReadExportOptions,
): Promise<ExportProgress> {
  let source: Readable;
  let totalBytes: number;
  let close = () => {};
  let zip: OpenZip | null = null;
  if (await isZip(path)) {
    zip = await openZip(path);
    const document = [...zip.entries.values()].find((entry) => spec.entry.test(entry.fileName));
    if (!document) {
      zip.close();
      throw new ExportFileError('the zip archive holds no export.xml');
    }
    source = await zip.read(document);
    totalBytes = document.uncompressedSize;
    close = zip.close;
  } else {
    // Chunks of 64 KiB: a 256 KiB chunk decodes to a string too large for the young generation,
    // allocated in the old one (32 MB of them for a 32 MB export), which set off full collections
    // in the reader (issue 44: 13 instead of 4 for a 32 MB export, `--trace-gc`).
    source = createReadStream(path, { highWaterMark: 64 * 1024 });
    const handle = await open(path, 'r');
    totalBytes = (await handle.stat()).size;
    await handle.close();
  }
  await options.onStart(totalBytes);
  const resolveReferences = createReferenceResolver(zip, spec);

  const progress: ExportProgress = { bytesRead: 0, totalBytes, elementsRead: 0 };
  let batch: XmlElement[] = [];
  const scanner = createExportScanner(new Set(spec.elements), EXPORT_LIMITS, (element) => {
    progress.elementsRead++;
    if (progress.elementsRead > options.skip) batch.push(element);
  });
  const scan = (step: () => void) => {
    try {
      step();
    } catch (error) {
      if (error instanceof XmlBoundError) throw exceeded(error.message);
      if (error instanceof XmlSyntaxError)
        throw new ExportFileError(`the export.xml is not well-formed: ${error.message}`);
      throw error;
    }
  };
  const write = (text: string) => scan(() => scanner.write(text));

  /**
   * Resolves the batch's references and hands it over; a batch whose references added more than
   * maxReferencedPerBatch elements (long routes) is handed over in parts, each with the progress
   * (elements read) of its own last element, so its checkpoint stays exact.
   */
  const handOver = async (elements: XmlElement[], last = false) => {
    let part: XmlElement[] = [];
    let referenced = 0;
    // Taken out of `elements` as they go, so a part handed over is no longer held here.
    for (let element = elements.shift(); element; element = elements.shift()) {
      // Past the budget, what is held goes first: a part holds the budget and one route at most.
      if (referenced >= EXPORT_LIMITS.maxReferencedPerBatch && part.length > 0) {
        const elementsRead = progress.elementsRead - (elements.length + 1);
        await options.onBatch(part, { ...progress, elementsRead });
        part = [];
        referenced = 0;
      }
      referenced += await resolveReferences(element);
      part.push(element);
    }
    if (part.length > 0 || last) await options.onBatch(part, { ...progress });
  };

  const filterHead = createHeadFilter();
  const decoder = new TextDecoder('utf-8');
  try {
    for await (const chunk of source) {
      const bytes = chunk as Buffer;
      progress.bytesRead += bytes.length;
      const text = filterHead(decoder.decode(bytes, { stream: true }));
      if (text === null) continue;
      // Fed in slices so a batch (and its checkpoint) stays near batchSize whatever the chunk size.
      for (let from = 0; from < text.length; from += SLICE_CHARS) {
        write(text.slice(from, from + SLICE_CHARS));
        if (batch.length >= options.batchSize) {
          const handing = batch;
          batch = [];
          await handOver(handing);
        }
      }
    }
    const tail = filterHead(decoder.decode());
    if (tail) write(tail);
    scan(() => scanner.close());
    await handOver(batch, true);
    return progress;
  } finally {
    source.destroy();
    close();
  }
}
