// Planned workouts made from templates (the vendor's current `/plannedWorkouts`): planning one for a
// user turns the template into the provider-side body (template-plan.ts) and pushes it to the
// user's provider, or queues it for the user's mobile SDK; either way it is stored here as the
// user's planned workout. Listing shows Tributary's planned workouts together with the ones the
// provider holds (synced like any data type, kept by the data feature).
import { AppError, invalidParameter, notFound, upstreamUnavailable } from '../../core/errors.ts';
import type { AthleteMetrics, PlannedWorkout } from '../../model/planned-workout-current.ts';
import { addDays, dayNumberToIsoDate, MS_PER_DAY } from '../../model/time.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { Developer } from '../developers/service.ts';
import { findConnectionForDeveloper } from '../connections/service.ts';
import type { WorkoutsDeps } from './deps.ts';
import { requireDay, requireId } from './params.ts';
import { type PlannedWorkoutSummary, summaryOf, toWire, withIdentity } from './planned-views.ts';
import type { ProviderWrites } from './provider-writes.ts';
import * as repo from './repo.ts';
import { planTemplate } from './template-plan.ts';
import { asTemplate, templateOf } from './templates.ts';

/** Without dates, provider-side workouts are listed for the trailing 30 days (the vendor's default). */
const DEFAULT_LIST_DAYS = 30;
/** The longest window a list may ask for, as for data reads (r1). */
const MAX_LIST_DAYS = 1825;

export type PlanBody = {
  planned_date: string;
  ftp?: number;
  max_heart_rate?: number;
  threshold_heart_rate?: number;
  threshold_speed?: number;
  pool_length_meters?: number;
};

const metricsOf = (body: PlanBody): AthleteMetrics => ({
  threshold_heart_rate: body.threshold_heart_rate ?? null,
  max_heart_rate: body.max_heart_rate ?? null,
  threshold_speed: body.threshold_speed ?? null,
  ftp: body.ftp ?? null,
  pool_length_meters: body.pool_length_meters ?? null,
});
const hasMetrics = (metrics: AthleteMetrics) => Object.values(metrics).some((value) => value !== null);

export function createPlannedWorkouts(deps: WorkoutsDeps, writes: ProviderWrites) {
  const { db, clock } = deps;
  const now = () => clock.now();
  const { route, push, unpush } = writes;

  async function plannedOf(developer: Developer, userId: string, id: string) {
    const user = await findConnectionForDeveloper(db, developer.id, userId);
    const row = await repo.findPlanned(db, user.id, requireId('planned_workout_id', id));
    if (!row) throw notFound(`no planned workout with planned_workout_id ${id} for user ${user.id}`);
    return { user, row };
  }

  return {
    /** Plans a template for a user on a date: pushed to the provider or queued for the SDK. */
    async plan(developer: Developer, workoutId: string, userId: string, body: PlanBody) {
      const template = await templateOf(db, developer, workoutId);
      const plannedDate = requireDay('planned_date', body.planned_date);
      const target = await route(developer, userId);
      const metrics = metricsOf(body);
      const planned = planTemplate(asTemplate(template), { plannedDate, metrics });
      const [providerId] = await push(target, [planned.details], 'current');
      const at = now();
      const warnings = planned.warnings.length > 0 ? planned.warnings.join('; ') : null;
      const id = await repo.insertPlanned(db, {
        developer_id: developer.id,
        user_id: target.user.id,
        workout_id: template.id,
        planned_date: plannedDate,
        provider_workout_id: providerId ?? null,
        delivery: target.delivery,
        coercion_warnings: warnings,
        athlete_metrics: hasMetrics(metrics) ? metrics : null,
        details: planned.details,
        created_at: at,
        last_updated_at: at,
      });
      return {
        status: 'success' as const,
        planned_workout_id: id,
        ...(providerId ? { provider_workout_id: providerId } : {}),
        ...(warnings ? { coercion_warnings: warnings } : {}),
      };
    },

    /**
     * The user's planned workouts, Tributary's and the provider's, by date. Without dates: every
     * one planned through Tributary, and the provider's of the trailing 30 days.
     */
    async list(
      developer: Developer,
      userId: string,
      query: { start_date?: string | undefined; end_date?: string | undefined },
    ): Promise<PlannedWorkout[]> {
      const user = await findConnectionForDeveloper(db, developer.id, userId);
      const today = dayNumberToIsoDate(Math.floor(now().getTime() / MS_PER_DAY));
      const start = query.start_date ? requireDay('start_date', query.start_date) : null;
      const end = query.end_date ? requireDay('end_date', query.end_date) : null;
      if (start && end && end < start) throw invalidParameter('end_date', 'must not be before start_date');
      // end_date is inclusive here (the vendor's list), so the day range ends the day after.
      const explicit =
        start || end
          ? {
              fromDay: start ?? addDays(end!, -DEFAULT_LIST_DAYS),
              toDay: addDays(end ?? addDays(start!, DEFAULT_LIST_DAYS), 1),
            }
          : null;
      const days = explicit ?? { fromDay: addDays(today, -DEFAULT_LIST_DAYS), toDay: addDays(today, 1) };
      const span = (Date.parse(days.toDay) - Date.parse(days.fromDay)) / MS_PER_DAY;
      if (span > MAX_LIST_DAYS + 1)
        throw invalidParameter('end_date', `a window spans at most ${MAX_LIST_DAYS} days`);
      if (user.status !== 'pending') {
        try {
          await deps.data.sync.syncDays(user, 'plannedWorkout', days.fromDay, days.toDay);
        } catch (error) {
          if (!(error instanceof ProviderDataError)) throw error;
          throw upstreamUnavailable('the provider is not answering right now; retry later', {
            headers: { 'Retry-After': String(error.retryAfterSeconds ?? 60) },
          });
        }
      }
      const shown = await deps.data.plannedWorkouts.list(user.id, days);
      if (explicit) return shown;
      // Without a window, Tributary's own planned workouts are all listed, whatever their date.
      const own = (await repo.plannedOfUser(db, user.id, null)).map((row) => toWire(row, user.provider));
      const pushed = new Set(own.map((workout) => workout.provider_workout_id).filter(Boolean));
      const external = shown.filter(
        (workout) =>
          workout.is_external && !(workout.provider_workout_id && pushed.has(workout.provider_workout_id)),
      );
      return [...own, ...external].sort((a, b) => (a.planned_date ?? '').localeCompare(b.planned_date ?? ''));
    },

    async get(developer: Developer, userId: string, id: string): Promise<PlannedWorkoutSummary> {
      return summaryOf((await plannedOf(developer, userId, id)).row);
    },

    /** Moves a planned workout to another date; at the provider, the old one is replaced. */
    async reschedule(developer: Developer, userId: string, id: string, plannedDate: string) {
      const day = requireDay('planned_date', plannedDate);
      const { user, row } = await plannedOf(developer, userId, id);
      if (row.planned_date === day) return summaryOf(row);
      const details = withIdentity(row.details, null, day, user.provider);
      let providerId = row.provider_workout_id;
      if (row.delivery === 'pushed') {
        const target = await route(developer, user.id);
        const [pushedId] = await push(target, [details], 'current');
        providerId = pushedId ?? null;
        if (row.provider_workout_id) {
          const deleted = await unpush(user, [row.provider_workout_id], 'current');
          if (!deleted.has(row.provider_workout_id)) {
            deps.log.warn(
              { userId: user.id, providerWorkoutId: row.provider_workout_id },
              'the provider kept the planned workout a reschedule replaced',
            );
          }
        }
      }
      await repo.reschedule(db, row.id, {
        plannedDate: day,
        providerWorkoutId: providerId ?? null,
        details,
        now: now(),
      });
      return summaryOf({ ...row, planned_date: day, provider_workout_id: providerId ?? null });
    },

    /** Deletes a planned workout from the calendar and from the provider. */
    async remove(developer: Developer, userId: string, id: string): Promise<void> {
      const { user, row } = await plannedOf(developer, userId, id);
      if (row.delivery === 'pushed' && row.provider_workout_id) {
        const deleted = await unpush(user, [row.provider_workout_id], 'current');
        if (!deleted.has(row.provider_workout_id))
          throw new AppError('failed_dependency', 'the provider kept the planned workout; retry later');
      }
      await repo.deletePlanned(db, [row.id]);
    },
  };
}
