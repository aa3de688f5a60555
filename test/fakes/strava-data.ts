import { seeded } from './fake-server.ts';
import { lazySamples, readProviderSample } from '../helpers/provider-samples.ts';

/**
 * Deterministic Strava API v3 documents built from the swagger examples in
 * ../shared/reference/provider-samples: activities (summary and detail), streams, laps, zones and the
 * athlete. An account has at most one activity a day; its id encodes the day, so any activity can
 * be served by id without storage.
 */

type Json = Record<string, unknown>;

function sample(name: string): unknown {
  return readProviderSample(`strava-${name}`);
}

const templates = lazySamples(() => ({
  summary: (sample('athlete_activities') as Json[])[0] as Json,
  detail: sample('activity_detail') as Json,
  lap: (sample('activity_laps') as Json[])[0] as Json,
  athlete: sample('athlete') as Json,
}));

export type StravaUser = {
  seed: string;
  athleteId: number;
  offsetMinutes: number;
  zoneName: string;
  streamPoints: number;
};

const DAY_MS = 86_400_000;
const ID_BASE = 1_000_000_000;

/** Sport types the fake plays, with their legacy `type` and speed range (m/s). */
const sports = [
  { sport_type: 'Run', type: 'Run', speed: [2.6, 4.2], cadence: [80, 92] },
  { sport_type: 'TrailRun', type: 'Run', speed: [2, 3.4], cadence: [78, 90] },
  { sport_type: 'Ride', type: 'Ride', speed: [6, 10], cadence: [75, 95] },
  { sport_type: 'MountainBikeRide', type: 'Ride', speed: [4, 7], cadence: [70, 90] },
  { sport_type: 'VirtualRide', type: 'VirtualRide', speed: [7, 10], cadence: [80, 100] },
  { sport_type: 'Walk', type: 'Walk', speed: [1.2, 1.7], cadence: [50, 60] },
] as const;

export function activityIdOf(day: number): number {
  return ID_BASE + day * 10;
}

export function dayOfActivityId(id: number): number | null {
  const offset = id - ID_BASE;
  return offset >= 0 && offset % 10 === 0 ? offset / 10 : null;
}

const iso = (epochMs: number) => `${new Date(epochMs).toISOString().slice(0, 19)}Z`;

function zoneLabel(user: StravaUser): string {
  const abs = Math.abs(user.offsetMinutes);
  const sign = user.offsetMinutes < 0 ? '-' : '+';
  return `(GMT${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}) ${user.zoneName}`;
}

/** Google's encoded polyline (what Strava's `map.polyline` fields hold). */
export function encodePolyline(points: readonly (readonly [number, number])[]): string {
  let output = '';
  let previousLat = 0;
  let previousLng = 0;
  const encode = (value: number) => {
    let rest = value < 0 ? ~(value << 1) : value << 1;
    while (rest >= 0x20) {
      output += String.fromCharCode((0x20 | (rest & 0x1f)) + 63);
      rest >>= 5;
    }
    output += String.fromCharCode(rest + 63);
  };
  for (const [lat, lng] of points) {
    const latE5 = Math.round(lat * 1e5);
    const lngE5 = Math.round(lng * 1e5);
    encode(latE5 - previousLat);
    encode(lngE5 - previousLng);
    previousLat = latE5;
    previousLng = lngE5;
  }
  return output;
}

type Plan = {
  day: number;
  sport: (typeof sports)[number];
  startMs: number;
  elapsed: number;
  moving: number;
  speed: number;
  distance: number;
  hasPower: boolean;
  origin: [number, number];
};

/** The activity of `day`, if the athlete trained that day (about 2 days in 3). */
export function planOf(user: StravaUser, day: number): Plan | null {
  const random = seeded(`${user.seed}|activity|${day}`);
  if (random.next() > 0.7) return null;
  const sport = random.pick(sports);
  const elapsed = random.int(1800, 5400);
  const speed = random.between(sport.speed[0], sport.speed[1]);
  const moving = elapsed - random.int(0, 300);
  return {
    day,
    sport,
    startMs:
      day * DAY_MS -
      user.offsetMinutes * 60_000 +
      random.int(6 * 60, 8 * 60) * 60_000 +
      random.int(0, 59) * 1000,
    elapsed,
    moving,
    speed,
    distance: Math.round(speed * moving * 10) / 10,
    hasPower: sport.type !== 'Run' && sport.type !== 'Walk',
    origin: [37.8 + random.between(-0.05, 0.05), -122.26 + random.between(-0.05, 0.05)],
  };
}

/** All streams of the activity, `streamPoints` long (Strava's high resolution caps similarly). */
export function streamsOf(user: StravaUser, plan: Plan): Record<string, unknown[]> {
  const random = seeded(`${user.seed}|streams|${plan.day}`);
  const count = Math.min(user.streamPoints, plan.elapsed);
  const time: number[] = [];
  const distance: number[] = [];
  const latlng: [number, number][] = [];
  const altitude: number[] = [];
  const velocity: number[] = [];
  const heartrate: number[] = [];
  const cadence: number[] = [];
  const watts: number[] = [];
  const temp: number[] = [];
  const moving: boolean[] = [];
  const grade: number[] = [];
  let covered = 0;
  let height = 20 + random.between(0, 30);
  for (let index = 0; index < count; index++) {
    const seconds = Math.round((index * plan.elapsed) / count);
    const speed = Math.max(0, plan.speed + random.between(-0.6, 0.6));
    covered += index === 0 ? 0 : speed * (seconds - (time[index - 1] ?? 0));
    const slope = random.between(-4, 4);
    height += slope / 10;
    time.push(seconds);
    distance.push(Math.round(covered * 10) / 10);
    latlng.push([
      Number((plan.origin[0] + covered / 111_000).toFixed(6)),
      Number((plan.origin[1] + covered / 250_000).toFixed(6)),
    ]);
    altitude.push(Math.round(height * 10) / 10);
    velocity.push(Math.round(speed * 1000) / 1000);
    heartrate.push(Math.round(110 + 50 * (index / count) + random.between(-5, 5)));
    cadence.push(Math.round(random.between(plan.sport.cadence[0], plan.sport.cadence[1])));
    watts.push(Math.round(random.between(120, 280)));
    temp.push(14 + Math.round(random.between(0, 4)));
    moving.push(speed > 0.3);
    grade.push(Math.round(slope * 10) / 10);
  }
  const streams: Record<string, unknown[]> = {
    time,
    distance,
    latlng,
    altitude,
    velocity_smooth: velocity,
    heartrate,
    cadence,
    temp,
    moving,
    grade_smooth: grade,
  };
  if (plan.hasPower) streams.watts = watts;
  return streams;
}

export function summaryOf(user: StravaUser, plan: Plan): Json {
  const random = seeded(`${user.seed}|summary|${plan.day}`);
  const streams = streamsOf(user, plan);
  const points = streams.latlng as [number, number][];
  const heart = streams.heartrate as number[];
  return {
    ...templates.summary,
    athlete: { id: user.athleteId, resource_state: 1 },
    name: `${plan.sport.sport_type} #${plan.day}`,
    distance: plan.distance,
    moving_time: plan.moving,
    elapsed_time: plan.elapsed,
    total_elevation_gain: Math.round(random.between(0, 400)),
    type: plan.sport.type,
    sport_type: plan.sport.sport_type,
    id: activityIdOf(plan.day),
    external_id: `fake_${plan.day}.fit`,
    upload_id: activityIdOf(plan.day) + 7,
    start_date: iso(plan.startMs),
    start_date_local: iso(plan.startMs + user.offsetMinutes * 60_000),
    timezone: zoneLabel(user),
    utc_offset: user.offsetMinutes * 60,
    start_latlng: points[0] ?? [],
    end_latlng: points.at(-1) ?? [],
    location_country: 'United States',
    map: {
      id: `a${activityIdOf(plan.day)}`,
      summary_polyline: encodePolyline(points.filter((_, index) => index % 10 === 0)),
      resource_state: 2,
    },
    trainer: plan.sport.sport_type === 'VirtualRide',
    average_speed: Math.round((plan.distance / plan.moving) * 1000) / 1000,
    max_speed: Math.round(Math.max(...(streams.velocity_smooth as number[])) * 10) / 10,
    average_cadence: Math.round(random.between(plan.sport.cadence[0], plan.sport.cadence[1]) * 10) / 10,
    average_watts: plan.hasPower ? Math.round(random.between(150, 230) * 10) / 10 : undefined,
    weighted_average_watts: plan.hasPower ? random.int(160, 250) : undefined,
    kilojoules: plan.hasPower ? Math.round(random.between(400, 1200) * 10) / 10 : undefined,
    device_watts: plan.hasPower,
    max_watts: plan.hasPower ? random.int(400, 800) : undefined,
    has_heartrate: true,
    average_heartrate:
      Math.round((heart.reduce((sum, bpm) => sum + bpm, 0) / Math.max(1, heart.length)) * 10) / 10,
    max_heartrate: Math.max(...heart),
    suffer_score: random.int(20, 200),
  };
}

export function lapsOf(user: StravaUser, plan: Plan): Json[] {
  const count = Math.max(1, Math.round(plan.distance / 5000));
  const lapSeconds = Math.floor(plan.elapsed / count);
  return Array.from({ length: count }, (_, index) => {
    const startMs = plan.startMs + index * lapSeconds * 1000;
    return {
      ...templates.lap,
      id: activityIdOf(plan.day) * 100 + index,
      name: `Lap ${index + 1}`,
      activity: { id: activityIdOf(plan.day), resource_state: 1 },
      athlete: { id: user.athleteId, resource_state: 1 },
      elapsed_time: lapSeconds,
      moving_time: Math.floor(lapSeconds * (plan.moving / plan.elapsed)),
      start_date: iso(startMs),
      start_date_local: iso(startMs + user.offsetMinutes * 60_000),
      distance: Math.round((plan.distance / count) * 100) / 100,
      average_speed: Math.round(plan.speed * 100) / 100,
      average_heartrate: 140 + index,
      max_heartrate: 160 + index,
      lap_index: index + 1,
      split: index + 1,
    };
  });
}

export function detailOf(user: StravaUser, plan: Plan): Json {
  const summary = summaryOf(user, plan);
  const points = streamsOf(user, plan).latlng as [number, number][];
  return {
    ...templates.detail,
    ...summary,
    resource_state: 3,
    map: { ...(summary.map as Json), polyline: encodePolyline(points), resource_state: 3 },
    description: '',
    calories: Math.round(plan.moving * 0.18 * 10) / 10,
    device_name: 'Garmin Edge 1030',
    segment_efforts: [],
    laps: lapsOf(user, plan),
    gear: { ...(templates.detail.gear as Json) },
  };
}

/** GET /athlete/zones in the documented Zones shape (bpm / watt ranges, last max -1). */
export function athleteZones(): Json {
  return {
    heart_rate: {
      custom_zones: false,
      zones: [
        { min: 0, max: 123 },
        { min: 123, max: 153 },
        { min: 153, max: 169 },
        { min: 169, max: 184 },
        { min: 184, max: -1 },
      ],
    },
    power: {
      zones: [
        { min: 0, max: 150 },
        { min: 151, max: 200 },
        { min: 201, max: 250 },
        { min: 251, max: -1 },
      ],
    },
  };
}

export function athleteOf(user: StravaUser): Json {
  return {
    ...templates.athlete,
    id: user.athleteId,
    username: user.seed.replace(/\W/g, '_'),
    firstname: 'Fake',
    lastname: `Athlete ${user.athleteId}`,
  };
}

/** The summary athlete the token endpoint returns with a code exchange. */
export function tokenAthleteOf(user: StravaUser): Json {
  const full = athleteOf(user);
  const { bikes: _bikes, shoes: _shoes, clubs: _clubs, ftp: _ftp, ...rest } = full;
  return { ...rest, resource_state: 2 };
}
