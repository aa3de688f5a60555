// Lab-report extraction. First, result by result against truth files (recall, precision, values;
// units, ranges and flags of the results found): the shared real reports
// (../shared/reference/lab-reports, or $SHARED_REFERENCE_DIR/lab-reports; skipped with a message
// when absent) and the generated class documents (test/helpers/lab-report-classes.ts), printed
// separately; then what each OCR step is worth on the image documents. Then accuracy on generated reports (results found, values exact, units exact,
// flags exact, results invented) and throughput (pages/s for text PDFs, pages/s for OCR), measured
// on the parser itself (no HTTP, no database), offline. Text PDFs: every layout of the generator
// (one/two columns × with/without a units column × US/SI × H/L, asterisk, no flags). OCR: pages
// photographed by Chromium (slant, speckles, off-white paper; PNG and JPEG; one and two columns)
// and a scanned PDF (an image page the parser renders itself).
//
//   node bench/lab-reports.ts            (LAB_BENCH_TEXT_ROUNDS=10 LAB_BENCH_OCR_PHOTOS=6 to change the load,
//                                         LAB_BENCH_STEPS=0 to skip the OCR-steps table, LAB_BENCH_GENERATED=0
//                                         to skip the older generated-report figures)
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { stopOcr } from '../src/features/lab-reports/extraction/ocr.ts';
import { DEFAULT_READER, type ReaderOptions } from '../src/features/lab-reports/read-pages.ts';
import { parseReport } from '../src/features/lab-reports/report.ts';
import type { LabResult } from '../src/features/lab-reports/result-types.ts';
import { launchChromium } from '../test/helpers/browser.ts';
import { hasPdftoppm, photoClassDocuments, textClassDocuments } from '../test/helpers/lab-report-classes.ts';
import {
  addTally,
  describeTally,
  emptyTally as emptyTruthTally,
  scoreResults,
  sharedReports,
  type TruthDocument,
} from '../test/helpers/lab-report-truth.ts';
import {
  generateReport,
  type GeneratedReport,
  renderHtml,
  renderPdf,
  type ReportOptions,
  scannedPdf,
} from '../test/helpers/lab-report-samples.ts';

const TEXT_ROUNDS = Number(process.env.LAB_BENCH_TEXT_ROUNDS ?? 10);

type Tally = { truth: number; found: number; values: number; units: number; flags: number; invented: number };
const emptyTally = (): Tally => ({ truth: 0, found: 0, values: 0, units: 0, flags: 0, invented: 0 });

function score(report: GeneratedReport, results: LabResult[], tally: Tally) {
  const byKey = new Map(
    results.filter((result) => result.biomarker.key).map((result) => [result.biomarker.key!, result]),
  );
  for (const row of report.truth) {
    tally.truth += 1;
    const result = byKey.get(row.key);
    if (!result) continue;
    byKey.delete(row.key);
    tally.found += 1;
    const measurement = result.measurement;
    const valueExact =
      result.source.value === row.value &&
      (row.numeric !== undefined
        ? measurement.type === 'numeric' && measurement.numeric === row.numeric
        : measurement.type === 'bounded' &&
          JSON.stringify(measurement.bounded) === JSON.stringify(row.bounded));
    if (valueExact) tally.values += 1;
    if (measurement.units === row.units && measurement.ucum_code === row.ucum) tally.units += 1;
    if (result.interpretation.flag === row.flag && result.interpretation.source === row.flagSource)
      tally.flags += 1;
  }
  tally.invented += byKey.size + results.filter((result) => !result.biomarker.key).length;
}

const percent = (part: number, whole: number) => `${((100 * part) / Math.max(whole, 1)).toFixed(1)}%`;
function line(label: string, tally: Tally) {
  return (
    `${label}: ${tally.truth} printed results; found ${percent(tally.found, tally.truth)}, ` +
    `values exact ${percent(tally.values, tally.truth)}, units exact ${percent(tally.units, tally.truth)}, ` +
    `flags exact ${percent(tally.flags, tally.truth)}, invented ${tally.invented}`
  );
}

const TEXT_LAYOUTS: ReportOptions[] = [];
for (const layout of ['one-column', 'two-column'] as const)
  for (const unitsColumn of [true, false])
    for (const system of ['US', 'SI'] as const)
      for (const flagStyle of ['letters', 'asterisk', 'none'] as const)
        TEXT_LAYOUTS.push({ layout, unitsColumn, system, flagStyle });

async function textPdfs() {
  const reports = TEXT_LAYOUTS.map((options) => generateReport(options));
  const files = await Promise.all(reports.map((report) => renderPdf(report)));
  const tally = emptyTally();
  let pages = 0;
  // One untimed pass for accuracy (and to warm the code), then timed rounds for throughput.
  for (const [index, file] of files.entries()) {
    const parsed = await parseReport(file, 'application/pdf');
    score(reports[index]!, parsed.results, tally);
  }
  const started = performance.now();
  for (let round = 0; round < TEXT_ROUNDS; round += 1)
    for (const file of files) pages += (await parseReport(file, 'application/pdf')).pages;
  const seconds = (performance.now() - started) / 1000;
  console.log(line(`text PDFs (${files.length} layouts)`, tally));
  console.log(
    `text PDFs throughput: ${pages} pages in ${seconds.toFixed(2)} s = ${(pages / seconds).toFixed(1)} pages/s`,
  );
}

const PHOTOS: { options: ReportOptions; skew: number; noise: number; type: 'png' | 'jpeg' }[] = [
  {
    options: { layout: 'one-column', unitsColumn: true, system: 'US', flagStyle: 'letters' },
    skew: 1.5,
    noise: 120,
    type: 'png',
  },
  {
    options: { layout: 'one-column', unitsColumn: false, system: 'SI', flagStyle: 'none' },
    skew: -1.2,
    noise: 120,
    type: 'jpeg',
  },
  {
    options: { layout: 'two-column', unitsColumn: true, system: 'US', flagStyle: 'letters' },
    skew: 0.8,
    noise: 120,
    type: 'png',
  },
  {
    options: { layout: 'two-column', unitsColumn: true, system: 'SI', flagStyle: 'asterisk' },
    skew: -1.0,
    noise: 300,
    type: 'jpeg',
  },
  {
    options: { layout: 'one-column', unitsColumn: true, system: 'SI', flagStyle: 'letters' },
    skew: 0.5,
    noise: 400,
    type: 'png',
  },
  {
    options: { layout: 'two-column', unitsColumn: false, system: 'US', flagStyle: 'none' },
    skew: 1.2,
    noise: 200,
    type: 'png',
  },
];

async function ocr() {
  const count = Math.min(Number(process.env.LAB_BENCH_OCR_PHOTOS ?? PHOTOS.length), PHOTOS.length);
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1320, height: 1000 }, deviceScaleFactor: 3 });
  const inputs: {
    report: GeneratedReport;
    file: Buffer;
    mediaType: 'image/png' | 'image/jpeg' | 'application/pdf';
    label: string;
  }[] = [];
  for (const [index, photo] of PHOTOS.slice(0, count).entries()) {
    const report = generateReport(photo.options);
    await page.setContent(
      renderHtml(report, { skewDegrees: photo.skew, noise: photo.noise, seed: index + 3 }),
    );
    const file =
      photo.type === 'png'
        ? await page.screenshot({ fullPage: true, type: 'png' })
        : await page.screenshot({ fullPage: true, type: 'jpeg', quality: 90 });
    inputs.push({
      report,
      file,
      mediaType: photo.type === 'png' ? 'image/png' : 'image/jpeg',
      label: `${photo.options.layout} ${photo.type}`,
    });
    if (index === 0)
      inputs.push({
        report,
        file: await scannedPdf(file),
        mediaType: 'application/pdf',
        label: 'scanned PDF',
      });
  }
  await browser.close();
  // Starting the engine (reading the model) is paid once per process; not counted per page.
  await parseReport(inputs[0]!.file, inputs[0]!.mediaType);
  const tally = emptyTally();
  let pages = 0;
  const started = performance.now();
  for (const input of inputs) {
    const parsed = await parseReport(input.file, input.mediaType);
    pages += parsed.ocrPages;
    const one = emptyTally();
    score(input.report, parsed.results, one);
    console.log(`  ${line(input.label, one)}`);
    score(input.report, parsed.results, tally);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(line(`OCR (${inputs.length} pages: photos and a scan)`, tally));
  console.log(
    `OCR throughput: ${pages} pages in ${seconds.toFixed(2)} s = ${(pages / seconds).toFixed(2)} pages/s`,
  );
  await stopOcr();
}

/** Each document scored, then the totals of text documents and of image documents. */
async function scoreDocuments(title: string, documents: TruthDocument[], options = DEFAULT_READER) {
  console.log(title);
  const totals = { text: emptyTruthTally(), image: emptyTruthTally() };
  for (const document of documents) {
    const started = performance.now();
    const parsed = await parseReport(document.bytes, document.mediaType, options);
    const { tally } = scoreResults(document.truth, parsed.results);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const review = parsed.results.filter((result) => result.needs_review).length;
    console.log(`  ${describeTally(document.label, tally)}; needs review ${review} (${seconds} s)`);
    addTally(document.truth.kind === 'text-pdf' ? totals.text : totals.image, tally);
  }
  for (const [kind, tally] of Object.entries(totals))
    if (tally.printed > 0) console.log(`  ${describeTally(`${title} — all ${kind}`, tally)}`);
}

/** What each OCR step adds, on the image documents: steps switched on one after another. */
async function ocrSteps(documents: TruthDocument[]) {
  const none = { upscale: false, shadows: false, deskew: false };
  const ladder: [string, ReaderOptions][] = [
    ['page as given, automatic segmentation', { prepare: none, segmentation: 'auto', digitPass: false }],
    ['+ upscaled', { prepare: { ...none, upscale: true }, segmentation: 'auto', digitPass: false }],
    [
      '+ shadows removed',
      { prepare: { ...none, upscale: true, shadows: true }, segmentation: 'auto', digitPass: false },
    ],
    ['+ deskewed', { prepare: DEFAULT_READER.prepare, segmentation: 'auto', digitPass: false }],
    [
      '+ sparse segmentation when few results',
      { prepare: DEFAULT_READER.prepare, segmentation: 'best', digitPass: false },
    ],
    ['+ digit-only pass (all steps: the default)', DEFAULT_READER],
    [
      'all steps but upscaling',
      { ...DEFAULT_READER, prepare: { ...DEFAULT_READER.prepare, upscale: false } },
    ],
  ];
  console.log(
    `OCR steps on ${documents.length} image documents (${documents.map((document) => document.label).join(', ')}):`,
  );
  for (const [label, options] of ladder) {
    const tally = emptyTruthTally();
    const started = performance.now();
    for (const document of documents)
      addTally(
        tally,
        scoreResults(document.truth, (await parseReport(document.bytes, document.mediaType, options)).results)
          .tally,
      );
    console.log(`  ${describeTally(label, tally)} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
}

console.log(
  `lab-report extraction bench (node ${process.version}, ${availableParallelism()} CPUs, one OCR worker)`,
);
const shared = sharedReports();
if ('missing' in shared) console.log(`shared real reports: skipped — ${shared.missing}`);
else await scoreDocuments('shared real reports', shared.documents);
const photos = (await hasPdftoppm())
  ? await photoClassDocuments()
  : (console.log('generated photo class document: skipped — pdftoppm (poppler-utils) is not installed'), []);
await scoreDocuments('generated class documents', [...(await textClassDocuments()), ...photos]);
if (process.env.LAB_BENCH_STEPS !== '0') {
  const images = [...('missing' in shared ? [] : shared.documents), ...photos].filter(
    (document) => document.mediaType !== 'application/pdf',
  );
  if (images.length > 0) await ocrSteps(images);
}
if (process.env.LAB_BENCH_GENERATED !== '0') {
  await textPdfs();
  await ocr();
}
await stopOcr();
