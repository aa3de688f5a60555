// Items of a provider's answers sorted into pieces (a day, say) on disk, then read back one piece
// at a time. A connector whose provider sends a long history in a few answers, each one kind of
// summary that must be joined with the others of the same day (Garmin: a day's summary, its
// epochs, stress and pulse ox come in separate lists), can then normalize day by day: memory holds
// one piece, never the history. The files live in a private temporary folder removed by `close`;
// a process that died first (killed, out of memory) leaves its folder behind, so the folders of
// processes that are gone are swept at start-up and whenever a spool closes.
import { createReadStream } from 'node:fs';
import { appendFile, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Bytes of pending lines held before they are appended to their pieces' files. */
const PENDING_BYTES = 1024 * 1024;

/** Every spool folder's name starts so, then the owning process id: `tributary-pieces-<pid>-…`. */
const FOLDER_PREFIX = 'tributary-pieces-';
/** A folder named without a process id (an earlier release) is swept once this old. */
const UNOWNED_AGE_MS = 60 * 60 * 1000;
/** A closing spool sweeps at most this often (a sweep reads the temporary folder's listing). */
const SWEEP_EVERY_MS = 10 * 60 * 1000;
let lastSweep = 0;

export class PieceSpoolError extends Error {
  override name = 'PieceSpoolError';
}

export type PieceSpool = {
  /** Files `item` of `kind` under each of `pieces` (an item some pieces share, e.g. a night's readings). */
  add(pieces: readonly string[], kind: string, item: unknown): Promise<void>;
  /** Items added so far. */
  readonly count: number;
  /** The pieces, in sorted order (everything added is written first). */
  pieces(): Promise<string[]>;
  /** One piece's items by kind, in the order they were added. */
  read(piece: string): Promise<Record<string, unknown[]>>;
  /** Removes the files. */
  close(): Promise<void>;
};

/**
 * A spool in a new private folder. `limits.pieces` bounds the distinct pieces (a file each),
 * `limits.bytes` the bytes written, and `limits.pieceBytes` those of one piece (what `read`
 * holds in memory at once): an answer past any fails with a PieceSpoolError rather than filling
 * the disk or the heap.
 */
export async function openPieceSpool(limits: {
  pieces: number;
  bytes: number;
  pieceBytes: number;
}): Promise<PieceSpool> {
  const folder = await mkdtemp(join(tmpdir(), `${FOLDER_PREFIX}${process.pid}-`));
  // Piece name -> file number; the names never reach the file system.
  const files = new Map<string, number>();
  /** Bytes written to each piece, by file number. */
  const pieceSizes: number[] = [];
  let pending = new Map<number, string[]>();
  let pendingBytes = 0;
  let written = 0;
  let count = 0;
  let closed = false;

  const fileOf = (piece: string) => {
    let index = files.get(piece);
    if (index === undefined) {
      if (files.size >= limits.pieces)
        throw new PieceSpoolError(`more than ${limits.pieces} pieces in one answer`);
      index = files.size;
      files.set(piece, index);
    }
    return join(folder, `${index}.ndjson`);
  };

  async function flush() {
    const batch = pending;
    pending = new Map();
    pendingBytes = 0;
    for (const [index, lines] of batch) await appendFile(join(folder, `${index}.ndjson`), lines.join(''));
  }

  return {
    get count() {
      return count;
    },
    async add(pieces, kind, item) {
      if (closed) throw new PieceSpoolError('the spool is closed');
      const line = `${JSON.stringify([kind, item])}\n`;
      count += 1;
      for (const piece of new Set(pieces)) {
        fileOf(piece);
        const index = files.get(piece)!;
        written += line.length;
        if (written > limits.bytes)
          throw new PieceSpoolError(`more than ${limits.bytes} bytes in one answer`);
        pieceSizes[index] = (pieceSizes[index] ?? 0) + line.length;
        if (pieceSizes[index] > limits.pieceBytes)
          throw new PieceSpoolError(`more than ${limits.pieceBytes} bytes for ${piece}`);
        const lines = pending.get(index) ?? [];
        lines.push(line);
        pending.set(index, lines);
        pendingBytes += line.length;
      }
      if (pendingBytes >= PENDING_BYTES) await flush();
    },
    async pieces() {
      await flush();
      return [...files.keys()].sort();
    },
    async read(piece) {
      await flush();
      const byKind: Record<string, unknown[]> = {};
      if (!files.has(piece)) return byKind;
      // Line by line: the piece's items are held parsed, never its text as well. node:readline is
      // loaded here, on first use: a start of the service loads this module but reads no piece.
      const { createInterface } = await import('node:readline');
      const lines = createInterface({ input: createReadStream(fileOf(piece)), crlfDelay: Infinity });
      for await (const line of lines) {
        if (line === '') continue;
        const [kind, item] = JSON.parse(line) as [string, unknown];
        (byKind[kind] ??= []).push(item);
      }
      return byKind;
    },
    async close() {
      closed = true;
      pending = new Map();
      await rm(folder, { recursive: true, force: true });
      // A job's end is also when another process's leftovers are noticed (a long-running worker
      // restarts rarely); throttled, and never failing the job that closes.
      if (Date.now() - lastSweep >= SWEEP_EVERY_MS) {
        lastSweep = Date.now();
        await sweepAbandonedSpools().catch(() => []);
      }
    },
  };
}

/** Whether process `pid` is running (on this machine's process table: see sweepAbandonedSpools). */
function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the spool folders in `dir` (the temporary folder) whose process is gone, and those of
 * an earlier release (no process id in the name) older than an hour; answers the names removed.
 * A folder's process is looked up in this machine's process table, so processes that share a
 * temporary folder must share their process ids too (one host or one container; not containers
 * with separate process namespaces mounting one /tmp).
 */
export async function sweepAbandonedSpools(dir = tmpdir(), now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir)) {
    if (!name.startsWith(FOLDER_PREFIX)) continue;
    const owner = /^(\d+)-/.exec(name.slice(FOLDER_PREFIX.length));
    const path = join(dir, name);
    if (owner) {
      if (isRunning(Number(owner[1]))) continue;
    } else {
      const info = await stat(path).catch(() => null);
      if (!info || now - info.mtimeMs < UNOWNED_AGE_MS) continue;
    }
    await rm(path, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
