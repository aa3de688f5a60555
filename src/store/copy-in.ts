// COPY … FROM STDIN through the store's Kysely: rows already in COPY's text format streamed to
// PostgreSQL as they are (issue 44: an import's batches). node-postgres has no COPY of its own;
// pg-copy-streams drives its connection, writing each buffer after a five-byte header, where a
// query parameter is copied into a Bind message that grows by copies to its size. Kysely hands a
// connection only the statement's text and its values, so a connection of the store's pools
// (db.ts) takes a statement `COPY … FROM STDIN` with one Buffer as its value to be this: the text
// sent as the copy's statement, the buffer as its data.
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { CompiledQuery, type Kysely } from 'kysely';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

const COPY_FROM_STDIN = /^COPY\s[\s\S]*\sFROM\s+STDIN$/i;

/**
 * Streams `data` (COPY's text format, UTF-8) into the table `statement` names
 * (`COPY table (columns) FROM STDIN`), on `db`'s connection: in a transaction, the transaction's.
 * Resolves when PostgreSQL has taken every row; a row it refuses rejects with its error.
 */
export async function copyIn<DB>(db: Kysely<DB>, statement: string, data: Buffer): Promise<void> {
  if (!COPY_FROM_STDIN.test(statement)) throw new Error(`copyIn: not a COPY … FROM STDIN: ${statement}`);
  await db.executeQuery(CompiledQuery.raw(statement, [data]));
}

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/** Makes `client` run `COPY … FROM STDIN` with one Buffer value as a copy of that buffer (installed on each new connection). */
export function acceptCopyIn(client: pg.ClientBase): void {
  const query = client.query.bind(client) as Query;
  const copying: Query = (config, values, callback) => {
    if (
      typeof config !== 'string' ||
      callback !== undefined ||
      !Array.isArray(values) ||
      values.length !== 1 ||
      !Buffer.isBuffer(values[0]) ||
      !COPY_FROM_STDIN.test(config)
    )
      return query(config, values, callback);
    return copyBuffer(query, config, values[0] as Buffer);
  };
  (client as unknown as { query: Query }).query = copying;
}

/**
 * Bytes per CopyData message: the backend reads a whole message into its own buffer before it
 * parses it, so a batch sent as one message (megabytes) would be held once more in the
 * database's memory. The pieces are views of `data`, not copies.
 */
const MESSAGE_BYTES = 64 * 1024;

async function copyBuffer(query: Query, statement: string, data: Buffer) {
  const stream = query(copyFrom(statement)) as Writable & { rowCount: number };
  for (let at = 0; at < data.length; at += MESSAGE_BYTES)
    stream.write(data.subarray(at, Math.min(at + MESSAGE_BYTES, data.length)));
  stream.end();
  // 'finish' comes after PostgreSQL's ReadyForQuery; a refusal is the stream's error.
  await finished(stream);
  // What Kysely reads of a result.
  return { command: 'COPY', rowCount: stream.rowCount, rows: [] };
}
