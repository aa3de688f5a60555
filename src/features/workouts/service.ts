// Workout templates and planned workouts (the vendor's current `/workouts` and `/plannedWorkouts`,
// docs/wire-contract.md#planned-workouts). Templates are stored per developer. Planning one for a
// user turns it into the provider-side body (template-plan.ts) and pushes it to the user's
// provider where it can take planned workouts, or queues it for the user's mobile SDK where the
// provider is on-device; either way it is stored here as the user's planned workout. The older
// contract's `POST`/`DELETE /v2/plannedWorkout` are aliases over the same store.
//
// Listing shows Tributary's planned workouts together with the ones the provider holds (synced
// like any data type, kept by the data feature), which this feature registers itself with so
// data reads and `planned_workout` events show the same list.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import { AppError, invalidParameter, notFound, upstreamUnavailable } from '../../core/errors.ts';
import { isSupportedDate, readDateTime } from '../../model/calendar.ts';
import {
  type AthleteMetrics,
  dayOf,
  type PlannedWorkout,
  toCurrentDetails,
} from '../../model/planned-workout-current.ts';
import type { PlannedWorkoutDetails } from '../../model/planned-workout.ts';
import { addDays, dayNumberToIsoDate, formatDateTime, MS_PER_DAY } from '../../model/time.ts';
import type { WorkoutTemplate } from '../../model/workout-template.ts';
import type { DataSource } from '../../provider-kit/data-source.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { ProviderCatalog } from '../../provider-access/catalog.ts';
import type { Db } from '../../store/db.ts';
import type { DataService } from '../data/service.ts';
import type { Developer } from '../developers/service.ts';
import { findUserById } from '../users/repo.ts';
import { findUserForDeveloper, toWireUser, type UserRow, type WireUser } from '../users/service.ts';
import * as repo from './repo.ts';
import type { PlannedWorkoutDelivery } from './tables.ts';
import { planTemplate } from './template-plan.ts';

export const PLANNED_WORKOUT_CREATED = 'Planned workout successfully created';

/** Without dates, provider-side workouts are listed for the trailing 30 days (the vendor's default). */
const DEFAULT_LIST_DAYS = 30;
/** The longest window a list may ask for, as for data reads (r1). */
const MAX_LIST_DAYS = 1825;
const ID = /^\d{1,18}$/;

export type WorkoutsDeps = {
  db: Db;
  clock: Clock;
  log: Logger;
  providers: ProviderCatalog;
  data: Pick<DataService, 'sync' | 'plannedWorkouts'>;
};

export type PlanBody = {
  planned_date: string;
  ftp?: number;
  max_heart_rate?: number;
  threshold_heart_rate?: number;
  threshold_speed?: number;
  pool_length_meters?: number;
};

/** The answer of the get and reschedule operations. */
export type PlannedWorkoutSummary = {
  planned_workout_id: string;
  planned_date: string;
  is_external: false;
  workout_id?: string;
  provider_workout_id?: string;
  coercion_warnings?: string;
};

export type TemplateDeletion = { status: 204 } | { status: 207; message: string };

export type LegacyDeleteOutcome = {
  status: 200 | 207;
  user: WireUser;
  processed: { id: string; response_code: number }[];
};

/** How a provider failure is answered: 424 on the current operations, 503 on the older alias. */
type FailureStyle = 'current' | 'legacy';

function providerFailure(error: ProviderDataError, style: FailureStyle): AppError {
  const headers = { 'Retry-After': String(error.retryAfterSeconds ?? 60) };
  const detail = 'the provider did not accept the change right now; retry later';
  return style === 'current'
    ? new AppError('failed_dependency', detail, { headers })
    : upstreamUnavailable(detail, { headers });
}

async function atProvider<T>(task: () => Promise<T>, style: FailureStyle): Promise<T> {
  try {
    return await task();
  } catch (error) {
    if (error instanceof ProviderDataError) throw providerFailure(error, style);
    throw error;
  }
}

function requireId(name: string, value: string): string {
  if (!ID.test(value)) throw invalidParameter(name, 'expected a positive integer id');
  return value;
}

function requireDay(name: string, value: string): string {
  if (!isSupportedDate(value)) throw invalidParameter(name, 'expected YYYY-MM-DD, a real calendar date');
  return value;
}

const metricsOf = (body: PlanBody): AthleteMetrics => ({
  threshold_heart_rate: body.threshold_heart_rate ?? null,
  max_heart_rate: body.max_heart_rate ?? null,
  threshold_speed: body.threshold_speed ?? null,
  ftp: body.ftp ?? null,
  pool_length_meters: body.pool_length_meters ?? null,
});
const hasMetrics = (metrics: AthleteMetrics) => Object.values(metrics).some((value) => value !== null);

type Json = Record<string, unknown>;

/** The body with the provider's id and the scheduled date written into its metadata. */
function withIdentity(
  details: unknown,
  providerId: string | null,
  plannedDate: string,
  provider: string,
): Json {
  const body = (details ?? {}) as Json;
  const metadata = (body.metadata ?? {}) as Json;
  return { ...body, metadata: { ...metadata, id: providerId, provider, planned_date: plannedDate } };
}

export function createWorkoutsService(deps: WorkoutsDeps) {
  const { db, clock } = deps;
  const now = () => clock.now();
  const stamp = (date: Date) => formatDateTime(date.getTime(), 0);

  function toWire(row: repo.PlannedRow, provider: string): PlannedWorkout {
    return {
      planned_workout_id: row.id,
      workout_id: row.workout_id,
      planned_date: row.planned_date,
      provider_workout_id: row.provider_workout_id,
      coercion_warnings: row.coercion_warnings,
      created_at: stamp(row.created_at),
      last_updated_at: stamp(row.last_updated_at),
      is_external: false,
      athlete_metrics: (row.athlete_metrics ?? null) as PlannedWorkout['athlete_metrics'],
      details: withIdentity(
        row.details,
        row.provider_workout_id,
        row.planned_date,
        provider,
      ) as PlannedWorkout['details'],
    };
  }

  function summaryOf(row: repo.PlannedRow): PlannedWorkoutSummary {
    return {
      planned_workout_id: row.id,
      planned_date: row.planned_date,
      is_external: false,
      ...(row.workout_id ? { workout_id: row.workout_id } : {}),
      ...(row.provider_workout_id ? { provider_workout_id: row.provider_workout_id } : {}),
      ...(row.coercion_warnings ? { coercion_warnings: row.coercion_warnings } : {}),
    };
  }

  // Data reads and planned_workout events list Tributary's planned workouts through this.
  deps.data.plannedWorkouts.registerOwnSource(async (trx, userId, days) => {
    const rows = await repo.plannedOfUser(trx, userId, days);
    if (rows.length === 0) return [];
    const user = await findUserById(trx, userId);
    return rows.map((row) => toWire(row, user?.provider ?? ''));
  });

  /**
   * How planned workouts reach this user's provider: pushed through its connector, or queued for
   * the mobile SDK of an on-device source; a 400 when the provider takes none.
   */
  async function route(
    developer: Developer,
    userId: string,
  ): Promise<{ user: UserRow; delivery: PlannedWorkoutDelivery; source: DataSource | null }> {
    const user = await findUserForDeveloper(db, developer.id, userId);
    if (user.status === 'pending') {
      throw invalidParameter('user_id', `user ${user.id} has not completed authentication yet`);
    }
    const provider = deps.providers.get(user.provider);
    if (provider?.declaration.writesPlannedWorkouts) {
      if (provider.declaration.authKind === 'sdk') return { user, delivery: 'queued', source: null };
      const source = provider.connector?.data;
      if (source?.writePlannedWorkouts && source.deletePlannedWorkouts) {
        const refusal = source.plannedWorkoutRefusal?.({
          id: user.id,
          providerUserId: user.provider_user_id,
          scopes: user.scopes,
        });
        if (refusal) throw invalidParameter('user_id', refusal);
        return { user, delivery: 'pushed', source };
      }
    }
    throw invalidParameter('user_id', `planned workouts cannot be written to provider ${user.provider}`);
  }

  async function push(
    target: { user: UserRow; delivery: PlannedWorkoutDelivery; source: DataSource | null },
    bodies: readonly Json[],
    style: FailureStyle,
  ): Promise<(string | null)[]> {
    const { source } = target;
    if (target.delivery === 'queued' || !source?.writePlannedWorkouts) return bodies.map(() => null);
    const ids = await atProvider(
      () =>
        source.writePlannedWorkouts!({
          ...deps.data.sync.contextFor(target.user),
          workouts: bodies as PlannedWorkoutDetails[],
        }),
      style,
    );
    if (ids.length !== bodies.length)
      throw new Error(`provider returned ${ids.length} ids for ${bodies.length} workouts`);
    return ids;
  }

  /** Deletes at the provider; the ids it confirmed. A provider failure throws its ProviderDataError. */
  async function unpushAtProvider(user: UserRow, providerIds: readonly string[]): Promise<Set<string>> {
    if (providerIds.length === 0) return new Set();
    const source = deps.providers.get(user.provider)?.connector?.data;
    if (!source?.deletePlannedWorkouts) return new Set();
    const outcomes = await source.deletePlannedWorkouts({
      ...deps.data.sync.contextFor(user),
      ids: providerIds,
    });
    return new Set(outcomes.filter((outcome) => outcome.deleted).map((outcome) => outcome.id));
  }

  /** `unpushAtProvider`, a provider failure answered as `style` says. */
  const unpush = (user: UserRow, providerIds: readonly string[], style: FailureStyle) =>
    atProvider(() => unpushAtProvider(user, providerIds), style);

  async function templateOf(developer: Developer, workoutId: string): Promise<repo.TemplateRow> {
    const row = await repo.findTemplate(db, developer.id, requireId('workout_id', workoutId));
    if (!row) throw notFound(`no workout template with workout_id ${workoutId}`);
    return row;
  }

  async function plannedOf(developer: Developer, userId: string, id: string) {
    const user = await findUserForDeveloper(db, developer.id, userId);
    const row = await repo.findPlanned(db, user.id, requireId('planned_workout_id', id));
    if (!row) throw notFound(`no planned workout with planned_workout_id ${id} for user ${user.id}`);
    return { user, row };
  }

  const asTemplate = (row: repo.TemplateRow): WorkoutTemplate => ({
    ...(row.template as WorkoutTemplate),
    workout_id: row.id,
  });

  return {
    async createTemplate(developer: Developer, template: WorkoutTemplate) {
      const { workout_id: _ignored, ...stored } = template;
      const id = await repo.insertTemplate(db, { developerId: developer.id, template: stored, now: now() });
      return { status: 'success' as const, workout_id: id };
    },

    async listTemplates(developer: Developer): Promise<WorkoutTemplate[]> {
      return (await repo.listTemplates(db, developer.id)).map(asTemplate);
    },

    async getTemplate(developer: Developer, workoutId: string): Promise<WorkoutTemplate> {
      return asTemplate(await templateOf(developer, workoutId));
    },

    /**
     * Deletes the template and every workout planned from it, at the provider too. When the
     * provider refuses some deletions the template stays (207: retry to finish); when it cannot
     * be reached at all, 424 and nothing changed.
     */
    async deleteTemplate(developer: Developer, workoutId: string): Promise<TemplateDeletion> {
      const template = await templateOf(developer, workoutId);
      const planned = await repo.plannedOfTemplate(db, developer.id, template.id);
      const byUser = Map.groupBy(planned, (row) => row.user_id);
      let failed = 0;
      let reached = 0;
      let lastError: ProviderDataError | null = null;
      for (const [userId, rows] of byUser) {
        const user = await findUserById(db, userId);
        const pushed = rows.filter((row) => row.delivery === 'pushed' && row.provider_workout_id);
        let confirmed: Set<string>;
        try {
          const providerIds = pushed.map((row) => row.provider_workout_id!);
          confirmed = user ? await unpushAtProvider(user, providerIds) : new Set();
          reached += 1;
        } catch (error) {
          if (!(error instanceof ProviderDataError)) throw error;
          lastError = error;
          failed += rows.length;
          continue;
        }
        const gone = rows.filter(
          (row) =>
            row.delivery !== 'pushed' || !row.provider_workout_id || confirmed.has(row.provider_workout_id),
        );
        failed += rows.length - gone.length;
        await repo.deletePlanned(
          db,
          gone.map((row) => row.id),
        );
      }
      if (failed > 0) {
        if (reached === 0)
          throw new AppError(
            'failed_dependency',
            'the provider could not delete the planned workouts; retry later',
            {
              headers: { 'Retry-After': String(lastError?.retryAfterSeconds ?? 60) },
            },
          );
        return {
          status: 207,
          message: `${failed} planned workout(s) could not be deleted at the provider; the template is kept: retry to finish`,
        };
      }
      await repo.deleteTemplate(db, developer.id, template.id);
      return { status: 204 };
    },

    /** Plans a template for a user on a date: pushed to the provider or queued for the SDK. */
    async plan(developer: Developer, workoutId: string, userId: string, body: PlanBody) {
      const template = await templateOf(developer, workoutId);
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
      const user = await findUserForDeveloper(db, developer.id, userId);
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

    /** `POST /v2/plannedWorkout` (older contract): bodies without a template, ids in posted order. */
    async createLegacy(developer: Developer, userId: string, workouts: readonly PlannedWorkoutDetails[]) {
      const target = await route(developer, userId);
      const today = dayNumberToIsoDate(Math.floor(now().getTime() / MS_PER_DAY));
      const bodies = workouts.map((workout, index) => {
        const written = workout.metadata?.planned_date;
        // A datetime must be a real one too (hour 25 is not a day's start), not just its date part.
        const readable = !written || written.length === 10 || readDateTime(written) !== null;
        const day = written ? dayOf(written) : today;
        if (!readable || !day || !isSupportedDate(day)) {
          throw invalidParameter(
            `data[${index}].metadata.planned_date`,
            'expected YYYY-MM-DD or an ISO 8601 datetime, a real calendar date',
          );
        }
        return { day, details: withIdentity(toCurrentDetails(workout), null, day, target.user.provider) };
      });
      const ids = await push(
        target,
        bodies.map((body) => body.details),
        'legacy',
      );
      const at = now();
      const created: string[] = [];
      await db.transaction().execute(async (trx) => {
        for (const [index, body] of bodies.entries()) {
          const metadata = (body.details.metadata ?? {}) as Json;
          created.push(
            await repo.insertPlanned(trx, {
              developer_id: developer.id,
              user_id: target.user.id,
              workout_id: null,
              planned_date: body.day,
              provider_workout_id: ids[index] ?? null,
              delivery: target.delivery,
              coercion_warnings: null,
              athlete_metrics: null,
              details: {
                ...body.details,
                metadata: { ...metadata, created_date: metadata.created_date ?? stamp(at) },
              },
              created_at: at,
              last_updated_at: at,
            }),
          );
        }
      });
      return { user: toWireUser(target.user), log_ids: created, message: PLANNED_WORKOUT_CREATED };
    },

    /**
     * `DELETE /v2/plannedWorkout` (older contract): ids are Tributary's planned_workout_ids or
     * provider ids (of Tributary's workouts or of the provider's own); each gets its code.
     */
    async removeLegacy(
      developer: Developer,
      userId: string,
      ids: readonly string[],
    ): Promise<LegacyDeleteOutcome> {
      const target = await route(developer, userId);
      const user = target.user;
      const unique = [...new Set(ids)];
      const own = await repo.plannedByAnyId(db, user.id, unique);
      const ownById = new Map<string, repo.PlannedRow>();
      for (const row of own) {
        ownById.set(row.id, row);
        if (row.provider_workout_id) ownById.set(row.provider_workout_id, row);
      }
      const external = await deps.data.plannedWorkouts.knownProviderIds(
        user.id,
        unique.filter((id) => !ownById.has(id)),
      );
      const providerIds = [
        ...new Set([
          ...own
            .filter((row) => row.delivery === 'pushed' && row.provider_workout_id)
            .map((row) => row.provider_workout_id!),
          ...external,
        ]),
      ];
      const confirmed = await unpush(user, providerIds, 'legacy');
      const ownGone = own.filter(
        (row) =>
          row.delivery !== 'pushed' || !row.provider_workout_id || confirmed.has(row.provider_workout_id),
      );
      const externalGone = [...external].filter((id) => confirmed.has(id));
      await db.transaction().execute(async (trx) => {
        await repo.deletePlanned(
          trx,
          ownGone.map((row) => row.id),
        );
        await deps.data.plannedWorkouts.forgetProviderWorkouts(trx, user.id, externalGone);
      });
      const goneIds = new Set(ownGone.map((row) => row.id));
      const processed = ids.map((id) => {
        const row = ownById.get(id);
        const code = row
          ? goneIds.has(row.id)
            ? 200
            : 502
          : external.has(id)
            ? confirmed.has(id)
              ? 200
              : 502
            : 404;
        return { id, response_code: code };
      });
      return {
        status: processed.every((entry) => entry.response_code === 200) ? 200 : 207,
        user: toWireUser(user),
        processed,
      };
    },
  };
}

export type WorkoutsService = ReturnType<typeof createWorkoutsService>;
