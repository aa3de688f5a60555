// Apple Health exports made by tests and the import benchmark: export.xml text shaped like the
// Health app's (version 14 DTD head, iPhone and Apple Watch records, workouts, activity
// summaries), optionally with the defects real exports have, and a small zip writer to wrap it
// as export.zip.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';

const WATCH =
  'sourceName="Ann’s Apple Watch" sourceVersion="10.2" device="&lt;&lt;HKDevice: 0x283a4c640&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2&gt;"';
const PHONE =
  'sourceName="Ann’s iPhone" sourceVersion="17.1" device="&lt;&lt;HKDevice: 0x283a4c880&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, software:17.1&gt;"';

/** The iOS 16 defect: an ATTLIST never closed and a stray `>` before `]>` (mobile-sources.md §2.4). */
const BROKEN_DTD = `<!DOCTYPE HealthData [
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
<!ATTLIST HealthData locale CDATA #REQUIRED>
<!ATTLIST VisionPrescription
  type CDATA #REQUIRED
  dateIssued CDATA #REQUIRED
>
]>`;
const GOOD_DTD = `<!DOCTYPE HealthData [
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary)*)>
<!ATTLIST HealthData locale CDATA #REQUIRED>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
]>`;

export type ExportOptions = {
  /** First day, YYYY-MM-DD. */
  startDay?: string;
  days: number;
  /** Heart-rate records per day (the bulk of a real export). */
  heartRatePerDay?: number;
  brokenDtd?: boolean;
  /** Puts a vertical tab (illegal in XML 1.0) into a source name, as some real exports have. */
  controlCharacter?: boolean;
};

const pad = (n: number) => (n < 10 ? `0${n}` : String(n));

/** `2026-11-20 08:00:00 +0100` for minute `minute` of day `dayIndex`. */
function appleDate(startMs: number, dayIndex: number, minute: number): string {
  const local = new Date(startMs + dayIndex * 86_400_000 + minute * 60_000);
  return `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())} ${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:00 +0100`;
}

/** Expected values of a generated export, per day: what an import must produce. */
export const GENERATED_DAY = { steps: 2 * 600 + 250, watchSteps: 1200, phoneOnlySteps: 250 };

/** What one day of a generated export holds, by record type (the groups a real export has). */
type DayParts = { steps: string; body: string; heartRate: string; workout: string; summary: string };
/** The order of a real export: every record of one type, then the next type, workouts, activity summaries. */
const TYPE_GROUPS: readonly (keyof DayParts)[] = ['steps', 'body', 'heartRate', 'workout', 'summary'];

function dayParts(startMs: number, day: number, hr: number, watch: string): DayParts {
  const at = (minute: number) => appleDate(startMs, day, minute);
  const heartRate: string[] = [];
  for (let i = 0; i < hr; i++) {
    const minute = Math.floor((i * 1440) / hr);
    heartRate.push(
      ` <Record type="HKQuantityTypeIdentifierHeartRate" ${watch} unit="count/min" creationDate="${at(minute)}" startDate="${at(minute)}" endDate="${at(minute)}" value="${60 + (i % 40)}">\n  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/>\n </Record>\n`,
    );
  }
  return {
    // Steps: the watch 08:00-08:20 in two samples, the phone the same 20 minutes (overlap) and
    // alone at noon.
    steps:
      ` <Record type="HKQuantityTypeIdentifierStepCount" ${watch} unit="count" creationDate="${at(481)}" startDate="${at(480)}" endDate="${at(490)}" value="600"/>\n` +
      ` <Record type="HKQuantityTypeIdentifierStepCount" ${watch} unit="count" creationDate="${at(501)}" startDate="${at(490)}" endDate="${at(500)}" value="600"/>\n` +
      ` <Record type="HKQuantityTypeIdentifierStepCount" ${PHONE} unit="count" creationDate="${at(501)}" startDate="${at(480)}" endDate="${at(500)}" value="1100"/>\n` +
      ` <Record type="HKQuantityTypeIdentifierStepCount" ${PHONE} unit="count" creationDate="${at(731)}" startDate="${at(720)}" endDate="${at(730)}" value="250"/>\n`,
    body: ` <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Health Mate" sourceVersion="6.2" unit="lb" creationDate="${at(420)}" startDate="${at(420)}" endDate="${at(420)}" value="154">\n  <MetadataEntry key="HKWasUserEntered" value="0"/>\n </Record>\n`,
    heartRate: heartRate.join(''),
    workout: ` <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="20" durationUnit="min" totalDistance="1.5" totalDistanceUnit="km" totalEnergyBurned="90" totalEnergyBurnedUnit="kcal" ${watch} creationDate="${at(500)}" startDate="${at(480)}" endDate="${at(500)}">\n  <MetadataEntry key="HKIndoorWorkout" value="0"/>\n  <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="${at(480)}" endDate="${at(500)}" average="104" minimum="88" maximum="121" unit="count/min"/>\n  <WorkoutRoute ${watch} creationDate="${at(500)}" startDate="${at(480)}" endDate="${at(500)}">\n   <Location date="${at(480)}" latitude="51.5" longitude="-0.12" altitude="20" horizontalAccuracy="3" verticalAccuracy="2" course="90" speed="1.3"/>\n   <Location date="${at(500)}" latitude="51.51" longitude="-0.11" altitude="21" horizontalAccuracy="3" verticalAccuracy="2" course="90" speed="1.3"/>\n  </WorkoutRoute>\n </Workout>\n`,
    summary: ` <ActivitySummary dateComponents="${at(0).slice(0, 10)}" activeEnergyBurned="300" activeEnergyBurnedGoal="400" activeEnergyBurnedUnit="kcal" appleExerciseTime="20" appleExerciseTimeGoal="30" appleStandHours="10" appleStandHoursGoal="12"/>\n`,
  };
}

/**
 * The export in chunks of text, so a generator never holds a big document: a day at a time, or
 * with `groupedByType` as the Health app writes one (every day's step records, then every day's
 * body mass, heart rate, workouts, activity summaries), one type's day a chunk.
 */
export function* exportChunks(options: ExportOptions & { groupedByType?: boolean }): Generator<string> {
  const startMs = Date.parse(`${options.startDay ?? '2026-01-01'}T00:00:00Z`);
  const hr = options.heartRatePerDay ?? 24;
  const watch = options.controlCharacter
    ? WATCH.replace('Ann’s Apple Watch', 'Ann’s\u000BApple Watch')
    : WATCH;
  yield `<?xml version="1.0" encoding="UTF-8"?>\n${options.brokenDtd ? BROKEN_DTD : GOOD_DTD}\n<HealthData locale="en_GB">\n <ExportDate value="2026-11-20 08:00:00 +0100"/>\n <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-01-01" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"/>\n`;
  if (options.groupedByType) {
    for (const group of TYPE_GROUPS)
      for (let day = 0; day < options.days; day++) yield dayParts(startMs, day, hr, watch)[group];
  } else {
    for (let day = 0; day < options.days; day++) {
      const parts = dayParts(startMs, day, hr, watch);
      yield TYPE_GROUPS.map((group) => parts[group]).join('');
    }
  }
  yield '</HealthData>\n';
}

/** The whole export as a string (small exports only). */
export const exportText = (options: ExportOptions) => [...exportChunks(options)].join('');

/**
 * Writes an export of about `targetBytes` (whole days) to `path`; returns its size and days. With
 * `layout.groupedByType`, grouped by record type as real exports are (`exportChunks`). With
 * `endBefore` (YYYY-MM-DD) the days end the day before it, so a large export (1 GB is 21 years)
 * holds no future samples, which an import drops as implausible.
 */
export async function writeExportOfSize(
  path: string,
  targetBytes: number,
  endBefore?: string,
  layout: { groupedByType?: boolean } = {},
): Promise<{ bytes: number; days: number }> {
  const out = createWriteStream(path);
  let bytes = 0;
  const perDay = exportText({ days: 1, heartRatePerDay: 288 }).length;
  const wanted = Math.max(1, Math.ceil(targetBytes / perDay));
  const startDay = endBefore
    ? new Date(Date.parse(`${endBefore}T00:00:00Z`) - wanted * 86_400_000).toISOString().slice(0, 10)
    : '2016-01-01';
  for (const chunk of exportChunks({ days: wanted, heartRatePerDay: 288, startDay, ...layout })) {
    bytes += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return { bytes, days: wanted };
}

/** A zip archive (deflated entries) of the given files, as the Health app writes export.zip. */
export function zipArchive(files: { name: string; data: Buffer }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.name, 'utf8');
    const compressed = deflateRawSync(file.data);
    const crc = crc32(file.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(file.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(file.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
