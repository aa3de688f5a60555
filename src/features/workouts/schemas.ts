// Route schemas of the workouts API: the vendor's current `/workouts` and `/plannedWorkouts`, and
// the older contract's `/plannedWorkout` writes. Ids are 64-bit integers sent as strings; a
// malformed one is a 400 naming it (checked by the service, so the message says which).
import Type from 'typebox';
import { WorkoutTemplate } from '../../model/workout-template.ts';
import { User } from '../connections/schemas.ts';

const UserId = Type.String({ description: 'UUID of the user (connection)' });
const Day = (description: string) => Type.String({ description: `YYYY-MM-DD; ${description}` });
const Metric = (description: string) =>
  Type.Optional(Type.Number({ minimum: 0, maximum: 100_000, description }));

export { WorkoutTemplate };

export const TemplateCreated = Type.Object({
  status: Type.Literal('success'),
  workout_id: Type.String({ description: 'Id of the stored template', examples: ['42'] }),
});

export const TemplateParams = Type.Object({
  workout_id: Type.String({ description: 'Template id (an integer)', examples: ['42'] }),
});

export const TemplateUpdated = Type.Object(
  {
    status: Type.Union([Type.Literal('success'), Type.Literal('partial')]),
    workout_id: Type.String(),
    planned_workouts_updated: Type.Array(Type.String(), {
      description: 'Upcoming planned workouts re-sent from the new template',
    }),
    planned_workouts_failed: Type.Array(
      Type.Object({ planned_workout_id: Type.String(), reason: Type.String() }),
      { description: 'Upcoming planned workouts the provider refused; they keep their previous body' },
    ),
  },
  { description: 'The template is replaced; 207 when some upcoming planned workouts could not be re-sent' },
);

export const TemplatePartlyDeleted = Type.Object(
  { message: Type.String() },
  { description: 'Some provider-side deletions failed; the template is kept. Retry to finish.' },
);

export const UserQuery = Type.Object({ user_id: UserId });

export const PlanBody = Type.Object({
  planned_date: Day('the day to schedule the workout on'),
  ftp: Metric('Functional Threshold Power in watts'),
  max_heart_rate: Metric('Maximum heart rate in BPM'),
  threshold_heart_rate: Metric('Threshold heart rate in BPM'),
  threshold_speed: Metric('Threshold speed in m/s'),
  pool_length_meters: Metric('Pool length in meters (overrides the template)'),
});

export const PlanCreated = Type.Object({
  status: Type.Literal('success'),
  planned_workout_id: Type.String(),
  provider_workout_id: Type.Optional(
    Type.String({ description: 'The provider’s id; absent when queued for the mobile SDK' }),
  ),
  coercion_warnings: Type.Optional(
    Type.String({ description: 'What the provider body could not represent exactly' }),
  ),
});

export const PlannedListQuery = Type.Object({
  user_id: UserId,
  start_date: Type.Optional(
    Day(
      'start of the planned-date window. Without dates: every workout planned through Tributary, and the provider’s of the trailing 30 days',
    ),
  ),
  end_date: Type.Optional(Day('end of the window, inclusive')),
});

export const PlannedParams = Type.Object({
  planned_workout_id: Type.String({ description: 'Planned workout id (an integer)', examples: ['17'] }),
});

export const RescheduleBody = Type.Object({ planned_date: Day('the new scheduled date') });

export const PlannedWorkoutSummary = Type.Object(
  {
    planned_workout_id: Type.String(),
    planned_date: Type.String({ description: 'YYYY-MM-DD' }),
    is_external: Type.Boolean({ description: 'Always false: provider-created workouts have no id here' }),
    workout_id: Type.Optional(Type.String({ description: 'The template; absent when planned without one' })),
    provider_workout_id: Type.Optional(Type.String({ description: 'The provider’s id, once pushed' })),
    coercion_warnings: Type.Optional(Type.String()),
  },
  { title: 'PlannedWorkoutSummary' },
);

// --- The older contract: POST / DELETE /v2/plannedWorkout --------------------------------------

export const PlannedWorkoutCreateBody = Type.Object(
  {
    data: Type.Array(Type.Ref('PlannedWorkoutDetails'), {
      minItems: 1,
      maxItems: 100,
      description:
        'Workouts to plan at the provider (without a template); any metadata.id is replaced by the id the provider assigns',
    }),
  },
  {
    examples: [
      {
        data: [
          {
            metadata: {
              name: 'Tempo run',
              type: 'RUNNING',
              planned_date: '2025-01-06T07:00:00.000000+00:00',
              estimated_duration_seconds: 2700,
            },
            steps: [
              {
                type: 'RunningPlannedWorkoutStep',
                order: 1,
                name: 'Steady',
                intensity: 'ACTIVE',
                durations: [{ type: 'TimePlannedWorkoutStepDuration', duration_type: 'TIME', seconds: 2700 }],
                targets: [],
              },
            ],
          },
        ],
      },
    ],
  },
);

export const PlannedWorkoutCreated = Type.Object({
  user: User,
  log_ids: Type.Array(Type.String(), {
    description: 'planned_workout_ids of the created workouts, in posted order',
  }),
  message: Type.String({ examples: ['Planned workout successfully created'] }),
});

export const PlannedWorkoutDeleteBody = Type.Object(
  {
    data: Type.Array(Type.String(), {
      minItems: 1,
      maxItems: 100,
      description: 'planned_workout_ids, or the provider’s ids of planned workouts, to delete',
    }),
  },
  { examples: [{ data: ['7d0e4c1b-2a9f-4e63-b8d5-1f3a6c9e2b70'] }] },
);

export const PlannedWorkoutDeleted = Type.Object(
  {
    user: User,
    processed_data: Type.Array(
      Type.Object({
        id: Type.String(),
        response_code: Type.Integer({ description: '200 deleted, 404 unknown id, 502 the provider refused' }),
      }),
    ),
  },
  { description: '200 when every id was deleted; 207 when any was not (processed_data says which)' },
);
