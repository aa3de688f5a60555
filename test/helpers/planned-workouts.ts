/** A planned run as a developer posts it (the current PlannedWorkout object): one steady step. */
export const plannedRun = (name: string, plannedDate: string) => ({
  metadata: {
    name,
    type: 'RUNNING',
    planned_date: plannedDate,
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
});
