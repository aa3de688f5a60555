// Workout templates (the vendor's current `/workouts`): stored per developer; deleting one deletes
// every workout planned from it, at the provider too.
import { AppError, notFound } from '../../core/errors.ts';
import type { WorkoutTemplate } from '../../model/workout-template.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { Db } from '../../store/db.ts';
import type { Developer } from '../developers/service.ts';
import { findConnectionById } from '../connections/repo.ts';
import type { WorkoutsDeps } from './deps.ts';
import { requireId } from './params.ts';
import type { ProviderWrites } from './provider-writes.ts';
import * as repo from './repo.ts';

export type TemplateDeletion = { status: 204 } | { status: 207; message: string };

/** The developer's template, or 404. */
export async function templateOf(db: Db, developer: Developer, workoutId: string): Promise<repo.TemplateRow> {
  const row = await repo.findTemplate(db, developer.id, requireId('workout_id', workoutId));
  if (!row) throw notFound(`no workout template with workout_id ${workoutId}`);
  return row;
}

export const asTemplate = (row: repo.TemplateRow): WorkoutTemplate => ({
  ...(row.template as WorkoutTemplate),
  workout_id: row.id,
});

export function createTemplates(deps: WorkoutsDeps, writes: ProviderWrites) {
  const { db, clock } = deps;
  const { unpushAtProvider } = writes;

  return {
    async createTemplate(developer: Developer, template: WorkoutTemplate) {
      const { workout_id: _ignored, ...stored } = template;
      const id = await repo.insertTemplate(db, {
        developerId: developer.id,
        template: stored,
        now: clock.now(),
      });
      return { status: 'success' as const, workout_id: id };
    },

    async listTemplates(developer: Developer): Promise<WorkoutTemplate[]> {
      return (await repo.listTemplates(db, developer.id)).map(asTemplate);
    },

    async getTemplate(developer: Developer, workoutId: string): Promise<WorkoutTemplate> {
      return asTemplate(await templateOf(db, developer, workoutId));
    },

    /**
     * Deletes the template and every workout planned from it, at the provider too. When the
     * provider refuses some deletions the template stays (207: retry to finish); when it cannot
     * be reached at all, 424 and nothing changed.
     */
    async deleteTemplate(developer: Developer, workoutId: string): Promise<TemplateDeletion> {
      const template = await templateOf(db, developer, workoutId);
      const planned = await repo.plannedOfTemplate(db, developer.id, template.id);
      const byUser = Map.groupBy(planned, (row) => row.user_id);
      let failed = 0;
      let reached = 0;
      let lastError: ProviderDataError | null = null;
      for (const [userId, rows] of byUser) {
        const user = await findConnectionById(db, userId);
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
  };
}
