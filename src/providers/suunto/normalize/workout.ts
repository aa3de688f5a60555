// Suunto workout (+ its FIT export) -> Activity.
//
// The workout document gives the totals; the FIT file (GET /v2/workout/exportFit/{key}) the
// samples, laps and what the document lacks. Offsets: `timeOffsetInMinutes`, else the FIT
// device clock, else the user's. Suunto's `hrdata` carries 0 for workouts recorded without a
// heart-rate sensor: no reading.
//
// Cannot map: `recoveryTime` (no slot), `tssList` beyond the first TSS, `extensionTypes`,
// `isEdited`, `userMaxHR`/`hrmax` beyond user_max_hr_bpm, `avgPace` (derived from avgSpeed).
import type { Activity } from '../../../model/activity.ts';
import { ActivityType } from '../../../model/activity-type.ts';
import { UploadType } from '../../../model/enums.ts';
import { formatDateTime } from '../../../model/time.ts';
import { expectObject, NormalizationError } from '../../../provider-kit/normalize/errors.ts';
import { decodeFitActivity, fitSamples } from '../../../provider-kit/normalize/fit.ts';
import { fitLaps, fitSummary } from '../../../provider-kit/normalize/fit-summary.ts';
import {
  heartRate,
  numeric,
  positiveOrNull,
  sensorFigure,
  sensorRead,
} from '../../../provider-kit/normalize/measures.ts';
import { localizationOf, type NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import {
  convertOrNull,
  kilocaloriesToKilojoules,
  paceMinutesPerKilometer,
} from '../../../provider-kit/normalize/units.ts';
import { suuntoActivityType } from './sports.ts';
import type { SuuntoWorkout } from './types.ts';

export type SuuntoWorkoutPayload = { workout: SuuntoWorkout; fit?: Uint8Array | null };

export function normalizeWorkout(payload: SuuntoWorkoutPayload, context: NormalizeContext): Activity {
  const workout = expectObject('SUUNTO workout', payload.workout) as SuuntoWorkout;
  const item = `SUUNTO workout ${String(workout.workoutKey)}`;
  const startMs = numeric(workout.startTime);
  if (startMs === null)
    throw new NormalizationError(item, `unreadable startTime ${String(workout.startTime)}`);
  const fit = payload.fit ? decodeFitActivity(payload.fit, item) : null;
  const offset =
    numeric(workout.timeOffsetInMinutes) ?? fit?.localOffsetMinutes ?? context.userOffsetMinutes ?? 0;
  const samples = fit ? fitSamples(fit, startMs, offset) : null;
  const fromFit = fit && samples ? fitSummary(fit, samples) : null;

  const totalSeconds = numeric(workout.totalTime) ?? fromFit?.elapsedSeconds ?? null;
  const stopMs = numeric(workout.stopTime) ?? (totalSeconds === null ? null : startMs + totalSeconds * 1000);
  const calories = numeric(workout.energyConsumption) ?? fromFit?.calories ?? null;
  const avgSpeed = numeric(workout.avgSpeed) ?? fromFit?.avgSpeed ?? null;
  const maxSpeed = numeric(workout.maxSpeed) ?? fromFit?.maxSpeed ?? null;
  const ascent = numeric(workout.totalAscent) ?? fromFit?.ascent ?? null;
  const descent = numeric(workout.totalDescent) ?? fromFit?.descent ?? null;
  const maxAltitude = numeric(workout.maxAltitude) ?? fromFit?.maxAltitude ?? null;
  const minAltitude = numeric(workout.minAltitude) ?? fromFit?.minAltitude ?? null;
  const lat = numeric(workout.startPosition?.y);
  const lng = numeric(workout.startPosition?.x);
  const positions = samples?.position_samples ?? [];
  const tss = numeric(workout.tss?.trainingStressScore);
  // A workout without a cadence sensor says `cadence: {avg: 0, max: 0}`: no measurement unless
  // the FIT records show the sensor read (sensorFigure).
  const cadenceRead = sensorRead(samples?.cadence_samples, 'cadence_rpm');
  const userMax = heartRate(numeric(workout.hrdata?.userMaxHR) ?? numeric(workout.hrdata?.hrmax));

  return {
    metadata: {
      summary_id: String(workout.workoutKey),
      start_time: formatDateTime(startMs, offset),
      end_time: formatDateTime(stopMs ?? startMs, offset),
      type: fromFit?.multisport ? ActivityType.MULTISPORT : suuntoActivityType(workout.activityId),
      upload_type: workout.isManuallyAdded === true ? UploadType.MANUAL : UploadType.AUTOMATIC,
      name: null,
      timestamp_localization: localizationOf(offset),
    },
    active_durations_data: { activity_seconds: fromFit?.timerSeconds ?? totalSeconds },
    calories_data: { total_burned_calories: calories },
    energy_data: { energy_kilojoules: convertOrNull(calories, kilocaloriesToKilojoules) },
    device_data:
      workout.gear || fit
        ? {
            name: workout.gear?.name ?? fit?.device.product ?? null,
            manufacturer: workout.gear?.manufacturer ?? fit?.device.manufacturer ?? 'Suunto',
            serial_number: workout.gear?.serialNumber ?? fit?.device.serialNumber ?? null,
          }
        : null,
    distance_data: {
      summary: {
        // A manually added workout's 0 m is a field left empty, not a distance.
        distance_meters:
          workout.isManuallyAdded === true
            ? positiveOrNull(numeric(workout.totalDistance))
            : (numeric(workout.totalDistance) ?? fromFit?.distanceMeters ?? null),
        steps: numeric(workout.stepCount),
        elevation:
          ascent === null && descent === null && maxAltitude === null
            ? null
            : {
                gain_actual_meters: ascent,
                loss_actual_meters: descent,
                max_meters: maxAltitude,
                min_meters: minAltitude,
              },
      },
      detailed: {
        distance_samples: samples?.distance_samples ?? [],
        elevation_samples: samples?.elevation_samples ?? [],
      },
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm:
          heartRate(numeric(workout.hrdata?.workoutAvgHR) ?? numeric(workout.hrdata?.avg)) ??
          fromFit?.avgHr ??
          null,
        max_hr_bpm:
          heartRate(numeric(workout.hrdata?.workoutMaxHR) ?? numeric(workout.hrdata?.max)) ??
          fromFit?.maxHr ??
          null,
        min_hr_bpm: fromFit?.minHr ?? null,
        user_max_hr_bpm: userMax ?? context.maxHeartRate ?? null,
      },
      detailed: { hr_samples: samples?.hr_samples ?? [] },
    },
    lap_data: fit && fit.laps.length > 0 ? { laps: fitLaps(fit, offset) } : null,
    movement_data: {
      avg_speed_meters_per_second: avgSpeed,
      max_speed_meters_per_second: maxSpeed,
      avg_pace_minutes_per_kilometer: avgSpeed === null ? null : paceMinutesPerKilometer(avgSpeed),
      max_pace_minutes_per_kilometer: maxSpeed === null ? null : paceMinutesPerKilometer(maxSpeed),
      avg_cadence_rpm:
        sensorFigure(numeric(workout.cadence?.avg), cadenceRead) ?? fromFit?.avgCadence ?? null,
      max_cadence_rpm:
        sensorFigure(numeric(workout.cadence?.max), cadenceRead) ?? fromFit?.maxCadence ?? null,
      speed_samples: samples?.speed_samples ?? [],
      cadence_samples: samples?.cadence_samples ?? [],
    },
    position_data: {
      start_pos_lat_lng_deg:
        lat !== null && lng !== null ? [lat, lng] : (positions[0]?.coords_lat_lng_deg ?? null),
      end_pos_lat_lng_deg: positions[positions.length - 1]?.coords_lat_lng_deg ?? null,
      position_samples: positions,
    },
    power_data: {
      avg_watts: fromFit?.avgWatts ?? null,
      max_watts: fromFit?.maxWatts ?? null,
      power_samples: samples?.power_samples ?? [],
    },
    TSS_data:
      tss === null
        ? null
        : {
            TSS_samples: [
              {
                planned: null,
                actual: tss,
                method: workout.tss?.calculationMethod ?? null,
                intensity_factor_planned: null,
                intensity_factor_actual: null,
                normalized_power_watts: null,
              },
            ],
          },
  };
}
