// Which workouts happen on a day, and their time series as plain numbers.
//
// Series are always simulated in full, whether or not samples are requested: summaries are
// computed from them, so `with_samples` can never change a summary value.
import { dayNumberToIsoDate } from '../../model/time.ts';
import { type DayContext, MINUTE_MS } from './context.ts';
import { Random } from './random.ts';
import { clamp, round } from './series.ts';
import { sleepWindow } from './sleep-window.ts';
import { WORKOUT_KINDS, type WorkoutKind } from './workout-kinds.ts';

export { POOL_LENGTH_METERS, WORKOUT_KINDS, type WorkoutKind } from './workout-kinds.ts';

/** Spacing of workout samples. Denser samples would multiply memory for long ranges. */
export const WORKOUT_SAMPLE_SECONDS = 30;

export interface WorkoutPlan {
  /** Position of the workout within its day, 0-based. */
  index: number;
  kind: WorkoutKind;
  startMs: number;
  durationSeconds: number;
  intensity: number;
  baseSpeed: number;
  baseCadence: number;
  /** Stream name for this workout's series. */
  streamKey: string;
}

export interface WorkoutSeries {
  plan: WorkoutPlan;
  /** Samples are at startMs + i * WORKOUT_SAMPLE_SECONDS, i = 0..intervals. */
  intervals: number;
  heartRate: Float64Array;
  speed: Float64Array | null;
  /** Cumulative metres, rounded to the centimetre. */
  distance: Float64Array | null;
  cadence: Float64Array | null;
  power: Float64Array | null;
  torque: Float64Array | null;
  elevation: Float64Array | null;
  latitude: Float64Array | null;
  longitude: Float64Array | null;
  /** Amounts in the interval ending at sample i (index 0 is always 0). */
  calories: Float64Array;
  steps: Float64Array;
  strokes: Float64Array | null;
  /** MET per whole minute of the workout. */
  minuteMet: Float64Array;
  /** HRV (RMSSD, ms) every five minutes. */
  hrv: Float64Array;
}

/** Morning and evening windows, in minutes after local midnight. */
const EVENING_START: readonly [number, number] = [17 * 60 + 30, 19 * 60];

export function planWorkouts(context: DayContext): WorkoutPlan[] {
  const random = new Random(context.seed, context.date, 'workout-plan');
  const count = random.weighted([
    [0, 0.35],
    [1, 0.55],
    [2, 0.1],
  ] as const);
  const plans: WorkoutPlan[] = [];
  // The night before ends this morning; a morning workout starts after waking.
  const wakeMs = sleepWindow(context.seed, dateBefore(context), context.offsetMinutes).endMs;
  const slots = count === 2 ? ['morning', 'evening'] : [random.chance(0.4) ? 'morning' : 'evening'];
  for (const [index, slot] of slots.slice(0, count).entries()) {
    const kind = WORKOUT_KINDS[random.weighted(context.profile.sportWeights)];
    const minutes = random.int(kind.durationMinutes[0], kind.durationMinutes[1]);
    const startMs =
      slot === 'morning'
        ? wakeMs + random.int(20, 60) * MINUTE_MS
        : context.startMs + random.int(EVENING_START[0], EVENING_START[1]) * MINUTE_MS;
    const speedFactor = kind.key === 'run' ? context.profile.runSpeed / 2.9 : 1;
    plans.push({
      index,
      kind,
      startMs,
      durationSeconds: minutes * 60,
      intensity: random.between(kind.intensityRange[0], kind.intensityRange[1]),
      baseSpeed: random.between(kind.speedRange[0], kind.speedRange[1]) * speedFactor,
      baseCadence: kind.cadenceRange ? random.between(kind.cadenceRange[0], kind.cadenceRange[1]) : 0,
      streamKey: `${context.seed}|${context.date}|workout|${index}`,
    });
  }
  return plans;
}

function dateBefore(context: DayContext): string {
  return dayNumberToIsoDate(context.dayNumber - 1);
}

/** Fraction of heart-rate reserve at elapsed time `t`, before noise. */
function effort(plan: WorkoutPlan, t: number): number {
  const duration = plan.durationSeconds;
  const warmup = Math.min(600, duration * 0.15);
  const cooldown = Math.min(300, duration * 0.1);
  let factor = 1;
  if (t < warmup) factor = 0.6 + 0.4 * (t / warmup);
  else if (t > duration - cooldown) factor = 1 - 0.25 * ((t - (duration - cooldown)) / cooldown);
  let value = plan.intensity * factor + 0.04 * (t / duration); // cardiac drift
  // Strength: 45 s sets, then rest.
  if (plan.kind.key === 'strength') value += t % 150 < 45 ? 0.15 : -0.12;
  return value;
}

/** MET from fraction of heart-rate reserve: about 3 walking, 10 running hard. */
function metFromEffort(fraction: number): number {
  return 1 + 11 * clamp(fraction, 0, 1) ** 1.2;
}

export function simulateWorkout(context: DayContext, plan: WorkoutPlan): WorkoutSeries {
  const random = new Random(plan.streamKey, 'series');
  const { profile } = context;
  const { kind } = plan;
  const intervals = plan.durationSeconds / WORKOUT_SAMPLE_SECONDS;
  const length = intervals + 1;
  const heartRate = new Float64Array(length);
  const fractions = new Float64Array(length);
  const speed = kind.moving ? new Float64Array(length) : null;
  const distance = kind.moving ? new Float64Array(length) : null;
  const cadence = kind.cadenceRange ? new Float64Array(length) : null;
  const calories = new Float64Array(length);
  const steps = new Float64Array(length);
  const strokes = kind.key === 'swim' ? new Float64Array(length) : null;
  let noise = 0;
  let travelled = 0;
  for (let i = 0; i < length; i++) {
    const t = i * WORKOUT_SAMPLE_SECONDS;
    noise = 0.85 * noise + random.normal(0, 0.02);
    const fraction = clamp(effort(plan, t) + noise, 0.05, 0.98);
    fractions[i] = fraction;
    heartRate[i] = Math.round(profile.restingHr + fraction * (profile.maxHr - profile.restingHr));
    if (speed && distance) {
      const value =
        plan.baseSpeed * (1 + 1.2 * (fraction - plan.intensity)) + random.normal(0, 0.03 * plan.baseSpeed);
      speed[i] = round(clamp(value, 0.3 * plan.baseSpeed, 1.6 * plan.baseSpeed), 2);
      if (i > 0) travelled += (speed[i] ?? 0) * WORKOUT_SAMPLE_SECONDS;
      distance[i] = round(travelled, 2);
    }
    if (cadence)
      cadence[i] = Math.round(plan.baseCadence + 12 * (fraction - plan.intensity) + random.normal(0, 1));
    if (i > 0) {
      const met = metFromEffort(fraction);
      calories[i] = round(((met * 3.5 * profile.baseWeightKg) / 200) * (WORKOUT_SAMPLE_SECONDS / 60), 2);
      const revolutions = ((cadence?.[i] ?? 0) * WORKOUT_SAMPLE_SECONDS) / 60;
      steps[i] = Math.round(revolutions * kind.stepsPerRevolution);
      if (strokes) strokes[i] = Math.round(revolutions);
    }
  }
  const elevation = kind.outdoor && distance ? elevationProfile(context, plan, distance) : null;
  const route = kind.outdoor && distance ? loopRoute(context, plan, distance) : null;
  const power = kind.hasPower ? powerSeries(context, random, fractions, plan, elevation, distance) : null;
  return {
    plan,
    intervals,
    heartRate,
    speed,
    distance,
    cadence,
    power,
    torque: power && cadence ? torqueSeries(power, cadence) : null,
    elevation,
    latitude: route?.latitude ?? null,
    longitude: route?.longitude ?? null,
    calories,
    steps,
    strokes,
    minuteMet: minuteMets(fractions, plan.durationSeconds / 60),
    hrv: hrvSeries(random, fractions, plan, context.profile.baselineHrvMs),
  };
}

function minuteMets(fractions: Float64Array, minutes: number): Float64Array {
  const perMinute = 60 / WORKOUT_SAMPLE_SECONDS;
  const result = new Float64Array(minutes);
  for (let minute = 0; minute < minutes; minute++) {
    let total = 0;
    for (let step = 1; step <= perMinute; step++)
      total += metFromEffort(fractions[minute * perMinute + step] ?? 0);
    result[minute] = round(total / perMinute, 1);
  }
  return result;
}

function hrvSeries(
  random: Random,
  fractions: Float64Array,
  plan: WorkoutPlan,
  baseline: number,
): Float64Array {
  const everySamples = 300 / WORKOUT_SAMPLE_SECONDS;
  const count = Math.floor((fractions.length - 1) / everySamples) + 1;
  const result = new Float64Array(count);
  for (let k = 0; k < count; k++) {
    const fraction = fractions[k * everySamples] ?? plan.intensity;
    result[k] = round(Math.max(3, baseline * (0.45 - 0.4 * fraction) + random.normal(0, 1.5)), 1);
  }
  return result;
}

function elevationProfile(context: DayContext, plan: WorkoutPlan, distance: Float64Array): Float64Array {
  const random = new Random(plan.streamKey, 'terrain');
  const [phaseA, phaseB] = [random.between(0, 2 * Math.PI), random.between(0, 2 * Math.PI)];
  const hilliness = random.between(4, 18);
  const base = context.profile.home.elevationMeters;
  return distance.map((meters) =>
    round(
      base +
        hilliness * Math.sin((2 * Math.PI * meters) / 1600 + phaseA) +
        4 * Math.sin((2 * Math.PI * meters) / 370 + phaseB),
      1,
    ),
  );
}

/** A closed loop from home: the route ends where it started, like most training routes. */
function loopRoute(context: DayContext, plan: WorkoutPlan, distance: Float64Array) {
  const random = new Random(plan.streamKey, 'route');
  const total = distance[distance.length - 1] || 1;
  const radius = total / (2 * Math.PI);
  const heading = random.between(0, 2 * Math.PI);
  const { latitude: lat0, longitude: lng0 } = context.profile.home;
  const metersPerDegreeLat = 111_320;
  const metersPerDegreeLng = 111_320 * Math.cos((lat0 * Math.PI) / 180);
  const latitude = new Float64Array(distance.length);
  const longitude = new Float64Array(distance.length);
  for (let i = 0; i < distance.length; i++) {
    const angle = heading + (2 * Math.PI * (distance[i] ?? 0)) / total;
    const wobble = radius * (1 + 0.08 * Math.sin(5 * (angle - heading)));
    const north = wobble * Math.sin(angle) - radius * Math.sin(heading);
    const east = wobble * Math.cos(angle) - radius * Math.cos(heading);
    latitude[i] = round(lat0 + north / metersPerDegreeLat, 6);
    longitude[i] = round(lng0 + east / metersPerDegreeLng, 6);
  }
  return { latitude, longitude };
}

function powerSeries(
  context: DayContext,
  random: Random,
  fractions: Float64Array,
  plan: WorkoutPlan,
  elevation: Float64Array | null,
  distance: Float64Array | null,
): Float64Array {
  const result = new Float64Array(fractions.length);
  for (let i = 0; i < fractions.length; i++) {
    let grade = 0;
    if (i > 0 && elevation && distance) {
      const run = (distance[i] ?? 0) - (distance[i - 1] ?? 0);
      grade = run > 0 ? ((elevation[i] ?? 0) - (elevation[i - 1] ?? 0)) / run : 0;
    }
    const relative = (fractions[i] ?? 0) / plan.intensity;
    const watts = context.profile.ftpWatts * 0.72 * relative * (1 + 4 * grade) + random.normal(0, 8);
    result[i] = Math.max(0, Math.round(watts));
  }
  return result;
}

function torqueSeries(power: Float64Array, cadence: Float64Array): Float64Array {
  return power.map((watts, i) => {
    const rpm = cadence[i] ?? 0;
    return rpm > 0 ? round(watts / ((rpm * 2 * Math.PI) / 60), 2) : 0;
  });
}
