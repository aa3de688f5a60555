// Intervals.icu planned workouts: Tributary's planned workouts become WORKOUT events on the
// athlete's Intervals.icu calendar (POST /api/v1/athlete/{id}/events, schema EventEx; the date
// must be local midnight, `…T00:00:00`, forum t/609), with the steps written in the workout
// text Intervals.icu parses (workout-text.ts); DELETE /api/v1/athlete/{id}/events/{eventId}
// removes one. Writing needs the CALENDAR:WRITE scope (OAuth forum post t/2759). Reading back
// lists the calendar's WORKOUT events (GET /api/v1/athlete/{id}/events, `newest` inclusive).
import { badRequest } from '../../core/errors.ts';
import type { TypeFetcher } from '../../provider-kit/api.ts';
import type { DataSource, DataSourceUser } from '../../provider-kit/data-source.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import { activityTypeName } from '../../model/activity-type.ts';
import type { PlannedWorkoutDetails } from '../../model/planned-workout.ts';
import { addDays, isIsoDate } from '../../model/time.ts';
import { INTERVALS_ICU_API } from './api-base.ts';
import type { IntervalsEvent } from './normalize/types.ts';
import { eventDescription, stepsOfText } from './workout-text.ts';

export const CALENDAR_WRITE = 'CALENDAR:WRITE';

/** Why this user's workouts cannot go to Intervals.icu (CALENDAR:WRITE not granted). */
export function intervalsPlanRefusal(user: DataSourceUser): string | null {
  if (user.scopes === null) return null;
  return user.scopes.split(/[\s,]+/).includes(CALENDAR_WRITE)
    ? null
    : `the user has not granted Intervals.icu's ${CALENDAR_WRITE} scope`;
}

/** Intervals.icu activity type names for the unified type (by name or code). */
export function intervalsSportOf(type: unknown): string {
  const name = typeof type === 'number' ? (activityTypeName(type) ?? '') : String(type ?? '').toUpperCase();
  if (/OPEN_WATER/.test(name)) return 'OpenWaterSwim';
  if (/SWIM/.test(name)) return 'Swim';
  if (/STATIONARY|INDOOR_CYCL|SPINNING/.test(name)) return 'VirtualRide';
  if (/MOUNTAIN/.test(name)) return 'MountainBikeRide';
  if (/GRAVEL/.test(name)) return 'GravelRide';
  if (/BIK|CYCL/.test(name)) return 'Ride';
  if (/TREADMILL/.test(name)) return 'VirtualRun';
  if (/TRAIL_RUN/.test(name)) return 'TrailRun';
  if (/RUN/.test(name)) return 'Run';
  if (/STRENGTH/.test(name)) return 'WeightTraining';
  if (/ROWING/.test(name)) return 'Rowing';
  if (/WALK/.test(name)) return 'Walk';
  if (/HIK/.test(name)) return 'Hike';
  if (/YOGA/.test(name)) return 'Yoga';
  return 'Workout';
}

const UNIFIED_TYPE: Readonly<Record<string, string>> = {
  Ride: 'BIKING',
  VirtualRide: 'STATIONARY_BIKING',
  MountainBikeRide: 'MOUNTAIN_BIKING',
  GravelRide: 'GRAVEL_CYCLING',
  Run: 'RUNNING',
  VirtualRun: 'TREADMILL_RUNNING',
  TrailRun: 'TRAIL_RUNNING',
  Swim: 'SWIMMING',
  OpenWaterSwim: 'SWIMMING_OPEN_WATER',
  WeightTraining: 'STRENGTH_TRAINING',
  Rowing: 'ROWING',
  Walk: 'WALKING',
  Hike: 'HIKING',
  Yoga: 'YOGA',
};

/** The event body for one planned workout. */
export function toIntervalsEvent(details: PlannedWorkoutDetails): Record<string, unknown> {
  const metadata = details.metadata ?? {};
  const date = metadata.planned_date?.slice(0, 10);
  if (!date || !isIsoDate(date))
    throw badRequest('metadata.planned_date: Intervals.icu files a planned workout under its date');
  const duration = metadata.estimated_duration_seconds;
  const distance = metadata.estimated_distance_meters;
  return {
    category: 'WORKOUT',
    start_date_local: `${date}T00:00:00`,
    type: intervalsSportOf(metadata.type),
    name: metadata.name ?? 'Planned workout',
    description: eventDescription(details),
    ...(typeof duration === 'number' && duration > 0 ? { moving_time: Math.round(duration) } : {}),
    ...(typeof distance === 'number' && distance > 0 ? { distance } : {}),
    ...(typeof metadata.id === 'string' && metadata.id ? { external_id: metadata.id } : {}),
  };
}

export function fromIntervalsEvent(event: IntervalsEvent): PlannedWorkoutDetails {
  const date = event.start_date_local.slice(0, 10);
  const moving = event.moving_time;
  return {
    metadata: {
      id: String(event.id),
      name: event.name ?? null,
      description: event.description ?? null,
      provider: 'INTERVALS_ICU',
      type: (UNIFIED_TYPE[event.type ?? ''] ?? 'OTHER') as never,
      planned_date: `${date}T00:00:00.000000+00:00`,
      estimated_duration_seconds: typeof moving === 'number' && moving > 0 ? moving : null,
      estimated_distance_meters:
        typeof event.distance === 'number' && event.distance > 0 ? event.distance : null,
      estimated_tss: typeof event.icu_training_load === 'number' ? event.icu_training_load : null,
      estimated_if: typeof event.icu_intensity === 'number' ? event.icu_intensity / 100 : null,
    },
    steps: stepsOfText(event.description),
  };
}

type Hooks = Required<
  Pick<DataSource, 'writePlannedWorkouts' | 'deletePlannedWorkouts' | 'plannedWorkoutRefusal'>
>;

export const intervalsPlannedWorkouts: Hooks = {
  plannedWorkoutRefusal: intervalsPlanRefusal,

  async writePlannedWorkouts({ http, workouts }) {
    if (!http) throw new ProviderDataError('unavailable', 'no provider HTTP client in this context');
    // Every body is converted before anything is sent: a step Intervals.icu cannot hold is a 400
    // with nothing half written.
    const bodies = workouts.map(toIntervalsEvent);
    const ids: string[] = [];
    for (const body of bodies) {
      const created = await http.json<{ id?: unknown }>({
        method: 'POST',
        url: `${INTERVALS_ICU_API}/athlete/0/events`,
        json: body,
      });
      if (typeof created?.id !== 'number' && typeof created?.id !== 'string')
        throw new ProviderDataError('unavailable', 'Intervals.icu created an event without an id');
      ids.push(String(created.id));
    }
    return ids;
  },

  async deletePlannedWorkouts({ http, ids }) {
    if (!http) throw new ProviderDataError('unavailable', 'no provider HTTP client in this context');
    const outcomes: { id: string; deleted: boolean }[] = [];
    for (const id of ids) {
      if (!/^\d+$/.test(id)) {
        outcomes.push({ id, deleted: false });
        continue;
      }
      await http.json({
        method: 'DELETE',
        url: `${INTERVALS_ICU_API}/athlete/0/events/${id}`,
        absentOn: [404],
      });
      outcomes.push({ id, deleted: true });
    }
    return outcomes;
  },
};

/** The WORKOUT events on the athlete's calendar in [startDate, endDate). */
export const intervalsPlannedWorkoutFetcher: TypeFetcher = async function* (args) {
  const events = await args.http.json<IntervalsEvent[]>({
    url: `${INTERVALS_ICU_API}/athlete/0/events`,
    query: { oldest: args.startDate, newest: addDays(args.endDate, -1), category: 'WORKOUT' },
  });
  if (!Array.isArray(events))
    throw new ProviderDataError('unavailable', 'Intervals.icu events answered something other than a list');
  const records = events
    .filter((event) => event?.category === 'WORKOUT' && typeof event.start_date_local === 'string')
    .filter((event) => {
      const date = event.start_date_local.slice(0, 10);
      return date >= args.startDate && date < args.endDate;
    })
    .map(fromIntervalsEvent);
  yield { records, raw: events };
};
