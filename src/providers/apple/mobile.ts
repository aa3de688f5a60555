// Apple HealthKit -> mobile samples. One normalizer for both ways Apple data arrives: the SDK
// upload (`records`, `workouts`, `activity_summaries` carrying HealthKit's export attributes, with
// the sample UUID) and the Health app's export.xml (the same attributes on `Record`, `Workout` and
// `ActivitySummary` elements, without UUIDs: the id is then a hash of the record's content, so a
// re-export yields the same ids). Units are read from each record's `unit`, never assumed from
// the type: exports write whatever unit the user's locale displays.
//
//   records.ts        quantity and category samples, activity summaries (record-types.ts, units.ts)
//   workouts.ts       workouts with statistics and routes
//   sources.ts, sample-fields.ts   source, id and time span every sample carries
//   export-file.ts    export.xml elements -> the same readers
import {
  emptyBatch,
  type MobileBatch,
  type MobileHooks,
  readDeletions,
  readRecords,
} from '../../provider-kit/mobile/samples.ts';
import { appleExportFile } from './export-file.ts';
import { readAppleActivitySummary, readAppleRecord } from './records.ts';
import { readAppleWorkout } from './workouts.ts';

function parseAppleUpload(body: Record<string, unknown>, nowMs: number): MobileBatch {
  const batch = emptyBatch();
  batch.deletions = readDeletions(body.deletions);
  readRecords(body.records, 'records', readAppleRecord, batch, nowMs);
  readRecords(body.workouts, 'workouts', readAppleWorkout, batch, nowMs);
  readRecords(body.activity_summaries, 'activity_summaries', readAppleActivitySummary, batch, nowMs);
  return batch;
}

export const appleMobile: MobileHooks = {
  parseUpload: parseAppleUpload,
  exportFile: appleExportFile,
};
