// The summary of a FIT activity over all its sessions, and its laps or legs.
//
// A FIT file holds one session per sport it recorded: a triathlon is swim, transition, bike,
// transition, run, five sessions in one file (FIT SDK, "Activity file": multisport activities
// have one session message per leg, and laps belong to the session they fall in). Reading only
// the first session makes a 52 km triathlon a 1.6 km swim, so every figure here is taken over
// all sessions: totals add up, maxima and minima are the extremes, averages are weighted by
// each leg's timer time, elapsed time runs from the first leg's start to the last leg's end.
// Figures that do not add up across sports are left out of a multisport summary: cadence (swim
// strokes, bike rpm and run steps are different units) and normalized power (not an average
// that can be combined). The legs are kept as laps, one per session (see `fitLaps`).
//
// Power, cadence, TSS and work of 0 where the records hold no reading of that sensor are
// placeholders, not measurements (measures.ts `sensorFigure`).
import type { LapSample } from '../../model/samples.ts';
import { formatDateTime } from '../../model/time.ts';
import { type FitActivity, type FitMessage, type FitSamples, ms, num, text } from './fit.ts';
import { heartRate, maxOf, minOf, sensorFigure, sensorRead } from './measures.ts';

export type FitSummary = {
  startMs: number | null;
  elapsedSeconds: number | null;
  timerSeconds: number | null;
  distanceMeters: number | null;
  calories: number | null;
  avgHr: number | null;
  maxHr: number | null;
  minHr: number | null;
  avgWatts: number | null;
  maxWatts: number | null;
  normalizedWatts: number | null;
  tss: number | null;
  workJoules: number | null;
  avgSpeed: number | null;
  maxSpeed: number | null;
  avgCadence: number | null;
  maxCadence: number | null;
  ascent: number | null;
  descent: number | null;
  maxAltitude: number | null;
  minAltitude: number | null;
  /** The session's sport; `multisport` when the legs are of more than one sport. */
  sport: string | null;
  subSport: string | null;
  /** Sessions (legs) in the file. */
  legs: number;
  /** The legs are of more than one sport (transitions aside): a multisport activity. */
  multisport: boolean;
};

type Leg = {
  startMs: number | null;
  elapsed: number | null;
  timer: number | null;
  session: FitMessage;
};

const legsOf = (fit: FitActivity): Leg[] =>
  fit.sessions
    .map((session) => ({
      startMs: ms(session.startTime),
      elapsed: num(session.totalElapsedTime),
      timer: num(session.totalTimerTime),
      session,
    }))
    .sort((a, b) => (a.startMs ?? 0) - (b.startMs ?? 0));

/** The sum of the legs' values; null when no leg has one. */
function total(legs: readonly Leg[], read: (leg: Leg) => number | null): number | null {
  let sum: number | null = null;
  for (const leg of legs) {
    const value = read(leg);
    if (value !== null) sum = (sum ?? 0) + value;
  }
  return sum;
}

function extreme(legs: readonly Leg[], read: (leg: Leg) => number | null, pick: typeof Math.max) {
  let found: number | null = null;
  for (const leg of legs) {
    const value = read(leg);
    if (value !== null) found = found === null ? value : pick(found, value);
  }
  return found;
}

/** The timer-weighted mean of the legs that have a value (the only one's value when one has it). */
function weighted(legs: readonly Leg[], read: (leg: Leg) => number | null): number | null {
  const having = legs.filter((leg) => read(leg) !== null);
  if (having.length === 1) return read(having[0]!);
  let seconds = 0;
  let sum = 0;
  for (const leg of having) {
    if (leg.timer === null || leg.timer <= 0) continue;
    seconds += leg.timer;
    sum += read(leg)! * leg.timer;
  }
  return seconds > 0 ? sum / seconds : null;
}

const field =
  (...names: string[]) =>
  (leg: Leg): number | null => {
    for (const name of names) {
      const value = num(leg.session[name]);
      if (value !== null) return value;
    }
    return null;
  };

function elapsedOf(legs: readonly Leg[]): number | null {
  if (legs.length === 1) return legs[0]!.elapsed;
  const first = legs[0]!;
  const last = legs[legs.length - 1]!;
  // Clock time from the first start to the last end: the pauses between legs are part of it.
  if (first.startMs !== null && last.startMs !== null && last.elapsed !== null)
    return (last.startMs - first.startMs) / 1000 + last.elapsed;
  return total(legs, (leg) => leg.elapsed);
}

function sportOf(legs: readonly Leg[]): { sport: string | null; multisport: boolean } {
  const sports = new Set(
    legs.map((leg) => text(leg.session.sport)).filter((sport) => sport !== null && sport !== 'transition'),
  );
  if (sports.size > 1) return { sport: 'multisport', multisport: true };
  return { sport: text(legs[0]?.session.sport), multisport: false };
}

export function fitSummary(fit: FitActivity, samples: FitSamples): FitSummary {
  const legs = legsOf(fit);
  const single = legs.length <= 1;
  const { sport, multisport } = sportOf(legs);
  const cadenceRead = sensorRead(samples.cadence_samples, 'cadence_rpm');
  const powerRead = sensorRead(samples.power_samples, 'watts');
  const bpm = (...names: string[]) => {
    const read = field(...names);
    return (leg: Leg) => heartRate(read(leg));
  };
  const distance = total(legs, field('totalDistance'));
  const elapsed = legs.length === 0 ? null : elapsedOf(legs);
  const summed = total(legs, (leg) => leg.timer);
  // Recorded legs can overlap (a Fenix 2 multisport file's first leg runs past the second's
  // start); time in motion never exceeds the clock time of the whole activity.
  const timer = summed !== null && elapsed !== null && !single ? Math.min(summed, elapsed) : summed;
  const watts = (name: string) => {
    const read = field(name);
    return (leg: Leg) => sensorFigure(read(leg), powerRead);
  };
  return {
    startMs: legs[0]?.startMs ?? ms(fit.records[0]?.timestamp),
    elapsedSeconds: elapsed,
    timerSeconds: timer,
    distanceMeters: distance,
    calories: total(legs, field('totalCalories')),
    avgHr: weighted(legs, bpm('avgHeartRate')),
    maxHr: extreme(legs, bpm('maxHeartRate'), Math.max) ?? maxOf(samples.hr_samples, 'bpm'),
    minHr: extreme(legs, bpm('minHeartRate'), Math.min) ?? minOf(samples.hr_samples, 'bpm'),
    avgWatts: weighted(legs, watts('avgPower')),
    maxWatts: sensorFigure(
      extreme(legs, watts('maxPower'), Math.max) ?? maxOf(samples.power_samples, 'watts'),
      powerRead,
    ),
    normalizedWatts: single ? sensorFigure(field('normalizedPower')(legs[0] ?? EMPTY), powerRead) : null,
    tss: sensorFigure(total(legs, field('trainingStressScore')), powerRead),
    workJoules: sensorFigure(total(legs, field('totalWork')), powerRead),
    avgSpeed: single
      ? field('enhancedAvgSpeed', 'avgSpeed')(legs[0] ?? EMPTY)
      : distance !== null && timer
        ? distance / timer
        : null,
    maxSpeed:
      extreme(legs, field('enhancedMaxSpeed', 'maxSpeed'), Math.max) ??
      maxOf(samples.speed_samples, 'speed_meters_per_second'),
    avgCadence: multisport ? null : sensorFigure(weighted(legs, field('avgCadence')), cadenceRead),
    maxCadence: multisport
      ? null
      : sensorFigure(
          extreme(legs, field('maxCadence'), Math.max) ?? maxOf(samples.cadence_samples, 'cadence_rpm'),
          cadenceRead,
        ),
    ascent: total(legs, field('totalAscent')),
    descent: total(legs, field('totalDescent')),
    maxAltitude:
      extreme(legs, field('enhancedMaxAltitude', 'maxAltitude'), Math.max) ??
      maxOf(samples.elevation_samples, 'elev_meters'),
    minAltitude:
      extreme(legs, field('enhancedMinAltitude', 'minAltitude'), Math.min) ??
      minOf(samples.elevation_samples, 'elev_meters'),
    sport,
    subSport: single ? text(legs[0]?.session.subSport) : null,
    legs: legs.length,
    multisport,
  };
}

const EMPTY: Leg = { startMs: null, elapsed: null, timer: null, session: {} };

/** `sessionEnd` -> `SESSION_END`: the model's spelling of FIT's lap triggers. */
const triggerName = (value: unknown) =>
  text(value)
    ?.replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase() ?? null;

function lapSample(message: FitMessage, offsetMinutes: number, trigger: string | null): LapSample | null {
  const startMs = ms(message.startTime);
  if (startMs === null) return null;
  const elapsed = num(message.totalElapsedTime);
  return {
    start_time: formatDateTime(startMs, offsetMinutes),
    end_time: elapsed === null ? null : formatDateTime(startMs + elapsed * 1000, offsetMinutes),
    distance_meters: num(message.totalDistance),
    avg_speed_meters_per_second: num(message.enhancedAvgSpeed) ?? num(message.avgSpeed),
    avg_hr_bpm: heartRate(num(message.avgHeartRate)),
    avg_watts: num(message.avgPower),
    calories: num(message.totalCalories),
    active_duration_seconds: num(message.totalTimerTime),
    trigger_method: trigger,
  };
}

/**
 * The laps written at `offsetMinutes`. A file of several sessions (a multisport activity) gives
 * its legs instead, one lap per session in order, each ended by `SESSION_END`: the leg is what
 * the activity is made of, and the model has one lap list.
 */
export function fitLaps(fit: FitActivity, offsetMinutes: number): LapSample[] {
  const laps: LapSample[] = [];
  if (fit.sessions.length > 1) {
    for (const leg of legsOf(fit)) {
      const lap = lapSample(leg.session, offsetMinutes, 'SESSION_END');
      if (lap) laps.push(lap);
    }
    return laps;
  }
  for (const message of fit.laps) {
    const lap = lapSample(message, offsetMinutes, triggerName(message.lapTrigger));
    if (lap) laps.push(lap);
  }
  return laps;
}
