// Streaming an export file (an export.zip or its export.xml) into batches of data elements,
// without ever holding the document: the file is read in chunks (a zip entry is inflated as it
// is read, which is why uploads are spooled to disk first: a zip's directory sits at its end),
// filtered, fed to a SAX parser, and every data element (a child of the root the provider names)
// is handed over in batches, with back-pressure: the next chunk is read only after the batch
// has been stored.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { SaxesParser } from 'saxes';
import yauzl from 'yauzl';
import type { MobileHooks, XmlElement } from '../../provider-kit/mobile/samples.ts';

export type ExportSpec = NonNullable<MobileHooks['exportFile']>;

export type ExportProgress = { bytesRead: number; totalBytes: number; elementsRead: number };

export class ExportFileError extends Error {
  override name = 'ExportFileError';
}

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
  entries: Map<string, yauzl.Entry>;
  read(entry: yauzl.Entry): Promise<Readable>;
  close(): void;
};

/** Opens a zip and lists its entries. */
function openZip(path: string): Promise<OpenZip> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, zip) => {
      if (error || !zip)
        return reject(new ExportFileError(`the zip archive cannot be read: ${error?.message}`));
      const entries = new Map<string, yauzl.Entry>();
      zip.on('error', (zipError: Error) =>
        reject(new ExportFileError(`the zip archive is damaged: ${zipError.message}`)),
      );
      zip.on('entry', (entry: yauzl.Entry) => {
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

async function readWhole(stream: Readable, maxBytes: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      stream.destroy();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Hands referenced archive files to the elements that name them (`content`): a path such as
 * `/workout-routes/route_….gpx` is matched against the entries below the export's folder.
 */
function createReferenceResolver(zip: OpenZip | null, spec: ExportSpec) {
  const references = spec.references;
  const byPath = new Map<string, yauzl.Entry>();
  for (const [name, entry] of zip?.entries ?? []) byPath.set(`/${name.split('/').slice(1).join('/')}`, entry);
  const visit = async (element: XmlElement): Promise<void> => {
    for (const child of element.children) await visit(child);
    if (!zip || !references || element.name !== references.element) return;
    const path = element.attributes[references.attribute];
    const entry = path
      ? (byPath.get(path.startsWith('/') ? path : `/${path}`) ?? zip.entries.get(path))
      : undefined;
    if (!entry || entry.uncompressedSize > references.maxBytes) return;
    const content = await readWhole(await zip.read(entry), references.maxBytes);
    if (content !== null) element.content = content;
  };
  return async (elements: readonly XmlElement[]) => {
    if (!zip || !references) return;
    for (const element of elements) if (element.children.length > 0) await visit(element);
  };
}

// XML 1.0 forbids these; real exports contain them in user-named sources (mobile-sources.md §2.4).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ILLEGAL_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g;
const HAS_ILLEGAL_CONTROL = new RegExp(ILLEGAL_CONTROL.source);
/** Real exports almost never contain one: test first, so the common slice is not copied again. */
const withoutControls = (text: string) =>
  HAS_ILLEGAL_CONTROL.test(text) ? text.replace(ILLEGAL_CONTROL, ' ') : text;
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
    source = createReadStream(path, { highWaterMark: 256 * 1024 });
    const handle = await open(path, 'r');
    totalBytes = (await handle.stat()).size;
    await handle.close();
  }
  await options.onStart(totalBytes);
  const resolveReferences = createReferenceResolver(zip, spec);

  const wanted = new Set(spec.elements);
  const parser = new SaxesParser({ xmlns: false, position: false });
  const stack: XmlElement[] = [];
  let depth = 0;
  let batch: XmlElement[] = [];
  const progress: ExportProgress = { bytesRead: 0, totalBytes, elementsRead: 0 };
  let parseError: Error | null = null;
  parser.on('error', (error) => {
    parseError ??= error;
  });
  parser.on('opentag', (tag) => {
    depth++;
    const capturing = stack.length > 0;
    if (!capturing && !(depth === 2 && wanted.has(tag.name))) return;
    const element: XmlElement = {
      name: tag.name,
      attributes: tag.attributes as Record<string, string>,
      children: [],
    };
    if (capturing) stack.at(-1)!.children.push(element);
    stack.push(element);
  });
  parser.on('closetag', () => {
    depth--;
    if (stack.length === 0) return;
    const element = stack.pop()!;
    if (stack.length > 0) return;
    progress.elementsRead++;
    if (progress.elementsRead > options.skip) batch.push(element);
  });

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
        parser.write(withoutControls(text.slice(from, from + SLICE_CHARS)));
        if (parseError)
          throw new ExportFileError(`the export.xml is not well-formed: ${(parseError as Error).message}`);
        if (batch.length >= options.batchSize) {
          const handing = batch;
          batch = [];
          await resolveReferences(handing);
          await options.onBatch(handing, { ...progress });
        }
      }
    }
    const tail = filterHead(decoder.decode());
    if (tail) parser.write(withoutControls(tail));
    parser.close();
    if (parseError)
      throw new ExportFileError(`the export.xml is not well-formed: ${(parseError as Error).message}`);
    if (depth !== 0) throw new ExportFileError('the export.xml ends before its root element is closed');
    await resolveReferences(batch);
    await options.onBatch(batch, { ...progress });
    return progress;
  } finally {
    source.destroy();
    close();
  }
}
