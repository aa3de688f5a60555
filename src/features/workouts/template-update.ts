// Updating a workout template (the vendor's `PUT /v2/workouts/{workout_id}`, changelog Oct 2026):
// the template is replaced, then every upcoming workout planned from it (planned on today or
// later, UTC) is planned again from the new template with the athlete metrics it was planned
// with, and re-sent: pushed to the provider (the new copy first, then the old one deleted, as a
// reschedule does), or its queued body replaced for the mobile SDK. A workout the provider
// refuses (or a user it can no longer reach) keeps its previous body and provider copy and is
// listed with the reason: 207, and the same PUT again retries.
import { AppError } from '../../core/errors.ts';
import type { AthleteMetrics } from '../../model/planned-workout-current.ts';
import { dayNumberToIsoDate, MS_PER_DAY } from '../../model/time.ts';
import type { WorkoutTemplate } from '../../model/workout-template.ts';
import type { Developer } from '../developers/service.ts';
import type { WorkoutsDeps } from './deps.ts';
import type { ProviderWrites } from './provider-writes.ts';
import * as repo from './repo.ts';
import { planTemplate } from './template-plan.ts';
import { asTemplate, templateOf } from './templates.ts';

const NO_METRICS: AthleteMetrics = {
  threshold_heart_rate: null,
  max_heart_rate: null,
  threshold_speed: null,
  ftp: null,
  pool_length_meters: null,
};

export type TemplateUpdate = {
  status: 200 | 207;
  body: {
    status: 'success' | 'partial';
    workout_id: string;
    planned_workouts_updated: string[];
    planned_workouts_failed: { planned_workout_id: string; reason: string }[];
  };
};

export function createTemplateUpdate(deps: WorkoutsDeps, writes: ProviderWrites) {
  const { db, clock, log } = deps;

  /** Re-sends one planned workout from the updated template; throws the AppError of a refusal. */
  async function resend(developer: Developer, template: WorkoutTemplate, planned: repo.PlannedRow) {
    const metrics = { ...NO_METRICS, ...((planned.athlete_metrics ?? {}) as Partial<AthleteMetrics>) };
    const body = planTemplate(template, { plannedDate: planned.planned_date, metrics });
    let providerId = planned.provider_workout_id;
    if (planned.delivery === 'pushed') {
      const target = await writes.route(developer, planned.user_id);
      const [pushedId] = await writes.push(target, [body.details], 'current');
      providerId = pushedId ?? null;
      const previous = planned.provider_workout_id;
      if (previous) {
        // The new copy is in; the old one going is best effort, as on a reschedule.
        const gone = await writes.unpushAtProvider(target.user, [previous]).catch(() => new Set<string>());
        if (!gone.has(previous))
          log.warn(
            { userId: planned.user_id, providerWorkoutId: previous },
            'the provider kept the planned workout a template update replaced',
          );
      }
    }
    await repo.replacePlannedBody(db, planned.id, {
      details: body.details,
      providerWorkoutId: providerId,
      warnings: body.warnings.length > 0 ? body.warnings.join('; ') : null,
      now: clock.now(),
    });
  }

  return {
    async updateTemplate(
      developer: Developer,
      workoutId: string,
      template: WorkoutTemplate,
    ): Promise<TemplateUpdate> {
      const row = await templateOf(db, developer, workoutId);
      const { workout_id: _ignored, ...stored } = template;
      await repo.updateTemplate(db, developer.id, row.id, stored, clock.now());
      const updated = asTemplate({ ...row, template: stored });
      const today = dayNumberToIsoDate(Math.floor(clock.now().getTime() / MS_PER_DAY));
      const upcoming = (await repo.plannedOfTemplate(db, developer.id, row.id)).filter(
        (planned) => planned.planned_date >= today,
      );
      const done: string[] = [];
      const failed: { planned_workout_id: string; reason: string }[] = [];
      for (const planned of upcoming) {
        try {
          await resend(developer, updated, planned);
          done.push(planned.id);
        } catch (error) {
          // A refusal (400: the provider takes no planned workouts for this user now; 424: it
          // refused or could not be reached) is this workout's, not the update's.
          if (!(error instanceof AppError)) throw error;
          failed.push({ planned_workout_id: planned.id, reason: error.message });
        }
      }
      return {
        status: failed.length > 0 ? 207 : 200,
        body: {
          status: failed.length > 0 ? 'partial' : 'success',
          workout_id: row.id,
          planned_workouts_updated: done,
          planned_workouts_failed: failed,
        },
      };
    },
  };
}
