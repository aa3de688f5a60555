import { Writable } from 'node:stream';

/**
 * Where a test sends a service's log (`logTo`, or a logger's destination) to read it back: every
 * JSON line written, parsed, in order. Pino writes whole lines, so each write is split on newlines.
 */
export function logLines<Line = Record<string, unknown>>(): { stream: Writable; lines: Line[] } {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Line);
      done();
    },
  });
  return { stream, lines };
}
