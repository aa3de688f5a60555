// The import reader's batches (features/mobile/import-task.ts): it reads and encodes a few hundred
// elements at a time and hands the parent batches of `batchSize`. What it hands over must be what
// encoding every element at once gives, in order, each batch with the checkpoint of its last
// element; and no batch may hold one id twice (the upsert touches a row once per statement), the
// later copy of a repeated record still winning.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readExport } from '../../src/features/mobile/export-stream.ts';
import { run, type ImportTaskMessage } from '../../src/features/mobile/import-task.ts';
import {
  encodeSampleRows,
  type EncodedSampleRows,
  sampleRows,
} from '../../src/features/mobile/sample-rows.ts';
import type { MobileSample } from '../../src/provider-kit/mobile/samples.ts';
import { appleMobile } from '../../src/providers/apple/mobile.ts';
import { exportChunks } from '../helpers/apple-export.ts';

const dir = mkdtempSync(join(tmpdir(), 'tributary-import-task-'));
after(() => rmSync(dir, { recursive: true, force: true }));

type Batch = Extract<ImportTaskMessage, { type: 'batch' }>;

/** Runs the reader over `path` with a parent that answers at once; returns the batches. */
async function batchesOf(path: string, batchSize: number, skip = 0): Promise<Batch[]> {
  const batches: Batch[] = [];
  await run(
    { path, provider: 'APPLE', skip, batchSize },
    {
      send: async (message) => {
        if (message.type === 'batch') batches.push(message);
      },
    },
  );
  return batches;
}

/** COPY's text format read back (backslash escapes undone). */
const copyValue = (field: string) =>
  field.replace(/\\(.)/g, (_, escaped: string) => ({ t: '\t', n: '\n', r: '\r' })[escaped] ?? escaped);

/** A batch's rows as text, one entry per sample: id, kind, day, start, end and body. */
function rowsOf(rows: EncodedSampleRows): string[][] {
  const text = rows.text.toString('utf8');
  const lines = rows.count === 0 ? [] : text.slice(0, -1).split('\n');
  assert.equal(lines.length, rows.count);
  assert.ok(rows.count === 0 || text.endsWith('\n'));
  return lines.map((line, index) => {
    const fields = line.split('\t').map(copyValue);
    assert.equal(fields.length, 6);
    assert.equal(rows.days[index], fields[2]);
    const body = rows.text.toString('utf8', rows.bodyStarts[index], rows.bodyEnds[index]);
    assert.equal(copyValue(body), fields[5]);
    assert.equal(rows.bodyLengths[index], fields[5]!.length);
    return fields;
  });
}

test('batches hold what encoding every element at once gives, in order, with exact checkpoints', async () => {
  const path = join(dir, 'export.xml');
  writeFileSync(path, [...exportChunks({ days: 12, heartRatePerDay: 300 })].join(''));
  const spec = appleMobile.exportFile!;
  const samples: MobileSample[] = [];
  const progress = await readExport(path, spec, {
    skip: 0,
    batchSize: 1_000_000,
    onStart: async () => {},
    onBatch: async (elements) => {
      for (const element of elements) samples.push(...spec.fromElement(element));
    },
  });
  const expected = rowsOf(encodeSampleRows(sampleRows(samples)));
  assert.ok(progress.elementsRead > 1500);

  const batches = await batchesOf(path, 700);
  assert.ok(batches.length >= 3, `${batches.length} batches`);
  assert.deepEqual(
    batches.flatMap((batch) => rowsOf(batch.rows)),
    expected,
  );
  let read = 0;
  for (const [index, batch] of batches.entries()) {
    if (index < batches.length - 1) assert.ok(batch.elements >= 700, `batch ${index}: ${batch.elements}`);
    read += batch.elements;
    assert.equal(batch.progress.elementsRead, read, `batch ${index}'s checkpoint`);
  }
  assert.equal(read, progress.elementsRead);

  // A resumed run hands over only what follows its checkpoint.
  const resumed = await batchesOf(path, 700, batches[0]!.progress.elementsRead);
  assert.deepEqual(
    resumed.flatMap((batch) => rowsOf(batch.rows)),
    expected.slice(batches[0]!.rows.count),
  );
});

test('a record repeated within one batch splits it: no batch holds an id twice, the later copy comes last', async () => {
  const at = (minute: number) =>
    `2026-03-0${1 + Math.floor(minute / 1440)} ${String(Math.floor((minute % 1440) / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}:00 +0100`;
  // The device is not part of a record's identity, but its model is in the sample's body.
  const record = (minute: number, model: string) =>
    ` <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" device="&lt;&lt;HKDevice: 0x1&gt;, name:Apple Watch, model:${model}&gt;" unit="count/min" startDate="${at(minute)}" endDate="${at(minute)}" value="70"/>\n`;
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_GB">\n'];
  for (let minute = 0; minute < 2000; minute++) lines.push(record(minute, 'First'));
  // The first record again, from another device: the same id.
  lines.push(record(0, 'Second'));
  for (let minute = 2000; minute < 2200; minute++) lines.push(record(minute, 'First'));
  lines.push('</HealthData>\n');
  const path = join(dir, 'repeated.xml');
  writeFileSync(path, lines.join(''));

  const batches = await batchesOf(path, 5000);
  assert.ok(batches.length >= 2, 'the batch is split before the repeated record');
  for (const batch of batches) {
    const ids = rowsOf(batch.rows).map((row) => row[0]);
    assert.equal(new Set(ids).size, ids.length, 'a batch holds each id once');
  }
  const rows = batches.flatMap((batch) => rowsOf(batch.rows));
  assert.equal(rows.length, 2201);
  const copies = rows.filter((row) => row[0] === rows[0]![0]);
  assert.equal(copies.length, 2);
  assert.equal((JSON.parse(copies[0]![5]!) as MobileSample).source.model, 'First');
  assert.equal((JSON.parse(copies[1]![5]!) as MobileSample).source.model, 'Second');
  assert.equal(batches.at(-1)!.progress.elementsRead, 2201);
});
