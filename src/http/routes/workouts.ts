// Workout templates and planned workouts (the vendor's current `/workouts`, `/plannedWorkouts`),
// and the older contract's `POST`/`DELETE /v2/plannedWorkout` over the same store. Thin: the
// workouts service decides. Answers are written with JSON.stringify (schemas document them).
import Type from 'typebox';
import type { AppContext } from '../../features/context.ts';
import type { PlannedWorkoutDetails } from '../../model/planned-workout.ts';
import type { WorkoutTemplate as Template } from '../../model/workout-template.ts';
import type { App } from '../app-type.ts';
import {
  PlanBody,
  PlanCreated,
  PlannedListQuery,
  PlannedParams,
  PlannedWorkoutCreateBody,
  PlannedWorkoutCreated,
  PlannedWorkoutDeleteBody,
  PlannedWorkoutDeleted,
  PlannedWorkoutSummary,
  RescheduleBody,
  TemplateCreated,
  TemplateParams,
  TemplatePartlyDeleted,
  TemplateUpdated,
  UserQuery,
  WorkoutTemplate,
} from '../../features/workouts/schemas.ts';

const tags = ['workouts'];
const config = { auth: 'developer' as const };
const plainJson = () => (data: unknown) => JSON.stringify(data);
const Nothing = Type.Null({ description: 'No body' });

const PROVIDER_NOTE =
  'Pushed to the user’s provider where it takes planned workouts, queued for the mobile SDK where the ' +
  'provider is on-device; a provider that takes none: 400. The provider refusing: 424 with Retry-After.';

export function registerWorkoutRoutes(app: App, ctx: AppContext) {
  const workouts = ctx.workouts;

  app.post(
    '/v2/workouts',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Store a workout template (planned onto calendars with /workouts/{workout_id}/plan)',
        body: WorkoutTemplate,
        response: { 200: TemplateCreated },
      },
    },
    async (request) => workouts.createTemplate(request.developer, request.body as Template),
  );

  app.get(
    '/v2/workouts',
    {
      config,
      serializerCompiler: plainJson,
      schema: { tags, summary: 'Your workout templates', response: { 200: Type.Array(WorkoutTemplate) } },
    },
    async (request) => workouts.listTemplates(request.developer),
  );

  app.get(
    '/v2/workouts/:workout_id',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'One workout template',
        params: TemplateParams,
        response: { 200: WorkoutTemplate },
      },
    },
    async (request) => workouts.getTemplate(request.developer, request.params.workout_id),
  );

  app.put(
    '/v2/workouts/:workout_id',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Replace a template and re-send it to every upcoming workout planned from it',
        description:
          'Follows the vendor’s October 2026 changelog (docs/wire-contract.md#planned-workouts). ' +
          'Upcoming: planned on today or later (UTC). Each is planned again with the athlete metrics it was planned ' +
          'with and pushed to its provider (the previous copy deleted there) or queued again for the mobile SDK. ' +
          '200 when all were re-sent; 207 listing those the provider refused (they keep their previous body; ' +
          'PUT again to retry).',
        params: TemplateParams,
        body: WorkoutTemplate,
        response: { 200: TemplateUpdated, 207: TemplateUpdated },
      },
    },
    async (request, reply) => {
      const outcome = await workouts.updateTemplate(
        request.developer,
        request.params.workout_id,
        request.body as Template,
      );
      return reply.code(outcome.status).send(outcome.body);
    },
  );

  app.delete(
    '/v2/workouts/:workout_id',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Delete a template and every workout planned from it (at the provider too)',
        description:
          '204 when everything is gone; 207 when the provider refused some deletions (the template is kept: retry); ' +
          '424 when the provider could not be reached.',
        params: TemplateParams,
        response: { 204: Nothing, 207: TemplatePartlyDeleted },
      },
    },
    async (request, reply) => {
      const outcome = await workouts.deleteTemplate(request.developer, request.params.workout_id);
      if (outcome.status === 207) return reply.code(207).send({ message: outcome.message });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v2/workouts/:workout_id/plan',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Plan a template onto a user’s calendar on a date',
        description: `${PROVIDER_NOTE} Athlete metrics personalise zone-based targets for this plan only.`,
        params: TemplateParams,
        querystring: UserQuery,
        body: PlanBody,
        response: { 201: PlanCreated },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await workouts.plan(
            request.developer,
            request.params.workout_id,
            request.query.user_id,
            request.body,
          ),
        ),
  );

  app.get(
    '/v2/plannedWorkouts',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary:
          'A user’s planned workouts: planned through Tributary, and created at the provider (is_external)',
        description:
          'Follows the vendor’s September 2026 changelog: plans other apps pushed to the provider are listed where its API ' +
          'shows them (TrainingPeaks, Intervals.icu; Garmin shows only what Tributary scheduled). ' +
          'Provider-created workouts carry their body under details. end_date is inclusive. Without dates: every ' +
          'workout planned through Tributary, and the provider’s of the trailing 30 days. A provider failure: 503.',
        querystring: PlannedListQuery,
        response: { 200: Type.Array(Type.Ref('PlannedWorkout')) },
      },
    },
    async (request) =>
      workouts.list(request.developer, request.query.user_id, {
        start_date: request.query.start_date,
        end_date: request.query.end_date,
      }),
  );

  app.get(
    '/v2/plannedWorkouts/:planned_workout_id',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'One planned workout made through Tributary',
        params: PlannedParams,
        querystring: UserQuery,
        response: { 200: PlannedWorkoutSummary },
      },
    },
    async (request) =>
      workouts.get(request.developer, request.query.user_id, request.params.planned_workout_id),
  );

  app.patch(
    '/v2/plannedWorkouts/:planned_workout_id',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Reschedule a planned workout (the provider’s copy is replaced)',
        description: PROVIDER_NOTE,
        params: PlannedParams,
        querystring: UserQuery,
        body: RescheduleBody,
        response: { 200: PlannedWorkoutSummary },
      },
    },
    async (request) =>
      workouts.reschedule(
        request.developer,
        request.query.user_id,
        request.params.planned_workout_id,
        request.body.planned_date,
      ),
  );

  app.delete(
    '/v2/plannedWorkouts/:planned_workout_id',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Delete a planned workout from the calendar and the provider',
        description: 'The provider refusing: 424.',
        params: PlannedParams,
        querystring: UserQuery,
        response: { 204: Nothing },
      },
    },
    async (request, reply) => {
      await workouts.remove(request.developer, request.query.user_id, request.params.planned_workout_id);
      return reply.code(204).send(null);
    },
  );

  // The older contract's writes, over the same store (its reads are GET /v2/plannedWorkout, a data read).
  app.post(
    '/v2/plannedWorkout',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Older contract: plan workouts without a template (same store as /plannedWorkouts)',
        description:
          'log_ids are planned_workout_ids. Providers that cannot accept planned workouts: 400; the provider ' +
          'refusing: 503 with Retry-After.',
        querystring: UserQuery,
        body: PlannedWorkoutCreateBody,
        response: { 201: PlannedWorkoutCreated },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await workouts.createLegacy(
            request.developer,
            request.query.user_id,
            request.body.data as PlannedWorkoutDetails[],
          ),
        ),
  );

  app.delete(
    '/v2/plannedWorkout',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Older contract: delete planned workouts by planned_workout_id or provider id',
        querystring: UserQuery,
        body: PlannedWorkoutDeleteBody,
        response: { 200: PlannedWorkoutDeleted, 207: PlannedWorkoutDeleted },
      },
    },
    async (request, reply) => {
      const outcome = await workouts.removeLegacy(
        request.developer,
        request.query.user_id,
        request.body.data,
      );
      return reply.code(outcome.status).send({ user: outcome.user, processed_data: outcome.processed });
    },
  );
}
