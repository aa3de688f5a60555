// Body records: the morning weigh-in, blood pressure, temperatures, glucose and spot checks.
import type { Body } from '../../model/body.ts';
import { AFibFlag, HeartRateContext, KetoneSampleType, OxygenSaturationType } from '../../model/enums.ts';
import { dayNumberToIsoDate } from '../../model/time.ts';
import { workoutsOfDay } from './activity.ts';
import { type DayContext, MINUTE_MS } from './context.ts';
import { cycleDay } from './cycle.ts';
import { deviceData } from './device.ts';
import { GLUCOSE_INTERVAL_MS, glucoseDay, glucoseFlag, glucoseSummary, trendArrow } from './glucose.ts';
import { dayWaterMl } from './nutrition.ts';
import { hashString, Random } from './random.ts';
import { clamp, max, mean, min, round } from './series.ts';
import { sleepWindow } from './sleep-window.ts';

/**
 * Weight follows slow seasonal and monthly waves around the athlete's base weight, plus water
 * retention late in the cycle; a pure function of the day, so any range shows the same trend.
 */
function weightOn(context: DayContext, random: Random): number {
  const { profile, dayNumber } = context;
  const phase = (hashString(`${context.seed}|weight-phase`) / 2 ** 32) * 2 * Math.PI;
  const cycle = cycleDay(context.seed, dayNumber);
  const retention = cycle.dayInCycle > cycle.cycleLength - 5 ? 0.5 : 0;
  const wave =
    1.4 * Math.sin((2 * Math.PI * dayNumber) / 365 + phase) +
    0.6 * Math.sin((2 * Math.PI * dayNumber) / 47 + phase);
  return round(profile.baseWeightKg + wave + retention + random.normal(0, 0.2), 1);
}

export function generateBody(context: DayContext): Body[] {
  const { profile } = context;
  const random = new Random(context.seed, context.date, 'body');
  const sample = <T>(build: () => T[]): T[] => (context.withSamples ? build() : []);
  const cycle = cycleDay(context.seed, context.dayNumber);
  const luteal = cycle.dayInCycle > cycle.ovulationDay;
  const night = sleepWindow(context.seed, dayNumberToIsoDate(context.dayNumber - 1), context.offsetMinutes);
  const weighInMs = night.endMs + random.int(10, 40) * MINUTE_MS;
  const weight = weightOn(context, random);
  const bodyFat = round(
    profile.bodyFatPercent + 0.4 * (weight - profile.baseWeightKg) + random.normal(0, 0.3),
    1,
  );
  const leanKg = weight * (1 - bodyFat / 100);
  const waterPercent = round(clamp(73 * (1 - bodyFat / 100), 40, 65), 1);
  const bmr = Math.round(10 * weight + 6.25 * profile.heightCm - 5 * 32 - 161);
  const measurement = {
    measurement_time: context.time(weighInMs),
    BMI: round(weight / (profile.heightCm / 100) ** 2, 2),
    BMR: bmr,
    RMR: Math.round(bmr * 1.05),
    skin_fold_mm: null,
    bodyfat_percentage: bodyFat,
    weight_kg: weight,
    height_cm: profile.heightCm,
    bone_mass_g: Math.round(weight * 40),
    muscle_mass_g: Math.round(leanKg * 1000 * 0.93),
    lean_mass_g: Math.round(leanKg * 1000),
    water_percentage: waterPercent,
    insulin_units: null,
    estimated_fitness_age: Math.round(clamp(70 - profile.vo2max, 18, 70)),
    insulin_type: null,
    urine_color: null,
    user_notes: null,
    visceral_fat_level: round(2 + bodyFat * 0.12, 1),
    visceral_fat_category: 'normal',
  };
  const pressureTimes = [
    weighInMs + 5 * MINUTE_MS,
    context.startMs + random.int(19 * 60, 21 * 60) * MINUTE_MS,
  ];
  const pressures = pressureTimes.map(() => ({
    systolic: Math.round(profile.systolicBp + random.normal(0, 5)),
    diastolic: Math.round(profile.diastolicBp + random.normal(0, 3.5)),
    pulse: Math.round(profile.restingHr + 6 + random.normal(0, 3)),
  }));
  const pulses = pressures.map((reading) => reading.pulse);
  const hydrationKg = round((weight * waterPercent) / 100, 2);
  const ecgToday = context.dayNumber % 7 === hashString(`${context.seed}|ecg-day`) % 7;
  const ketoneToday = context.dayNumber % 4 === hashString(`${context.seed}|ketone-day`) % 4;
  const spotChecks = [weighInMs + 10 * MINUTE_MS, context.startMs + random.int(13 * 60, 17 * 60) * MINUTE_MS];
  const spotOxygen = spotChecks.map(() => round(clamp(random.normal(97.5, 0.7), 94, 100), 1));
  const skinTimes: number[] = [];
  for (let at = night.startMs; at < night.endMs; at += 60 * MINUTE_MS) skinTimes.push(at);
  const workouts = workoutsOfDay({ ...context, withSamples: false });
  const glucose = glucoseDay(context, workouts);
  const rrStart = weighInMs + 12 * MINUTE_MS;
  return [
    {
      metadata: {
        start_time: context.time(context.startMs),
        end_time: context.time(context.endMs),
        timestamp_localization: context.timestampLocalization,
      },
      blood_pressure_data: {
        blood_pressure_samples: sample(() =>
          pressureTimes.map((at, index) => ({
            timestamp: context.time(at),
            diastolic_bp: pressures[index]?.diastolic ?? null,
            systolic_bp: pressures[index]?.systolic ?? null,
          })),
        ),
        day_avg_systolic_bp: round(mean(pressures.map((reading) => reading.systolic)), 2),
        day_avg_diastolic_bp: round(mean(pressures.map((reading) => reading.diastolic)), 2),
      },
      heart_data: {
        heart_rate_data: {
          summary: {
            avg_hr_bpm: round(mean(pulses), 2),
            avg_hrv_rmssd: null,
            avg_hrv_sdnn: null,
            hr_zone_data: [],
            max_hr_bpm: max(pulses),
            min_hr_bpm: min(pulses),
            resting_hr_bpm: profile.restingHr,
            user_max_hr_bpm: profile.maxHr,
          },
          detailed: {
            hr_samples: sample(() =>
              pressureTimes.map((at, index) => ({
                timestamp: context.time(at),
                bpm: pulses[index] ?? null,
                context: HeartRateContext.NOT_ACTIVE,
              })),
            ),
            hrv_samples_rmssd: [],
            hrv_samples_sdnn: [],
          },
        },
        afib_classification_samples: sample(() =>
          ecgToday ? [{ timestamp: context.time(rrStart), afib_classification: AFibFlag.NEGATIVE }] : [],
        ),
        ecg_signal: sample(() => (ecgToday ? [ecgReading(context, rrStart, profile.restingHr + 8)] : [])),
        pulse_wave_velocity_samples: sample(() => [
          {
            timestamp: context.time(weighInMs),
            pulse_wave_velocity_meters_per_second: round(random.between(6, 7.8), 2),
          },
        ]),
        rr_interval_samples: sample(() => rrIntervals(context, random, rrStart, profile.restingHr + 4)),
      },
      hydration_data: {
        day_total_water_consumption_ml: dayWaterMl(context),
        hydration_amount_samples: sample(() => [
          { timestamp: context.time(weighInMs), hydration_kg: hydrationKg },
        ]),
        hydration_level_samples: [],
        day_avg_hydration_kg: hydrationKg,
      },
      ketone_data: {
        ketone_samples: sample(() =>
          ketoneToday
            ? [
                {
                  timestamp: context.time(weighInMs + 20 * MINUTE_MS),
                  ketone_mg_per_dL: round(random.between(1, 6), 2),
                  sample_type: KetoneSampleType.BLOOD,
                },
              ]
            : [],
        ),
      },
      measurements_data: {
        measurements: [measurement],
        day_avg_bmi: measurement.BMI,
        day_avg_bmr: measurement.BMR,
        day_avg_rmr: measurement.RMR,
        day_avg_bodyfat_percentage: measurement.bodyfat_percentage,
        day_avg_weight_kg: measurement.weight_kg,
        day_avg_height_cm: measurement.height_cm,
        day_avg_bone_mass_g: measurement.bone_mass_g,
        day_avg_muscle_mass_g: measurement.muscle_mass_g,
        day_avg_lean_mass_g: measurement.lean_mass_g,
        day_avg_water_percentage: measurement.water_percentage,
        day_avg_visceral_fat_level: measurement.visceral_fat_level,
      },
      oxygen_data: {
        avg_saturation_percentage: round(mean(spotOxygen), 2),
        saturation_samples: sample(() =>
          spotChecks.map((at, index) => ({
            timestamp: context.time(at),
            percentage: spotOxygen[index] ?? null,
            type: OxygenSaturationType.BLOOD_SPO2,
          })),
        ),
        vo2_samples: [],
        vo2max_ml_per_min_per_kg: profile.vo2max,
      },
      temperature_data: {
        ambient_temperature_samples: sample(() =>
          pressureTimes.map((at) => ({
            timestamp: context.time(at),
            temperature_celsius: round(random.between(19, 22.5), 1),
          })),
        ),
        body_temperature_samples: sample(() => [
          {
            timestamp: context.time(weighInMs),
            temperature_celsius: round(36.4 + (luteal ? 0.3 : 0) + random.normal(0, 0.08), 2),
          },
        ]),
        skin_temperature_samples: sample(() =>
          skinTimes.map((at) => ({
            timestamp: context.time(at),
            temperature_celsius: round(34 + (luteal ? 0.3 : 0) + random.normal(0, 0.2), 2),
          })),
        ),
      },
      glucose_data: {
        blood_glucose_samples: sample(() => glucoseSamples(context, glucose.values, 3)),
        detailed_blood_glucose_samples: sample(() => glucoseSamples(context, glucose.values, 1)),
        ...glucoseSummary(glucose),
      },
      device_data: deviceData(context, 'scale', weighInMs + MINUTE_MS),
    },
  ];
}

function glucoseSamples(context: DayContext, values: readonly number[], every: number) {
  const samples = [];
  for (let index = 0; index < values.length; index += every) {
    const value = values[index] ?? 0;
    samples.push({
      timestamp: context.time(context.startMs + index * GLUCOSE_INTERVAL_MS),
      blood_glucose_mg_per_dL: value,
      glucose_level_flag: glucoseFlag(value),
      trend_arrow: trendArrow(values, index),
    });
  }
  return samples;
}

/** One minute of beat-to-beat intervals from a morning reading. */
function rrIntervals(context: DayContext, random: Random, startMs: number, heartRate: number) {
  const samples = [];
  let at = startMs;
  while (at < startMs + 60_000) {
    const interval = Math.round(60_000 / heartRate + random.normal(0, 35));
    samples.push({
      timestamp: context.time(at),
      rr_interval_ms: interval,
      hr_bpm: round(60_000 / interval, 1),
    });
    at += interval;
  }
  return samples;
}

/** Two seconds of a single-lead ECG at 100 Hz: a stylised P-QRS-T per beat. */
function ecgReading(context: DayContext, startMs: number, heartRate: number) {
  const beatMs = 60_000 / heartRate;
  const raw_signal = Array.from({ length: 200 }, (_, index) => {
    const phase = ((index * 10) % beatMs) / beatMs;
    const wave = (center: number, width: number, height: number) =>
      height * Math.exp(-(((phase - center) / width) ** 2));
    const potential =
      wave(0.15, 0.025, 120) -
      wave(0.245, 0.008, 90) +
      wave(0.26, 0.012, 1100) -
      wave(0.275, 0.01, 250) +
      wave(0.5, 0.05, 280);
    return { timestamp: context.time(startMs + index * 10), potential_uV: round(potential, 1) };
  });
  return {
    start_timestamp: context.time(startMs),
    avg_hr_bpm: heartRate,
    afib_classification: AFibFlag.NEGATIVE,
    raw_signal,
  };
}
