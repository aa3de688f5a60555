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
    const power = plan.sport === 'cycling' ? random.int(120, 320) : undefined;
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
      cadence: plan.sport === 'cycling' ? random.int(75, 98) : random.int(80, 92),
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
