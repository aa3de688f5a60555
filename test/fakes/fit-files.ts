// FIT activity files for the fakes of providers that serve them (Wahoo, Suunto), written with
// Garmin's own SDK Encoder: file id, device info, one record every `stepSeconds` (heart rate,
// power, cadence, speed, distance, altitude, position), laps, the session, and the activity
// message whose local_timestamp carries the device clock's offset. Deterministic per seed.
import { Encoder, Profile } from '@garmin/fitsdk';
import { seeded } from './fake-server.ts';

const FIT_EPOCH_S = 631_065_600;
const MESG = Profile.MesgNum as unknown as Record<
  'FILE_ID' | 'RECORD' | 'LAP' | 'SESSION' | 'ACTIVITY',
  number
>;
const DEGREES_TO_SEMICIRCLES = 2 ** 31 / 180;

export type FitPlan = {
  seed: string;
  startMs: number;
  durationSeconds: number;
  /** Device clock offset (minutes east of UTC), written as the activity's local_timestamp. */
  offsetMinutes: number;
  sport: 'cycling' | 'running' | 'walking' | 'training';
  stepSeconds?: number;
  /** Indexes of records whose heart rate is the placeholder 0 (a strap losing contact). */
  dropHeartRateAt?: readonly number[];
  manufacturer?: string;
  startLatLng?: [number, number];
  /** Leave maxima out of the session (they must then come from the records). */
  omitMaxima?: boolean;
  /**
   * Record no cadence and no power (a ride without those sensors) while the session still says
   * 0 for average cadence, power, normalized power, TSS and work, as head units do.
   */
  withoutCadenceAndPower?: boolean;
};

export type FitFacts = {
  records: number;
  distanceMeters: number;
  maxHr: number;
  maxPower: number;
  maxSpeed: number;
  avgHr: number;
  ascent: number;
};

export function buildActivityFit(plan: FitPlan): { bytes: Uint8Array; facts: FitFacts } {
  const random = seeded(plan.seed);
  const step = plan.stepSeconds ?? 5;
  const encoder = new Encoder();
  // The SDK types messages loosely (Mesg); fields are checked by the profile when encoding.
  const write = (mesgNum: number, mesg: Record<string, unknown>): void => {
    encoder.onMesg(mesgNum, mesg as never);
  };
  const start = new Date(plan.startMs);
  const end = new Date(plan.startMs + plan.durationSeconds * 1000);
  write(MESG.FILE_ID, {
    type: 'activity',
    manufacturer: plan.manufacturer ?? 'wahooFitness',
    product: 31,
    timeCreated: start,
    serialNumber: 1_234_567,
  });
  const count = Math.floor(plan.durationSeconds / step) + 1;
  let distance = 0;
  let altitude = 40 + random.between(0, 20);
  let ascent = 0;
  let lat = plan.startLatLng?.[0] ?? 52.37;
  let lng = plan.startLatLng?.[1] ?? 4.89;
  const facts: FitFacts = {
    records: count,
    distanceMeters: 0,
    maxHr: 0,
    maxPower: 0,
    maxSpeed: 0,
    avgHr: 0,
    ascent: 0,
  };
  let hrTotal = 0;
  let hrCount = 0;
  for (let index = 0; index < count; index++) {
    const speed =
      Math.round((plan.sport === 'cycling' ? random.between(6, 11) : random.between(2.2, 3.8)) * 1000) / 1000;
    const power = plan.sport === 'cycling' && !plan.withoutCadenceAndPower ? random.int(120, 320) : undefined;
    const hr = plan.dropHeartRateAt?.includes(index) ? 0 : random.int(110, 175);
    const climb = random.between(-0.6, 0.8);
    altitude += climb;
    if (climb > 0) ascent += climb;
    distance += index === 0 ? 0 : speed * step;
    lat += 0.00005;
    lng += 0.00003;
    write(MESG.RECORD, {
      timestamp: new Date(plan.startMs + index * step * 1000),
      heartRate: hr,
      power,
      cadence: plan.withoutCadenceAndPower
        ? undefined
        : plan.sport === 'cycling'
          ? random.int(75, 98)
          : random.int(80, 92),
      speed,
      distance: Math.round(distance * 100) / 100,
      altitude: Math.round(altitude * 5) / 5,
      positionLat: Math.round(lat * DEGREES_TO_SEMICIRCLES),
      positionLong: Math.round(lng * DEGREES_TO_SEMICIRCLES),
    });
    if (hr > 0) {
      facts.maxHr = Math.max(facts.maxHr, hr);
      hrTotal += hr;
      hrCount += 1;
    }
    facts.maxPower = Math.max(facts.maxPower, power ?? 0);
    facts.maxSpeed = Math.max(facts.maxSpeed, speed);
  }
  facts.distanceMeters = Math.round(distance * 100) / 100;
  facts.avgHr = Math.round(hrTotal / Math.max(1, hrCount));
  facts.ascent = Math.round(ascent);
  const half = Math.floor(plan.durationSeconds / 2);
  for (const [lapStart, lapSeconds] of [
    [0, half],
    [half, plan.durationSeconds - half],
  ] as const) {
    write(MESG.LAP, {
      timestamp: new Date(plan.startMs + (lapStart + lapSeconds) * 1000),
      startTime: new Date(plan.startMs + lapStart * 1000),
      totalElapsedTime: lapSeconds,
      totalTimerTime: lapSeconds,
      totalDistance: Math.round((facts.distanceMeters * lapSeconds) / plan.durationSeconds),
      avgHeartRate: facts.avgHr,
      lapTrigger: 'manual',
    });
  }
  write(MESG.SESSION, {
    timestamp: end,
    startTime: start,
    totalElapsedTime: plan.durationSeconds,
    totalTimerTime: plan.durationSeconds,
    totalDistance: facts.distanceMeters,
    totalCalories: Math.round(plan.durationSeconds / 6),
    avgHeartRate: facts.avgHr,
    ...(plan.omitMaxima ? {} : { maxHeartRate: facts.maxHr, maxSpeed: facts.maxSpeed }),
    ...(plan.sport === 'cycling' && !plan.omitMaxima ? { maxPower: facts.maxPower } : {}),
    totalAscent: facts.ascent,
    sport: plan.sport,
    ...(plan.withoutCadenceAndPower
      ? {
          avgCadence: 0,
          maxCadence: 0,
          avgPower: 0,
          normalizedPower: 0,
          trainingStressScore: 0,
          totalWork: 0,
        }
      : {}),
  });
  write(MESG.ACTIVITY, {
    timestamp: end,
    totalTimerTime: plan.durationSeconds,
    numSessions: 1,
    type: 'manual',
    event: 'activity',
    eventType: 'stop',
    localTimestamp: Math.round(end.getTime() / 1000) - FIT_EPOCH_S + plan.offsetMinutes * 60,
  });
  return { bytes: encoder.close(), facts };
}

/** One leg of a multisport file: a session of its own sport. */
export type FitLegPlan = {
  sport: 'swimming' | 'transition' | 'cycling' | 'running';
  durationSeconds: number;
  distanceMeters: number;
};

export type MultisportFacts = {
  legs: { sport: string; startMs: number; durationSeconds: number; distanceMeters: number }[];
  distanceMeters: number;
  elapsedSeconds: number;
  records: number;
};

/**
 * A multisport activity as a Garmin multisport watch writes it (FIT SDK, "Activity file":
 * one session per leg, transitions being sessions of sport `transition`, laps within their
 * session, one activity message whose num_sessions counts them). Records run through all legs,
 * their distance counted from each leg's start; legs follow each other without a gap.
 */
export function buildMultisportFit(plan: {
  seed: string;
  startMs: number;
  offsetMinutes: number;
  legs: readonly FitLegPlan[];
  stepSeconds?: number;
}): { bytes: Uint8Array; facts: MultisportFacts } {
  const random = seeded(plan.seed);
  const step = plan.stepSeconds ?? 10;
  const encoder = new Encoder();
  const write = (mesgNum: number, mesg: Record<string, unknown>): void => {
    encoder.onMesg(mesgNum, mesg as never);
  };
  write(MESG.FILE_ID, {
    type: 'activity',
    manufacturer: 'garmin',
    product: 3113,
    timeCreated: new Date(plan.startMs),
    serialNumber: 3_456_789,
  });
  const facts: MultisportFacts = { legs: [], distanceMeters: 0, elapsedSeconds: 0, records: 0 };
  let legStartMs = plan.startMs;
  let lat = 52.37;
  let lng = 4.89;
  const sessions: Record<string, unknown>[] = [];
  for (const leg of plan.legs) {
    const count = Math.floor(leg.durationSeconds / step) + 1;
    let maxHr = 0;
    let hrTotal = 0;
    for (let index = 0; index < count; index++) {
      const seconds = Math.min(index * step, leg.durationSeconds);
      const hr = random.int(120, 170);
      maxHr = Math.max(maxHr, hr);
      hrTotal += hr;
      lat += 0.00004;
      lng += 0.00002;
      write(MESG.RECORD, {
        timestamp: new Date(legStartMs + seconds * 1000),
        heartRate: hr,
        ...(leg.sport === 'cycling' ? { power: random.int(150, 260), cadence: random.int(80, 95) } : {}),
        ...(leg.sport === 'running' ? { cadence: random.int(82, 90) } : {}),
        speed: leg.distanceMeters / leg.durationSeconds,
        distance: Math.round(((leg.distanceMeters * seconds) / leg.durationSeconds) * 100) / 100,
        positionLat: Math.round(lat * DEGREES_TO_SEMICIRCLES),
        positionLong: Math.round(lng * DEGREES_TO_SEMICIRCLES),
      });
    }
    const legEnd = new Date(legStartMs + leg.durationSeconds * 1000);
    const figures = {
      timestamp: legEnd,
      startTime: new Date(legStartMs),
      totalElapsedTime: leg.durationSeconds,
      totalTimerTime: leg.durationSeconds,
      totalDistance: leg.distanceMeters,
      totalCalories: Math.round(leg.durationSeconds / 5),
      avgHeartRate: Math.round(hrTotal / count),
      maxHeartRate: maxHr,
      avgSpeed: leg.distanceMeters / leg.durationSeconds,
    };
    write(MESG.LAP, { ...figures, lapTrigger: 'sessionEnd', sport: leg.sport });
    sessions.push({ ...figures, sport: leg.sport, firstLapIndex: facts.legs.length, numLaps: 1 });
    facts.legs.push({
      sport: leg.sport,
      startMs: legStartMs,
      durationSeconds: leg.durationSeconds,
      distanceMeters: leg.distanceMeters,
    });
    facts.distanceMeters += leg.distanceMeters;
    facts.elapsedSeconds += leg.durationSeconds;
    facts.records += count;
    legStartMs = legEnd.getTime();
  }
  for (const session of sessions) write(MESG.SESSION, session);
  const end = new Date(legStartMs);
  write(MESG.ACTIVITY, {
    timestamp: end,
    totalTimerTime: facts.elapsedSeconds,
    numSessions: sessions.length,
    type: 'manual',
    event: 'activity',
    eventType: 'stop',
    localTimestamp: Math.round(end.getTime() / 1000) - FIT_EPOCH_S + plan.offsetMinutes * 60,
  });
  return { bytes: encoder.close(), facts };
}
