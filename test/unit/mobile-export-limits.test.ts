// Hostile Apple exports (issue 24 §2–3) against the export reader's limits: each fails with a
// reason naming its limit instead of running the heap out; GPX routes are read by a streaming
// parser (the regular expression it replaces blocked the process for minutes on unclosed
// `<trkpt>` tags), and a real route still arrives as the workout's points.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { EXPORT_LIMITS, ExportFileError, readExport } from '../../src/features/mobile/export-stream.ts';
import { GPX_LIMITS, readGpxPoints } from '../../src/provider-kit/mobile/gpx.ts';
import type { XmlElement } from '../../src/provider-kit/mobile/samples.ts';
import { createXmlShapeGuard, XmlLimitError } from '../../src/provider-kit/mobile/xml-guard.ts';
import { appleMobile } from '../../src/providers/apple/mobile.ts';
import { zipArchive } from '../helpers/apple-export.ts';

const spec = appleMobile.exportFile!;
const dir = mkdtempSync(join(tmpdir(), 'tributary-export-limits-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function fileOf(data: Buffer | string): string {
  const path = join(dir, `export-${++files}`);
  writeFileSync(path, data);
  return path;
}
const zipOf = (entries: Record<string, string>) =>
  fileOf(
    zipArchive(
      Object.entries(entries).map(([name, text]) => ({
        name: `apple_health_export/${name}`,
        data: Buffer.from(text),
      })),
    ),
  );

/** Reads an export; returns the elements handed over, or the error it failed with. */
async function read(path: string): Promise<{ elements: XmlElement[]; error?: Error }> {
  const elements: XmlElement[] = [];
  try {
    await readExport(path, spec, {
      skip: 0,
      batchSize: 250,
      onStart: async () => {},
      onBatch: async (batch) => {
        elements.push(...batch);
      },
    });
    return { elements };
  } catch (error) {
    return { elements, error: error as Error };
  }
}

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_GB">\n';
const TAIL = '</HealthData>\n';
const DATES = 'startDate="2026-03-01 08:00:00 +0100" endDate="2026-03-01 08:30:00 +0100"';
const workout = (route: string) =>
  ` <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" ${DATES}>\n  <WorkoutRoute sourceName="Watch" ${DATES}>\n   <FileReference path="/workout-routes/${route}"/>\n  </WorkoutRoute>\n </Workout>\n`;
const gpxOf = (points: number) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="Apple Health Export"><trk><name>Route</name><trkseg>\n${Array.from(
    { length: points },
    (_, index) =>
      `<trkpt lon="-0.${1000 + index}" lat="51.${5000 + index}"><ele>2${index}.5</ele><time>2026-03-01T07:${String(index % 60).padStart(2, '0')}:00Z</time><extensions><speed>2.1</speed></extensions></trkpt>\n`,
  ).join('')}</trkseg></trk></gpx>\n`;

describe('export reader limits', () => {
  test('two million nested elements in a small zip: refused at the nesting limit', async () => {
    const depth = 2_000_000;
    const xml = `${HEAD}${'<Record>'.repeat(depth)}${'</Record>'.repeat(depth)}${TAIL}`;
    const { error } = await read(zipOf({ 'export.xml': xml }));
    assert.ok(error instanceof ExportFileError, String(error));
    assert.match(error.message, new RegExp(`nests deeper than ${EXPORT_LIMITS.maxDepth} levels`));
  });

  test('an attribute of 4 MB: refused by the tag length limit before the parser buffers it', async () => {
    const xml = `${HEAD} <Record type="HKQuantityTypeIdentifierStepCount" sourceName="${'x'.repeat(4 * 1024 * 1024)}" ${DATES} unit="count" value="1"/>\n${TAIL}`;
    const { error } = await read(fileOf(xml));
    assert.ok(error instanceof ExportFileError, String(error));
    assert.match(error.message, new RegExp(`longer than ${EXPORT_LIMITS.maxTagChars} characters`));
  });

  test('an attribute, comment or CDATA section full of `>` cannot hide from the length limit', () => {
    const guard = () => createXmlShapeGuard({ maxTagChars: 100, maxTextChars: 100 });
    const ok = guard();
    for (const slice of ['<a b="ok">text</a><!-- a > b -', '-><![CDATA[ x > y ]', ']><?pi a > b ?><c/>'])
      ok(slice);
    assert.throws(() => guard()(`<a b="${'>'.repeat(200)}"/>`), XmlLimitError);
    // The parser buffers a comment's or a CDATA section's text whether or not anyone listens.
    assert.throws(() => guard()(`<!--${' > '.repeat(100)}-->`), XmlLimitError);
    assert.throws(() => guard()(`<![CDATA[${' > '.repeat(100)}]]>`), XmlLimitError);
    assert.throws(() => guard()(`<?pi ${' > '.repeat(100)}?>`), XmlLimitError);
    // Split across slices, the terminator is still found; what follows is text again.
    const split = guard();
    split('<!-- short --');
    split('>');
    assert.throws(() => split('x'.repeat(101)), /text run is longer than 100/);
  });

  test('too many children of one record: refused at the children limit', async () => {
    const children = EXPORT_LIMITS.maxChildren + 1;
    const xml = `${HEAD} <Record type="HKQuantityTypeIdentifierStepCount" ${DATES} unit="count" value="1">${'<MetadataEntry/>'.repeat(children)}</Record>\n${TAIL}`;
    const { error } = await read(zipOf({ 'export.xml': xml }));
    assert.ok(error instanceof ExportFileError, String(error));
    assert.match(error.message, new RegExp(`more than ${EXPORT_LIMITS.maxChildren} children`));
  });

  test('250 workouts naming the same route file: refused at the reference limit', async () => {
    const xml = `${HEAD}${workout('route_1.gpx').repeat(250)}${TAIL}`;
    const { error } = await read(zipOf({ 'export.xml': xml, 'workout-routes/route_1.gpx': gpxOf(10) }));
    assert.ok(error instanceof ExportFileError, String(error));
    assert.match(error.message, /route_1\.gpx is referenced more than 4 times/);
  });

  test(
    'a 2 MB route of unclosed <trkpt> tags ends the import at once, with the limit named',
    { timeout: 60_000 },
    async () => {
      // The old pattern /<trkpt\b([^>]*)>([\s\S]*?)<\/trkpt>/ rescanned the rest of the file from
      // every unclosed tag: 348 s for this size, the whole process blocked. The streaming parser
      // reads it once and stops at the nesting limit.
      const gpx = `<gpx><trk><trkseg>${'<trkpt lat="1" lon="2"><time>2026-01-01T00:00:00Z</time>'.repeat(40_000)}`;
      assert.ok(gpx.length > 2_000_000);
      const { error } = await read(
        zipOf({ 'export.xml': `${HEAD}${workout('route_x.gpx')}${TAIL}`, 'workout-routes/route_x.gpx': gpx }),
      );
      assert.ok(error instanceof ExportFileError, String(error));
      assert.match(error.message, /route_x\.gpx: the route nests deeper than 16 levels/);
    },
  );

  test('a route file arrives as the workout’s points, through the streaming GPX reader', async () => {
    const xml = `${HEAD}${workout('route_a.gpx')}${workout('route_b.gpx')}${TAIL}`;
    const { elements, error } = await read(
      zipOf({
        'export.xml': xml,
        'workout-routes/route_a.gpx': gpxOf(3),
        'workout-routes/route_b.gpx': gpxOf(2),
      }),
    );
    assert.equal(error, undefined);
    const routes = elements.map((element) => spec.fromElement(element)[0]!.workout!.route);
    assert.deepEqual(
      routes.map((route) => route.length),
      [3, 2],
    );
    assert.deepEqual(routes[0]![1], {
      t: Date.parse('2026-03-01T07:01:00Z'),
      lat: 51.5001,
      lng: -0.1001,
      alt: 21.5,
    });
  });
});

describe('route points held per batch', () => {
  test('a batch whose routes pass the budget is handed over in parts, each with an exact checkpoint', async () => {
    const perRoute = Math.ceil(EXPORT_LIMITS.maxReferencedPerBatch * 0.6);
    const routes = {
      'workout-routes/a.gpx': gpxOf(perRoute),
      'workout-routes/b.gpx': gpxOf(perRoute),
      'workout-routes/c.gpx': gpxOf(perRoute),
    };
    const xml = `${HEAD}${workout('a.gpx')}${workout('b.gpx')}${workout('c.gpx')}${TAIL}`;
    const path = zipOf({ 'export.xml': xml, ...routes });
    const handed: { count: number; elementsRead: number; points: number }[] = [];
    await readExport(path, spec, {
      skip: 0,
      batchSize: 250,
      onStart: async () => {},
      onBatch: async (batch, progress) => {
        const points = batch.reduce(
          (sum, element) => sum + spec.fromElement(element)[0]!.workout!.route.length,
          0,
        );
        handed.push({ count: batch.length, elementsRead: progress.elementsRead, points });
      },
    });
    // Two routes pass the budget: they go before the third is read; then the third, then the end.
    assert.deepEqual(handed, [
      { count: 2, elementsRead: 2, points: 2 * perRoute },
      { count: 1, elementsRead: 3, points: perRoute },
    ]);
  });
});

describe('GPX reader', () => {
  const stream = (text: string) => Readable.from([Buffer.from(text)]);

  test('points without a time or position are left out; a damaged file is no route', async () => {
    const text =
      '<gpx><trk><trkseg><trkpt lat="1" lon="2"><ele>5</ele><time>2026-01-01T00:00:00Z</time></trkpt>' +
      '<trkpt lat="1" lon="2"><ele>5</ele></trkpt><trkpt lon="2"><time>2026-01-01T00:00:01Z</time></trkpt></trkseg></trk></gpx>';
    assert.deepEqual(await readGpxPoints(stream(text)), [
      { date: '2026-01-01T00:00:00Z', latitude: '1', longitude: '2', altitude: '5' },
    ]);
    assert.deepEqual(await readGpxPoints(stream('<gpx><trk><trkpt lat="1" lon="2"></trk></gpx>')), []);
  });

  test('nesting and tag length past the limits throw with the limit named', async () => {
    await assert.rejects(
      readGpxPoints(stream(`<gpx>${'<e>'.repeat(GPX_LIMITS.maxDepth + 1)}`)),
      /nests deeper than 16 levels/,
    );
    await assert.rejects(
      readGpxPoints(stream(`<gpx><trk name="${'n'.repeat(GPX_LIMITS.maxTagChars)}"/></gpx>`)),
      /longer than 4096 characters/,
    );
  });
});
