// Streaming a range as one JSON document: the envelope's head, the records page by page
// (keyset queries: no cursor holds a connection between pages), then the tail. Memory stays at one page
// however long the range; backpressure comes from Readable.from pulling the generator.
import { Readable } from 'node:stream';
import type { Db } from '../../store/db.ts';
import type { RecordFilter } from './params.ts';
import { mergedPieces, mergeSamples } from './records.ts';
import { type Keyset, type PageOfText, pageRecords, pageText, type StoredRecord } from './range-reads.ts';
import { streamedBytes } from './read-collection.ts';

/** Summaries are a few KB; with samples a record can reach hundreds of KB, so pages shrink. */
export const PAGE_SIZE = 200;
export const PAGE_SIZE_WITH_SAMPLES = 16;

export type RangeQuery = { userId: string; type: string; filter: RecordFilter; withSamples: boolean };

export const pageLimit = (range: RangeQuery) => (range.withSamples ? PAGE_SIZE_WITH_SAMPLES : PAGE_SIZE);

/** Rows of a range, one keyset page at a time (after `first`, when the caller already read it). */
async function* rowPages(db: Db, range: RangeQuery, first?: StoredRecord[]): AsyncGenerator<StoredRecord[]> {
  const limit = pageLimit(range);
  let after: Keyset | null = null;
  if (first) {
    if (first.length > 0) yield first;
    if (first.length < limit) return;
    const last = first[first.length - 1]!;
    after = { at: last.anchor_at, key: last.identity_key };
  }
  for (;;) {
    const rows: StoredRecord[] = await pageRecords(db, { ...range, after, limit });
    if (rows.length > 0) yield rows;
    if (rows.length < limit) return;
    const last = rows[rows.length - 1]!;
    after = { at: last.anchor_at, key: last.identity_key };
  }
}

/** Every record of a range as JSON text, one page (array) at a time. */
export async function* recordPages(db: Db, range: RangeQuery): AsyncGenerator<string[]> {
  for await (const rows of rowPages(db, range)) {
    yield rows.map((row) => mergeSamples(row.summary, row.samples, row.sample_splices));
  }
}

/** Small pieces are gathered up to about this size before they are handed to the socket. */
const PIECE_BYTES = 64 * 1024;

/**
 * `{<head>,"data":[…],<tail>}`: `head` and `tail` are the envelope members before and after
 * `data`, already serialized (e.g. `"user":{…}` and `"type":"activity"`). Large sample arrays
 * go out as slices of the stored text, never copied into one big string first.
 */
export function streamEnvelope(
  db: Db,
  range: RangeQuery,
  envelope: { head: string; tail: string },
  firstPage?: StoredRecord[],
): Readable {
  async function* body(): AsyncGenerator<string> {
    let pending: string[] = [`{${envelope.head},"data":[`];
    let size = 0;
    let first = true;
    for await (const rows of rowPages(db, range, firstPage)) {
      for (const row of rows) {
        if (!first) pending.push(',');
        first = false;
        streamedBytes(row.summary.length + (row.samples?.length ?? 0));
        for (const piece of mergedPieces(row.summary, row.samples, row.sample_splices)) {
          if (piece.length >= PIECE_BYTES) {
            if (pending.length > 0) yield pending.join('');
            pending = [];
            size = 0;
            yield piece;
            continue;
          }
          pending.push(piece);
          size += piece.length;
          if (size >= PIECE_BYTES) {
            yield pending.join('');
            pending = [];
            size = 0;
          }
        }
      }
    }
    pending.push(`],${envelope.tail}}`);
    yield pending.join('');
  }
  // Strings, not bytes: the response writes a string straight from it (a transient native copy
  // freed once written), where a byte stream would first turn each piece into a Buffer, memory
  // outside the V8 heap that only a collection frees (issue 44: the two-long-reads peak was
  // such garbage). One piece buffered at a time; the socket's own buffer is the rest.
  return Readable.from(body(), { objectMode: true, highWaterMark: 1 });
}

/**
 * A range of summaries (with_samples=false) as the envelope's text, one page per piece, each
 * page joined by the database (`pageText`): the first piece starts with the envelope's head, the
 * last ends with its tail. `first` is the first page, already read by the caller.
 */
function summaryEnvelope(db: Db, range: RangeQuery, tail: string, first: PageOfText): Readable {
  const limit = pageLimit(range);
  async function* body(): AsyncGenerator<string> {
    let page = first;
    for (;;) {
      if (page.pieces.length > 0) yield page.pieces.join('');
      if (page.records < limit || !page.last) return;
      page = await pageText(db, { ...range, after: page.last, limit, lead: '', separator: ',', tail });
    }
  }
  return Readable.from(body(), { objectMode: true, highWaterMark: 1 });
}

/**
 * The envelope of a range: one buffer when the whole range fits in its first page (most reads:
 * a month of summaries), so it goes out in one write with a Content-Length and no stream
 * machinery; otherwise a stream starting from the page already read. Same bytes either way.
 * Summaries come from the database already joined into the answer's text (`pageText`); records
 * with samples are merged here, a row at a time (`answerBytes` says why a buffer).
 */
export async function envelopeBody(
  db: Db,
  range: RangeQuery,
  envelope: { head: string; tail: string },
): Promise<Readable | Buffer> {
  const limit = pageLimit(range);
  const lead = `{${envelope.head},"data":[`;
  const tail = `],${envelope.tail}}`;
  if (!range.withSamples) {
    const page = await pageText(db, { ...range, after: null, limit, lead, separator: '', tail });
    return page.records < limit ? answerBytes(page.pieces) : summaryEnvelope(db, range, tail, page);
  }
  const first = await pageRecords(db, { ...range, after: null, limit });
  if (first.length >= limit) return streamEnvelope(db, range, envelope, first);
  const parts = [lead];
  for (let index = 0; index < first.length; index++) {
    const row = first[index]!;
    if (index > 0) parts.push(',');
    parts.push(mergeSamples(row.summary, row.samples, row.sample_splices));
  }
  parts.push(tail);
  return answerBytes(parts);
}

/**
 * A whole answer's pieces written as UTF-8 into one buffer, each where it belongs, never joined
 * into a string first. As a string, an answer was copied twice more in the V8 heap before it
 * reached the socket: flattened when its length was measured (the envelope's head and the page
 * are two strings), and again joined to the response's header lines by Node (`_send`), then
 * encoded into a native allocation three times its length. With the service's 2 MB young
 * generation, sixteen 100 KB answers in flight made those copies live across scavenges and
 * promoted (issue 44: GC 22-28 % of a read's busy time). A buffer goes out beside the header
 * lines in one writev, as it is.
 */
export function answerBytes(pieces: readonly string[]): Buffer {
  let length = 0;
  for (const piece of pieces) length += Buffer.byteLength(piece);
  const bytes = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of pieces) at += bytes.write(piece, at);
  return bytes;
}

/**
 * The envelope of a range of summaries whose first page was read without the envelope's head
 * (`rate-limit.ts` `findChargeAndPage`: the head names the connection that statement finds):
 * the head is put before it, and the rest of the range streams on from it as `envelopeBody`
 * would. Same bytes as `envelopeBody`.
 */
export function envelopeFromFirstPage(
  db: Db,
  range: RangeQuery,
  envelope: { head: string; tail: string },
  page: PageOfText,
): Readable | Buffer {
  const lead = `{${envelope.head},"data":[`;
  const pieces = [lead, ...page.pieces];
  if (page.records < pageLimit(range)) return answerBytes(pieces);
  return summaryEnvelope(db, range, `],${envelope.tail}}`, { ...page, pieces });
}
