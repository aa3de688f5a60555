// Lab-report extraction, result by result against truth files, per class of document (text
// PDFs, photos and other images, scanned PDFs, all): recall (printed results found), precision
// (emitted results that were printed), values right (of those printed), and among the results
// found units, reference ranges and flags right; seconds per page, wall clock and CPU (all threads
// of the process, the OCR worker's included: the figure that does not depend on what else the
// machine is running); the OCR engine's start is paid once, before the clock runs; and how many
// wrong values were emitted without `needs_review` (what a person would take as read). Two sources, printed separately and together:
// - the shared real reports (../shared/reference/lab-reports, or $SHARED_REFERENCE_DIR/lab-reports;
//   skipped with a message when absent), read in place;
// - the generated set: the class documents (test/helpers/lab-report-classes.ts), every text layout
//   of the report generator (one/two columns × units column or not × US/SI × H/L, asterisk, no
//   flags), phone-photo-like JPEGs of generated reports (perspective, rotation, blur, uneven light,
//   noise, JPEG; test/helpers/lab-report-photos.ts) and scanned PDFs of them. Made in-process on
//   every run, nothing committed.
//
//   node bench/lab-reports.ts     (LAB_BENCH_PHOTOS=2 to photograph fewer pages,
//                                  LAB_BENCH_STEPS=1 to add what each OCR step is worth,
//                                  LAB_BENCH_VERBOSE=1 to print every mismatch)
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { stopOcr } from '../src/features/lab-reports/extraction/ocr.ts';
import { DEFAULT_READER, type ReaderOptions } from '../src/features/lab-reports/read-pages.ts';
import { parseReport } from '../src/features/lab-reports/report.ts';
import { hasPdftoppm, photoClassDocuments, textClassDocuments } from '../test/helpers/lab-report-classes.ts';
import { generatedPhotos, generatedScans, PHOTO_SET } from '../test/helpers/lab-report-photos.ts';
import { generateReport, renderPdf, type ReportOptions } from '../test/helpers/lab-report-samples.ts';
import {
  addTally,
  describeMismatch,
  emptyTally,
  precision,
  recall,
  scoreResults,
  sharedReports,
  type Tally,
  type TruthDocument,
  type TruthFile,
  valueAccuracy,
} from '../test/helpers/lab-report-truth.ts';

type ClassTally = {
  tally: Tally;
  pages: number;
  seconds: number;
  cpu: number;
  documents: number;
  unflagged: number;
};
type Kind = TruthFile['kind'];
const KINDS: [Kind | 'all', string][] = [
  ['text-pdf', 'text PDFs'],
  ['image', 'photos/images'],
  ['scanned-pdf', 'scanned PDFs'],
  ['all', 'all'],
];
const emptyClass = (): ClassTally => ({
  tally: emptyTally(),
  pages: 0,
  seconds: 0,
  cpu: 0,
  documents: 0,
  unflagged: 0,
});

const TEXT_LAYOUTS: ReportOptions[] = [];
for (const layout of ['one-column', 'two-column'] as const)
  for (const unitsColumn of [true, false])
    for (const system of ['US', 'SI'] as const)
      for (const flagStyle of ['letters', 'asterisk', 'none'] as const)
        TEXT_LAYOUTS.push({ layout, unitsColumn, system, flagStyle });

async function generatedTextLayouts(): Promise<TruthDocument[]> {
  return Promise.all(
    TEXT_LAYOUTS.map(async (options) => {
      const report = generateReport(options);
      const label = `text ${options.layout} ${options.unitsColumn ? 'units' : 'no-units'} ${options.system} ${options.flagStyle}`;
      return {
        label,
        bytes: await renderPdf(report),
        mediaType: 'application/pdf' as const,
        truth: {
          file: label,
          kind: 'text-pdf' as const,
          results: report.truth.map((row) => ({
            name: row.name,
            value: row.value,
            unit: row.units,
            range: row.range,
            flag: row.printedFlag ?? '',
          })),
        },
      };
    }),
  );
}

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
const share = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);

function classLine(label: string, { tally, pages, seconds, cpu, documents, unflagged }: ClassTally): string {
  return (
    `  ${label.padEnd(14)} ${String(documents).padStart(4)} ${String(tally.printed).padStart(7)} ` +
    [
      recall(tally),
      precision(tally),
      valueAccuracy(tally),
      share(tally.units, tally.found),
      share(tally.ranges, tally.found),
      share(tally.flags, tally.found),
    ]
      .map((value) => percent(value).padStart(8))
      .join('') +
    `${(pages > 0 ? seconds / pages : 0).toFixed(2).padStart(9)}${(pages > 0 ? cpu / pages : 0).toFixed(2).padStart(9)}` +
    `${String(unflagged).padStart(10)}`
  );
}

/** `unflagged`: values read wrong and not marked `needs_review` (the ones a person would trust). */
type Scored = { kind: Kind; tally: Tally; pages: number; seconds: number; cpu: number; unflagged: number };

/** Every document read and scored, one line each. */
async function readAll(documents: TruthDocument[], options: ReaderOptions = DEFAULT_READER) {
  const scored: Scored[] = [];
  for (const document of documents) {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const parsed = await parseReport(document.bytes, document.mediaType, options);
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpuBefore);
    const cpu = (used.user + used.system) / 1e6;
    const { tally, mismatches } = scoreResults(document.truth, parsed.results);
    const unflagged = mismatches.filter(
      (mismatch) => mismatch.problem.startsWith('values') && !mismatch.result?.needs_review,
    ).length;
    scored.push({ kind: document.truth.kind, tally, pages: parsed.pages, seconds, cpu, unflagged });
    console.log(
      `  ${document.label}: ${tally.found}/${tally.printed} found, ${tally.values} values right, ` +
        `${unflagged} wrong without needs_review, ${tally.invented} invented, ` +
        `${(parsed.unmatched ?? []).length} unmatched ` +
        `(${seconds.toFixed(1)} s, CPU ${cpu.toFixed(1)} s)`,
    );
    if (process.env.LAB_BENCH_VERBOSE === '1')
      for (const mismatch of mismatches) console.log(`      ${describeMismatch(mismatch)}`);
  }
  return scored;
}

/** The per-class table of scored documents. */
function table(title: string, scored: Scored[]) {
  console.log(`${title}:`);
  console.log(
    `  ${'class'.padEnd(14)} docs printed  recall  precis  values   units  ranges   flags   s/page  CPU s/p  unflagged`,
  );
  for (const [kind, label] of KINDS) {
    const into = emptyClass();
    for (const one of scored.filter((item) => kind === 'all' || item.kind === kind)) {
      addTally(into.tally, one.tally);
      into.pages += one.pages;
      into.seconds += one.seconds;
      into.cpu += one.cpu;
      into.unflagged += one.unflagged;
      into.documents += 1;
    }
    if (into.documents > 0) console.log(classLine(label, into));
  }
}

/** What each OCR step adds, on the image documents: steps switched on one after another. */
async function ocrSteps(documents: TruthDocument[]) {
  const none = { scale: false, light: false, deskew: false };
  const ladder: [string, ReaderOptions][] = [
    [
      'page as given',
      {
        ...DEFAULT_READER,
        prepare: none,
        digitPass: false,
        secondScale: false,
        recheck: false,
        splitColumns: false,
      },
    ],
    [
      '+ prepared (scale, light, skew)',
      { ...DEFAULT_READER, digitPass: false, secondScale: false, recheck: false, splitColumns: false },
    ],
    [
      '+ second scale when few results',
      { ...DEFAULT_READER, digitPass: false, recheck: false, splitColumns: false },
    ],
    ['+ digit-only and unit passes', { ...DEFAULT_READER, recheck: false, splitColumns: false }],
    ['+ side-by-side tables read apart', { ...DEFAULT_READER, recheck: false }],
    ['+ doubted pages read again and checked (the default)', DEFAULT_READER],
  ];
  for (const [label, options] of ladder) {
    console.log(`OCR steps: ${label}`);
    table(`OCR steps: ${label}`, await readAll(documents, options));
  }
}

console.log(
  `lab-report extraction bench (node ${process.version}, ${availableParallelism()} CPUs, one OCR worker)`,
);
// The engine's start (reading its model) is paid once per process, not per page.
const warm = await generatedPhotos(1);
await parseReport(warm[0]!.bytes, warm[0]!.mediaType);

const shared = sharedReports();
const sharedDocuments = 'missing' in shared ? [] : shared.documents;
if ('missing' in shared) console.log(`shared real reports: skipped — ${shared.missing}`);
else console.log('shared real reports:');
const sharedScores = await readAll(sharedDocuments);

const photoCount = Math.min(Number(process.env.LAB_BENCH_PHOTOS ?? PHOTO_SET.length), PHOTO_SET.length);
const generated = [
  ...(await textClassDocuments()),
  ...(await generatedTextLayouts()),
  ...(await generatedPhotos(photoCount)),
  ...(await generatedScans()),
];
if (await hasPdftoppm()) generated.push(...(await photoClassDocuments()));
else console.log('(the low-resolution class photo needs pdftoppm (poppler-utils): left out)');
console.log('generated set:');
const generatedScores = await readAll(generated);
if (sharedScores.length > 0) table('shared real reports', sharedScores);
table('generated set', generatedScores);
table('shared real reports and generated set', [...sharedScores, ...generatedScores]);

if (process.env.LAB_BENCH_STEPS === '1')
  await ocrSteps([...sharedDocuments, ...generated].filter((document) => document.truth.kind !== 'text-pdf'));
await stopOcr();
