// Suunto 24/7 sleep sample (GET /247samples/sleep) -> Sleep.
//
// Shape as seen in open-wearables' tests (providers-3.md §5) [C]: `{ timestamp, entryData:
// { BedtimeStart, BedtimeEnd, Duration, DeepSleepDuration, LightSleepDuration,
// REMSleepDuration, HRAvg, HRMin, SleepQualityScore, IsNap, SleepId } }`, durations in seconds,
// bedtimes ISO 8601 with the local offset. `Duration` is the span in bed; asleep is the sum of
// the stages; awake is what is left of the span (Suunto gives no awake time). Naps recorded
// without heart rate report 0 bpm: no reading. A day without sleep still has a sample, empty
// (Duration 0, no bedtimes, no stages): that is no sleep, not a zero-length one.
//
// Cannot map: nothing else is in the sample (no hypnogram).
import { SleepUploadType } from '../../../model/enums.ts';
import type { Sleep } from '../../../model/sleep.ts';
import { formatDateTime } from '../../../model/time.ts';
import { expectObject, NormalizationError } from '../../../provider-kit/normalize/errors.ts';
import { heartRate, numeric } from '../../../provider-kit/normalize/measures.ts';
import {
  instantOf,
  localizationOf,
  type NormalizeContext,
  offsetFor,
} from '../../../provider-kit/normalize/normalize.ts';
import { sumOrNull } from '../../../provider-kit/normalize/units.ts';
import type { SuuntoSleepSample } from './types.ts';

/** The sample's sleep, or null when it holds none (an empty 24/7 sample). */
export function normalizeSleep(input: SuuntoSleepSample, context: NormalizeContext): Sleep | null {
  const sample = expectObject('SUUNTO sleep', input) as SuuntoSleepSample;
  const entry = expectObject('SUUNTO sleep entryData', sample.entryData) as NonNullable<
    SuuntoSleepSample['entryData']
  >;
  const item = `SUUNTO sleep ${String(entry.SleepId ?? sample.timestamp)}`;
  const deep = numeric(entry.DeepSleepDuration);
  const light = numeric(entry.LightSleepDuration);
  const rem = numeric(entry.REMSleepDuration);
  const asleep = sumOrNull(deep, light, rem);
  const inBed = numeric(entry.Duration);
  const hasBedtimes = typeof entry.BedtimeStart === 'string' || typeof entry.BedtimeEnd === 'string';
  if (!hasBedtimes && !((inBed ?? 0) > 0) && !((asleep ?? 0) > 0)) return null;
  const startText = entry.BedtimeStart ?? sample.timestamp;
  if (typeof startText !== 'string') throw new NormalizationError(item, 'no BedtimeStart');
  const offset = offsetFor(startText, context);
  const startMs = instantOf(startText, offset);
  const endMs =
    typeof entry.BedtimeEnd === 'string'
      ? instantOf(entry.BedtimeEnd, offset)
      : inBed === null
        ? startMs
        : startMs + inBed * 1000;
  if (endMs <= startMs && !((inBed ?? 0) > 0)) return null;
  // Time in bed: Suunto's Duration, else the span.
  const inBedSeconds = inBed ?? (endMs > startMs ? (endMs - startMs) / 1000 : null);
  // Stages that add up past the time in bed leave no awake time to tell.
  const awake =
    inBedSeconds !== null && asleep !== null && asleep <= inBedSeconds ? inBedSeconds - asleep : null;
  const score = numeric(entry.SleepQualityScore);
  const minHr = heartRate(numeric(entry.HRMin));
  return {
    metadata: {
      start_time: formatDateTime(startMs, offset),
      end_time: formatDateTime(endMs, offset),
      upload_type: SleepUploadType.AUTOMATIC,
      is_nap: typeof entry.IsNap === 'boolean' ? entry.IsNap : null,
      summary_id: entry.SleepId === undefined || entry.SleepId === null ? null : String(entry.SleepId),
      timestamp_localization: localizationOf(offset),
    },
    sleep_durations_data: {
      asleep: {
        duration_asleep_state_seconds: asleep,
        duration_deep_sleep_state_seconds: deep,
        duration_light_sleep_state_seconds: light,
        duration_REM_sleep_state_seconds: rem,
      },
      awake: awake === null ? null : { duration_awake_state_seconds: awake },
      other: { duration_in_bed_seconds: inBedSeconds },
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: heartRate(numeric(entry.HRAvg)),
        min_hr_bpm: minHr,
        // The lowest sleeping heart rate of a main sleep is its resting heart rate.
        resting_hr_bpm: entry.IsNap === true ? null : minHr,
      },
    },
    scores: { sleep: score, sleep_score: score },
  };
}
