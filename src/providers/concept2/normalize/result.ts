// Concept2 Logbook result (+ its strokes) -> Activity.
//
// `time` is in tenths of a second. The offset is, in order: `date` (local) minus `date_utc`,
// the `timezone` zone at the local `date`, the user's offset; never a silent UTC. Stroke data
// (when `stroke_data` is true) gives the samples: `t` tenths of a second since the start, `d`
// decimetres, `p` tenths of a second per 500 m, `spm`, `hr`; a stroke without `t` cannot be
// placed and is skipped. Power comes from the pace with Concept2's formula for the ergs whose
// pace is per 500 m (watts = 2.80 / (seconds per metre)^3). Results typed into the web log
// (`source` "Web") carry the user's zeros for what they left empty: those are no measurement.
//
// Cannot map: `weight_class`, `verified`, `ranked`, `privacy`, `drag_factor`, `comments`,
// heart rate `ending`/`rest`, intervals' rest distance.
import type { Activity } from '../../../model/activity.ts';
import { ActivityType } from '../../../model/activity-type.ts';
import { UploadType } from '../../../model/enums.ts';
import type { LapSample } from '../../../model/samples.ts';
import { formatDateTime } from '../../../model/time.ts';
import { expectObject, NormalizationError } from '../../../provider-kit/normalize/errors.ts';
import {
  heartRate,
  maxOf,
  minOf,
  numeric,
  positiveOrNull,
} from '../../../provider-kit/normalize/measures.ts';
import { localizationOf, type NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import { activityTypeByParts } from '../../../provider-kit/normalize/sport-names.ts';
import { localTimeOffsetMinutes } from '../../../provider-kit/normalize/time-zones.ts';
import {
  convertOrNull,
  kilocaloriesToKilojoules,
  paceMinutesPerKilometer,
} from '../../../provider-kit/normalize/units.ts';
import type { Concept2Result, Concept2Segment, Concept2Stroke } from './types.ts';

export type Concept2ResultPayload = { result: Concept2Result; strokes?: readonly Concept2Stroke[] | null };

const T = ActivityType;
const machines: Readonly<Record<string, ActivityType>> = {
  rower: T.ROWING_MACHINE,
  dynamic: T.ROWING_MACHINE,
  slides: T.ROWING_MACHINE,
  skierg: T.ERGOMETER,
  bike: T.STATIONARY_BIKING,
  paddle: T.PADDLING,
  water: T.ROWING,
  snow: T.CROSS_COUNTRY_SKIING,
  rollerski: T.ROLLER_SKIING,
  multierg: T.ERGOMETER,
};
/** Machines whose monitor shows pace per 500 m (the BikeErg's is per 1000 m). */
const PACE_PER_500 = new Set(['rower', 'dynamic', 'slides', 'skierg', 'paddle', 'multierg']);

const wallMs = (text: string | null | undefined) =>
  typeof text === 'string' ? Date.parse(`${text.trim().replace(' ', 'T')}Z`) : Number.NaN;

/** Minutes east of UTC of the result's local `date`. */
function offsetOf(result: Concept2Result, context: NormalizeContext): number {
  const local = wallMs(result.date);
  const utc = wallMs(result.date_utc);
  if (Number.isFinite(local) && Number.isFinite(utc)) return Math.round((local - utc) / 900_000) * 15;
  return localTimeOffsetMinutes(result.timezone, result.date) ?? context.userOffsetMinutes ?? 0;
}

function typeOf(machine: string | null | undefined): ActivityType {
  if (!machine) return T.OTHER;
  return machines[machine.toLowerCase()] ?? activityTypeByParts(machine, machines) ?? T.OTHER;
}

/** Watts from a pace in seconds per 500 m (Concept2's published conversion). */
const wattsOf = (secondsPer500: number) => 2.8 / (secondsPer500 / 500) ** 3;

function laps(result: Concept2Result, startMs: number, offset: number): LapSample[] | null {
  const segments: readonly Concept2Segment[] = result.workout?.intervals ?? result.workout?.splits ?? [];
  if (!Array.isArray(segments) || segments.length === 0) return null;
  const out: LapSample[] = [];
  let atMs = startMs;
  for (const segment of segments) {
    const seconds = numeric(segment.time) === null ? null : (numeric(segment.time) as number) / 10;
    const distance = numeric(segment.distance);
    out.push({
      start_time: formatDateTime(atMs, offset),
      end_time: seconds === null ? null : formatDateTime(atMs + seconds * 1000, offset),
      distance_meters: distance,
      avg_speed_meters_per_second: seconds && distance ? distance / seconds : null,
      avg_hr_bpm: heartRate(segment.heart_rate?.average),
      calories: positiveOrNull(segment.calories_total),
      active_duration_seconds: seconds,
    });
    atMs += ((seconds ?? 0) + (numeric(segment.rest_time) ?? 0) / 10) * 1000;
  }
  return out;
}

export function normalizeResult(payload: Concept2ResultPayload, context: NormalizeContext): Activity {
  const result = expectObject('CONCEPT2 result', payload.result) as Concept2Result;
  const item = `CONCEPT2 result ${String(result.id)}`;
  const offset = offsetOf(result, context);
  const local = wallMs(result.date);
  if (!Number.isFinite(local)) throw new NormalizationError(item, `unreadable date "${String(result.date)}"`);
  const startMs = local - offset * 60_000;
  const tenths = numeric(result.time);
  const seconds = tenths === null ? null : tenths / 10;
  const restSeconds = numeric(result.rest_time) === null ? null : (numeric(result.rest_time) as number) / 10;
  const manual = typeof result.source === 'string' && result.source.toLowerCase() === 'web';
  const distance = manual ? positiveOrNull(result.distance) : numeric(result.distance);
  const calories = manual ? positiveOrNull(result.calories_total) : numeric(result.calories_total);
  const machine = (result.type ?? '').toLowerCase();
  const per500 = PACE_PER_500.has(machine);

  const hr: { timestamp: string; bpm: number; timer_duration_seconds: number }[] = [];
  const speed: { timestamp: string; speed_meters_per_second: number; timer_duration_seconds: number }[] = [];
  const cadence: { timestamp: string; cadence_rpm: number; timer_duration_seconds: number }[] = [];
  const power: { timestamp: string; watts: number; timer_duration_seconds: number }[] = [];
  const distances: { timestamp: string; distance_meters: number; timer_duration_seconds: number }[] = [];
  for (const stroke of Array.isArray(payload.strokes) ? payload.strokes : []) {
    const t = numeric(stroke?.t);
    if (t === null || t < 0) continue;
    const at = t / 10;
    const timestamp = formatDateTime(startMs + at * 1000, offset);
    const bpm = heartRate(numeric(stroke.hr));
    if (bpm !== null) hr.push({ timestamp, bpm, timer_duration_seconds: at });
    const pace = numeric(stroke.p);
    if (pace !== null && pace > 0) {
      const secondsPer = pace / 10;
      // Pace is per 500 m on most ergs, per 1000 m on the BikeErg.
      speed.push({
        timestamp,
        speed_meters_per_second: (per500 ? 500 : 1000) / secondsPer,
        timer_duration_seconds: at,
      });
      if (per500) power.push({ timestamp, watts: wattsOf(secondsPer), timer_duration_seconds: at });
    }
    const spm = numeric(stroke.spm);
    if (spm !== null && spm > 0) cadence.push({ timestamp, cadence_rpm: spm, timer_duration_seconds: at });
    const d = numeric(stroke.d);
    if (d !== null) distances.push({ timestamp, distance_meters: d / 10, timer_duration_seconds: at });
  }
  const avgSpeed = distance !== null && seconds ? distance / seconds : null;
  const maxSpeed = maxOf(speed, 'speed_meters_per_second');
  const avgWatts = per500 && avgSpeed ? wattsOf(500 / avgSpeed) : null;

  return {
    metadata: {
      summary_id: String(result.id),
      start_time: formatDateTime(startMs, offset),
      end_time: formatDateTime(startMs + ((seconds ?? 0) + (restSeconds ?? 0)) * 1000, offset),
      type: typeOf(result.type),
      upload_type: manual ? UploadType.MANUAL : UploadType.AUTOMATIC,
      name: result.workout_type ?? null,
      timestamp_localization: localizationOf(offset),
    },
    active_durations_data: { activity_seconds: seconds, rest_seconds: restSeconds },
    calories_data: { total_burned_calories: calories },
    energy_data: { energy_kilojoules: convertOrNull(calories, kilocaloriesToKilojoules) },
    device_data: { name: result.source ?? null, manufacturer: 'Concept2' },
    distance_data: {
      summary: { distance_meters: distance },
      detailed: { distance_samples: distances },
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: heartRate(result.heart_rate?.average),
        max_hr_bpm: heartRate(result.heart_rate?.max) ?? maxOf(hr, 'bpm'),
        min_hr_bpm: heartRate(result.heart_rate?.min) ?? minOf(hr, 'bpm'),
        resting_hr_bpm: heartRate(result.heart_rate?.rest),
        user_max_hr_bpm: context.maxHeartRate ?? null,
      },
      detailed: { hr_samples: hr },
    },
    lap_data: (() => {
      const list = laps(result, startMs, offset);
      return list ? { laps: list } : null;
    })(),
    movement_data: {
      avg_speed_meters_per_second: avgSpeed,
      max_speed_meters_per_second: maxSpeed,
      avg_pace_minutes_per_kilometer: avgSpeed === null ? null : paceMinutesPerKilometer(avgSpeed),
      max_pace_minutes_per_kilometer: maxSpeed === null ? null : paceMinutesPerKilometer(maxSpeed),
      avg_cadence_rpm: positiveOrNull(result.stroke_rate),
      max_cadence_rpm: maxOf(cadence, 'cadence_rpm'),
      speed_samples: speed,
      cadence_samples: cadence,
    },
    power_data: { avg_watts: avgWatts, max_watts: maxOf(power, 'watts'), power_samples: power },
  };
}
