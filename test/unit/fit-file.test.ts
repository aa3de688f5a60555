// The FIT file check (src/provider-kit/fit-file.ts) against files written two other ways: by
// Garmin's FIT SDK Encoder (the fakes' activity files) and byte by byte with the SDK's published
// CRC (test/helpers/small-fit.ts, whose files the SDK's own Decoder also accepts); and the
// original-file check core applies before keeping one (features/original-files/keep.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Decoder, Stream } from '@garmin/fitsdk';
import { checkOriginals } from '../../src/features/original-files/keep.ts';
import { fitCrc16, fitFileProblem } from '../../src/provider-kit/fit-file.ts';
import { ORIGINAL_FILE_MAX_BYTES } from '../../src/provider-kit/original-files.ts';
import { buildActivityFit } from '../fakes/fit-files.ts';
import { buildSmallFit, corruptFit } from '../helpers/small-fit.ts';

const START = Date.parse('2026-11-30T07:00:00Z');
const small = buildSmallFit({ startMs: START });

describe('FIT file check', () => {
  test('the hand-written file is one the FIT SDK reads, with its records', () => {
    assert.ok(new Decoder(Stream.fromBuffer(Buffer.from(small))).checkIntegrity());
    const { messages, errors } = new Decoder(Stream.fromBuffer(Buffer.from(small))).read();
    assert.deepEqual(errors, []);
    assert.equal(messages.fileIdMesgs?.[0]?.type, 'activity');
    assert.equal(messages.recordMesgs?.length, 30);
  });

  test('valid: hand-written, SDK-encoded, chained files, and a 12-byte header', () => {
    assert.equal(fitFileProblem(small), null);
    const encoded = buildActivityFit({
      seed: 'check',
      startMs: START,
      durationSeconds: 1800,
      offsetMinutes: 60,
      sport: 'running',
    }).bytes;
    assert.equal(fitFileProblem(encoded), null);
    const chained = new Uint8Array(small.length + encoded.length);
    chained.set(small);
    chained.set(encoded, small.length);
    assert.equal(fitFileProblem(chained), null);
    // A 12-byte header (FIT 1.0: no header CRC): the records' CRC is recomputed over it.
    const short = new Uint8Array(small.length - 2);
    short.set(small.subarray(0, 12));
    short[0] = 12;
    short.set(small.subarray(14, small.length - 2), 12);
    const crc = fitCrc16(short, 0, short.length - 2);
    short[short.length - 2] = crc & 0xff;
    short[short.length - 1] = crc >> 8;
    assert.equal(fitFileProblem(short), null);
  });

  test('refused, each saying why: damaged records, header CRC, cut short, not FIT, empty', () => {
    assert.equal(fitFileProblem(corruptFit(small)), 'FIT file CRC does not match');
    const header = Uint8Array.from(small);
    header[12] = header[12]! ^ 1;
    assert.equal(fitFileProblem(header), 'FIT header CRC does not match');
    assert.match(fitFileProblem(small.subarray(0, small.length - 1)) ?? '', /cut short/);
    assert.match(fitFileProblem(small.subarray(0, 10)) ?? '', /header cut short/);
    assert.match(fitFileProblem(new TextEncoder().encode('<html>not found</html>')) ?? '', /not a FIT file/);
    const unsigned = Uint8Array.from(small);
    unsigned[9] = 0x41;
    assert.match(fitFileProblem(unsigned) ?? '', /signature/);
    assert.equal(fitFileProblem(new Uint8Array(0)), 'empty file');
    // A header naming 4 GB of records in a 16-byte file is cut short, not read past its end.
    const claims = Uint8Array.from(small.subarray(0, 16));
    claims.set([0xf0, 0xff, 0xff, 0xff], 4);
    claims.set([0, 0], 12);
    assert.match(fitFileProblem(claims) ?? '', /cut short/);
  });

  test('arbitrary bytes never throw', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let round = 0; round < 500; round++) {
      const bytes = Uint8Array.from({ length: next() % 64 }, () => next() % 256);
      if (round % 2 === 0 && bytes.length > 0) bytes[0] = 14;
      assert.doesNotThrow(() => fitFileProblem(bytes));
    }
  });
});

describe('original files before they are kept', () => {
  test('valid files are kept, the rest refused with the reason; the later of two for one activity wins', () => {
    const other = buildSmallFit({ startMs: START, seed: 3 });
    const { keep, refused } = checkOriginals([
      { summaryId: 'a', format: 'fit', bytes: small },
      { summaryId: 'b', format: 'fit', bytes: corruptFit(small) },
      { summaryId: 'c', format: 'fit', problem: 'POLAR /v3/exercises/c/fit unreachable' },
      { summaryId: 'd', format: 'fit', bytes: new Uint8Array(ORIGINAL_FILE_MAX_BYTES + 1) },
      { summaryId: 'a', format: 'fit', bytes: other },
    ]);
    assert.deepEqual(
      keep.map((file) => [file.summaryId, file.bytes]),
      [['a', other]],
    );
    assert.deepEqual(refused, [
      { summaryId: 'b', problem: 'FIT file CRC does not match' },
      { summaryId: 'c', problem: 'POLAR /v3/exercises/c/fit unreachable' },
      {
        summaryId: 'd',
        problem: `${ORIGINAL_FILE_MAX_BYTES + 1} bytes, over the 16 MB limit of an original file`,
      },
    ]);
  });
});
