// The lab-report reader scored result by result (issue 26): the shared real reports
// (../shared/reference/lab-reports, read in place; skipped with a message when absent) against
// the targets — recall ≥ 95%, precision ≥ 98%, values ≥ 95%, for text and for image documents —
// and the generated documents of each class of real report the reader used to get wrong, where
// no row may be invented. No database: parseReport is the whole reader.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { stopOcr } from '../../src/features/lab-reports/extraction/ocr.ts';
import { parseReport } from '../../src/features/lab-reports/report.ts';
import { hasPdftoppm, photoClassDocuments, textClassDocuments } from '../helpers/lab-report-classes.ts';
import { generatedPhotos } from '../helpers/lab-report-photos.ts';
import {
  addTally,
  describeMismatch,
  describeTally,
  emptyTally,
  precision,
  recall,
  scoreResults,
  sharedReports,
  type TruthDocument,
  valueAccuracy,
} from '../helpers/lab-report-truth.ts';

after(() => stopOcr());

async function score(document: TruthDocument) {
  const parsed = await parseReport(document.bytes, document.mediaType);
  const scored = scoreResults(document.truth, parsed.results);
  return { parsed, ...scored, detail: scored.mismatches.map(describeMismatch).join('; ') };
}

function assertEveryResultIsKnownAndMarked(parsed: Awaited<ReturnType<typeof parseReport>>) {
  for (const result of parsed.results) {
    assert.ok(result.biomarker.key, `emitted without a dictionary match: ${JSON.stringify(result.source)}`);
    const confidence = result.confidence ?? -1;
    assert.ok(confidence >= 0 && confidence <= 1, 'the reader gives every result a confidence within 0..1');
    assert.equal(typeof result.needs_review, 'boolean');
  }
  // Plain JSON: the reader's answer crosses a process boundary and is stored as it is.
  assert.deepEqual(JSON.parse(JSON.stringify(parsed)), parsed);
}

const shared = sharedReports();
describe('lab reports: the shared real reports', () => {
  const skip = 'missing' in shared ? shared.missing : false;
  for (const kind of ['text-pdf', 'image'] as const) {
    test(`${kind} documents: recall ≥ 95%, precision ≥ 98%, values ≥ 95%`, { skip }, async () => {
      if ('missing' in shared) return;
      const documents = shared.documents.filter((document) => document.truth.kind === kind);
      const total = emptyTally();
      const details: string[] = [];
      for (const document of documents) {
        const { parsed, tally, detail } = await score(document);
        assertEveryResultIsKnownAndMarked(parsed);
        addTally(total, tally);
        details.push(`${describeTally(document.label, tally)} — ${detail}`);
      }
      const message = details.join('\n');
      assert.ok(recall(total) >= 0.95, message);
      assert.ok(precision(total) >= 0.98, message);
      assert.ok(valueAccuracy(total) >= 0.95, message);
      assert.equal(total.unkeyed, 0, message);
    });
  }
});

describe('lab reports: generated documents of each class of real report', () => {
  test('cumulative columns, a previous column, flags before values, overprinted text: all found, none invented', async () => {
    for (const document of await textClassDocuments()) {
      const { parsed, tally, detail } = await score(document);
      assertEveryResultIsKnownAndMarked(parsed);
      const label = `${describeTally(document.label, tally)} — ${detail}`;
      assert.equal(tally.invented, 0, label);
      assert.equal(tally.found, tally.printed, label);
      assert.equal(tally.values, tally.printed, label);
      assert.equal(tally.units, tally.printed, label);
      assert.equal(tally.ranges, tally.printed, label);
      assert.equal(tally.flags, tally.printed, label);
      // Printed in a text layer: nothing to doubt.
      assert.ok(
        parsed.results.every((result) => !result.needs_review),
        label,
      );
    }
  });

  test('a phone photo (perspective, blur, uneven light, JPEG): none invented, wrong values only under review', async () => {
    const [photo] = await generatedPhotos(1);
    const { tally, mismatches, detail } = await score(photo!);
    assert.equal(tally.invented, 0, detail);
    assert.ok(tally.found >= tally.printed * 0.8, `found ${tally.found} of ${tally.printed}: ${detail}`);
    const wrongAndCertain = mismatches.filter(
      (mismatch) => mismatch.problem.startsWith('values') && !mismatch.result?.needs_review,
    );
    assert.ok(wrongAndCertain.length <= 2, detail);
  });

  test('a low-resolution phone photo: nothing invented, most results read', async (t) => {
    if (!(await hasPdftoppm()))
      return t.skip('pdftoppm (poppler-utils) is not installed: the photo cannot be rendered');
    for (const document of await photoClassDocuments()) {
      const { parsed, tally, detail } = await score(document);
      assertEveryResultIsKnownAndMarked(parsed);
      const label = `${describeTally(document.label, tally)} — ${detail}`;
      assert.equal(tally.invented, 0, label);
      assert.ok(recall(tally) >= 0.75, label);
      assert.ok(tally.values >= tally.found - 1, label);
    }
  });
});
