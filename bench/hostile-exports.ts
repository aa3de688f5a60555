/**
 * Hostile Apple Health exports (issue 24 §2–3) against the export reader's limits: for each class,
 * the file is generated here, then read by `readExport` (with the APPLE normalizer, as an import
 * reads it) in a fresh process of its own, so the peak RSS printed is that read's alone (the
 * process's resident size sampled every 5 ms, Node and the modules included: ~95 MB before any
 * reading). Prints, per class, the outcome (the limit that ended it), wall and CPU seconds, and
 * peak RSS.
 *
 *   node_modules/.bin/node bench/hostile-exports.ts [--attr-mb 100] [--children 1000000]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { zipArchive } from '../test/helpers/apple-export.ts';

const NODE = new URL('../node_modules/.bin/node', import.meta.url).pathname;
const SELF = new URL(import.meta.url).pathname;

type Outcome = { outcome: string; seconds: number; cpuSeconds: number; peakRssMb: number; elements: number };

async function readRole(file: string): Promise<Outcome> {
  const { readExport } = await import('../src/features/mobile/export-stream.ts');
  const { appleMobile } = await import('../src/providers/apple/mobile.ts');
  const spec = appleMobile.exportFile!;
  // Sampled rather than getrusage's maxRSS: on Linux a spawned child's maxRSS can carry the
  // parent's resident size from before exec (here: the generated file).
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 5);
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  let outcome = 'completed';
  let elements = 0;
  try {
    await readExport(file, spec, {
      skip: 0,
      batchSize: 250,
      onStart: async () => {},
      onBatch: async (batch) => {
        for (const element of batch) {
          elements++;
          try {
            spec.fromElement(element);
          } catch {
            // A refused element is counted out, as the import does.
          }
        }
      },
    });
  } catch (error) {
    outcome = (error as Error).message;
  }
  const used = process.cpuUsage(cpu);
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  return {
    outcome,
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
    cpuSeconds: (used.user + used.system) / 1e6,
    peakRssMb: Math.round(peakRss / 1024 / 1024),
    elements,
  };
}

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_GB">\n';
const TAIL = '</HealthData>\n';
const DATES = 'startDate="2026-03-01 08:00:00 +0100" endDate="2026-03-01 08:30:00 +0100"';
const workout = (route: string) =>
  ` <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" ${DATES}><WorkoutRoute sourceName="Watch" ${DATES}><FileReference path="/workout-routes/${route}"/></WorkoutRoute></Workout>\n`;
const zipped = (entries: Record<string, string | Buffer>) =>
  zipArchive(
    Object.entries(entries).map(([name, data]) => ({
      name: `apple_health_export/${name}`,
      data: Buffer.isBuffer(data) ? data : Buffer.from(data),
    })),
  );

function gpx(points: number, close = true): Buffer {
  const parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1"><trk><trkseg>\n'];
  for (let index = 0; index < points; index++)
    parts.push(
      `<trkpt lon="-0.${100000 + index}" lat="51.${500000 + index}"><ele>21.5</ele><time>2026-03-01T07:00:00Z</time>${close ? '<extensions><speed>2.1</speed></extensions></trkpt>' : ''}\n`,
    );
  if (close) parts.push('</trkseg></trk></gpx>\n');
  return Buffer.from(parts.join(''));
}

async function main() {
  const { values } = parseArgs({
    options: {
      role: { type: 'string' },
      file: { type: 'string' },
      'attr-mb': { type: 'string' },
      children: { type: 'string' },
    },
  });
  if (values.role === 'read') {
    process.stdout.write(JSON.stringify(await readRole(values.file!)));
    return;
  }
  const attrMb = Number(values['attr-mb'] ?? 100);
  const children = Number(values.children ?? 1_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'tributary-hostile-'));
  const cases: { name: string; make: () => Buffer }[] = [
    {
      name: 'zip nesting 2 million elements',
      make: () =>
        zipped({
          'export.xml': `${HEAD}${'<Record>'.repeat(2_000_000)}${'</Record>'.repeat(2_000_000)}${TAIL}`,
        }),
    },
    {
      name: `one ${attrMb} MB attribute (zipped)`,
      make: () =>
        zipped({
          'export.xml': Buffer.concat([
            Buffer.from(`${HEAD} <Record type="HKQuantityTypeIdentifierStepCount" sourceName="`),
            Buffer.alloc(attrMb * 1024 * 1024, 'x'),
            Buffer.from(`" ${DATES} unit="count" value="1"/>\n${TAIL}`),
          ]),
        }),
    },
    {
      name: `${children} children of one record (zipped)`,
      make: () =>
        zipped({
          'export.xml': `${HEAD} <Record type="HKQuantityTypeIdentifierStepCount" ${DATES} unit="count" value="1">${'<MetadataEntry key="k" value="v"/>'.repeat(children)}</Record>\n${TAIL}`,
        }),
    },
    {
      name: '250 workouts naming one 20 MB GPX',
      make: () =>
        zipped({
          'export.xml': `${HEAD}${workout('route.gpx').repeat(250)}${TAIL}`,
          'workout-routes/route.gpx': gpx(150_000),
        }),
    },
    {
      name: '2 MB GPX of unclosed <trkpt>',
      make: () =>
        zipped({
          'export.xml': `${HEAD}${workout('route.gpx')}${TAIL}`,
          'workout-routes/route.gpx': gpx(24_000, false),
        }),
    },
  ];
  console.log('| class | file (bytes) | outcome | wall s | CPU s | peak RSS MB |');
  console.log('|---|---|---|---|---|---|');
  try {
    for (const item of cases) {
      const file = join(dir, 'export.zip');
      const data = item.make();
      writeFileSync(file, data);
      const child = spawnSync(NODE, [SELF, '--role', 'read', '--file', file], {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      });
      if (child.status !== 0) {
        console.log(
          `| ${item.name} | ${data.length} | process died: ${child.stderr.split('\n').slice(-3).join(' ')} | | | |`,
        );
        continue;
      }
      const result = JSON.parse(child.stdout) as Outcome;
      console.log(
        `| ${item.name} | ${data.length} | ${result.outcome} | ${result.seconds.toFixed(2)} | ${result.cpuSeconds.toFixed(2)} | ${result.peakRssMb} |`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
