// Hostile files, generated (issue 24): small uploads that make a naive reader spend gigabytes or
// minutes. Lab reports: a PDF page of a million text operations, a 5000-inch page, a flate bomb, a
// 30k × 30k PNG. Apple exports: a zip nesting two million elements, a 400 MB attribute, 32 million
// children of one record. The big ones are written to disk as streams (deflated as they are made,
// never held whole), so the test process's own memory stays small.
import { once } from 'node:events';
import { open } from 'node:fs/promises';
import { createDeflate, createDeflateRaw, crc32, deflateSync } from 'node:zlib';
import { untilDefined } from './until.ts';

// ---- PDF ----

/** A one-page PDF with the given media box and (already encoded) content stream. */
function onePagePdf(options: {
  width: number;
  height: number;
  content: Buffer;
  filter?: string;
  /** An unreferenced stream object of these bytes (size without parsing work). */
  filler?: Buffer;
}): Buffer {
  const objects: (string | null | Buffer)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${options.width} ${options.height}] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>`,
    null,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...(options.filler ? [options.filler] : []),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(length);
    const chunk = Buffer.isBuffer(body)
      ? Buffer.concat([
          Buffer.from(`${index + 1} 0 obj\n<< /Length ${body.length} >>\nstream\n`),
          body,
          Buffer.from('\nendstream\nendobj\n'),
        ])
      : body === null
        ? Buffer.concat([
            Buffer.from(
              `${index + 1} 0 obj\n<< /Length ${options.content.length}${options.filter ? ` /Filter /${options.filter}` : ''} >>\nstream\n`,
            ),
            options.content,
            Buffer.from('\nendstream\nendobj\n'),
          ])
        : Buffer.from(`${index + 1} 0 obj\n${body}\nendobj\n`);
    parts.push(chunk);
    length += chunk.length;
  });
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Size ${objects.length + 1} /Root 1 0 R >>`,
    'startxref',
    String(length),
    '%%EOF',
    '',
  ].join('\n');
  parts.push(Buffer.from(xref));
  return Buffer.concat(parts);
}

/**
 * A one-line report page of `totalBytes` (within a few hundred bytes): an unreferenced binary stream
 * carries the size, so reading it costs no more than reading the line. Not hostile: large.
 */
export function largePdf(totalBytes: number): Buffer {
  const content = Buffer.from('BT /F1 12 Tf 72 720 Td (Hemoglobin 14.2 g/dL 13.0-17.0) Tj ET');
  const filler = Buffer.alloc(Math.max(0, totalBytes - 700));
  for (let index = 0; index < filler.length; index++) filler[index] = (index * 2654435761) >>> 24;
  return onePagePdf({ width: 612, height: 792, content, filler });
}

/** One page whose compressed content stream holds a million text-showing operations (~140 KB). */
export function millionTextOperationsPdf(operations = 1_000_000): Buffer {
  const lines = ['BT /F1 1 Tf'];
  for (let index = 0; index < operations; index++)
    lines.push(`${index % 16} ${index % 125} Td (${(index % 125).toString(36)}) Tj`);
  lines.push('ET');
  return onePagePdf({
    width: 612,
    height: 792,
    content: deflateSync(lines.join('\n')),
    filter: 'FlateDecode',
  });
}

/** A page 5000 inches square (360 000 points) with nothing on it: a reader renders it for OCR. */
export function hugePagePdf(): Buffer {
  return onePagePdf({ width: 360_000, height: 360_000, content: Buffer.from('') });
}

/** A page whose content stream inflates to `megabytes` MB of spaces (about 1 KB compressed per MB). */
export async function flateBombPdf(megabytes = 512): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const block = Buffer.alloc(1024 * 1024, 0x20);
  for (let index = 0; index < megabytes; index++) if (!deflate.write(block)) await once(deflate, 'drain');
  deflate.end();
  await once(deflate, 'end');
  return onePagePdf({ width: 612, height: 792, content: Buffer.concat(chunks), filter: 'FlateDecode' });
}

// ---- PNG ----

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(Buffer.from(type, 'latin1'))), 0);
  return Buffer.concat([head, data, crc]);
}

/** A valid blank 1-bit greyscale PNG of `side` × `side` pixels (30 000: ~110 KB of file, 900 MP). */
export async function hugePng(side = 30_000): Promise<Buffer> {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // greyscale
  const rowBytes = 1 + Math.ceil(side / 8);
  const rowsPerWrite = 1000;
  const block = Buffer.alloc(rowBytes * rowsPerWrite); // filter byte 0, white… all zero: black, fine
  const deflate = createDeflate({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  for (let rows = 0; rows < side; rows += rowsPerWrite) {
    const slice = block.subarray(0, rowBytes * Math.min(rowsPerWrite, side - rows));
    if (!deflate.write(slice)) await once(deflate, 'drain');
  }
  deflate.end();
  await once(deflate, 'end');
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', Buffer.concat(chunks)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

// ---- Apple exports ----

/**
 * Writes a zip with one deflated entry whose content comes from `chunks`, streamed: each chunk is
 * deflated and written as it is made, and the sizes and CRC are patched into the local header at
 * the end. Returns the file's size and the entry's uncompressed size.
 */
export async function writeStreamedZip(
  path: string,
  name: string,
  chunks: Iterable<Buffer | string>,
): Promise<{ bytes: number; uncompressed: number }> {
  const file = await open(path, 'w');
  try {
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(nameBytes.length, 26);
    await file.write(Buffer.concat([local, nameBytes]));
    let written = local.length + nameBytes.length;
    let compressed = 0;
    let uncompressed = 0;
    let crc = 0;
    const deflate = createDeflateRaw({ level: 9 });
    const pending: Buffer[] = [];
    deflate.on('data', (chunk: Buffer) => pending.push(chunk));
    const flush = async () => {
      const out = Buffer.concat(pending.splice(0));
      if (out.length === 0) return;
      await file.write(out);
      compressed += out.length;
      written += out.length;
    };
    for (const chunk of chunks) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      uncompressed += bytes.length;
      crc = crc32(bytes, crc);
      if (!deflate.write(bytes)) await once(deflate, 'drain');
      await flush();
    }
    deflate.end();
    await once(deflate, 'end');
    await flush();
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed, 20);
    central.writeUInt32LE(uncompressed, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(0, 42);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(1, 8);
    end.writeUInt16LE(1, 10);
    end.writeUInt32LE(central.length + nameBytes.length, 12);
    end.writeUInt32LE(written, 16);
    await file.write(Buffer.concat([central, nameBytes, end]));
    const sizes = Buffer.alloc(12);
    sizes.writeUInt32LE(crc, 0);
    sizes.writeUInt32LE(compressed, 4);
    sizes.writeUInt32LE(uncompressed, 8);
    await file.write(sizes, 0, 12, 14);
    return { bytes: written + central.length + nameBytes.length + end.length, uncompressed };
  } finally {
    await file.close();
  }
}

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n';
const RECORD =
  '<Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" creationDate="2024-01-01 10:00:00 +0000" startDate="2024-01-01 09:00:00 +0000" endDate="2024-01-01 09:10:00 +0000" value="10"';

/** `count` copies of `unit`, in chunks of about 1 MB. */
function* repeated(unit: string, count: number): Generator<string> {
  const perChunk = Math.max(1, Math.floor((1024 * 1024) / unit.length));
  const chunk = unit.repeat(perChunk);
  let left = count;
  for (; left >= perChunk; left -= perChunk) yield chunk;
  if (left > 0) yield unit.repeat(left);
}

/** A record nesting `depth` elements inside one another (two million: ~15 KB zipped). */
export function* deepNesting(depth = 2_000_000): Generator<string> {
  yield `${HEAD}${RECORD}>`;
  yield* repeated('<a>', depth);
  yield* repeated('</a>', depth);
  yield '</Record>\n</HealthData>\n';
}

/** A record with one attribute `megabytes` MB long. */
export function* hugeAttribute(megabytes = 400): Generator<string> {
  yield `${HEAD}${RECORD} note="`;
  yield* repeated('a'.repeat(1024), megabytes * 1024);
  yield '"/>\n</HealthData>\n';
}

/** One record with `count` empty children (32 million: 128 MB of XML). */
export function* manyChildren(count = 32_000_000): Generator<string> {
  yield `${HEAD}${RECORD}>`;
  yield* repeated('<M/>', count);
  yield '</Record>\n</HealthData>\n';
}

// ---- watching a hostile job ----

/**
 * Until `poll` says the job is over: asks the API's `/health` over its socket before every poll,
 * each answer awaited at most 2 s (a bound on waiting: a process frozen or dead by the file fails
 * it). Also samples this (API) process's resident set. Returns the final state and what was seen.
 */
export async function watchJob<T>(
  baseUrl: string,
  poll: () => Promise<T | undefined>,
  timeoutMs = 240_000,
): Promise<{ result: T; healthChecks: number; peakRssBytes: number }> {
  let healthChecks = 0;
  let peakRssBytes = process.memoryUsage.rss();
  const result = await untilDefined(
    'the job to end (the API answering /health all along)',
    async () => {
      const health = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2000) });
      if (health.status !== 200) throw new Error(`/health answered ${health.status}`);
      await health.arrayBuffer();
      healthChecks++;
      peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss());
      return poll();
    },
    { timeoutMs, intervalMs: 250 },
  );
  return { result, healthChecks, peakRssBytes };
}
