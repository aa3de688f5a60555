// Scores Tributary computes itself (docs/scores.md), carried beside the provider's own under
// `data_enrichment.tributary` of daily and sleep records. Every object names its method and
// version; `filled` lists the standard fields (paths in the record) that held nothing from the
// provider and were filled from it. Provider values are never overwritten.
import Type from 'typebox';
import { Nullable, NullableNumber } from './schema-helpers.ts';

const marks = {
  method: Type.String({ description: 'the method that computed these values (docs/scores.md)' }),
  version: Type.String({ description: 'the version of that method; a new version may change values' }),
  filled: Type.Optional(
    Type.Array(Type.String(), {
      description: 'standard fields (dotted paths) the provider left empty, filled from these values',
    }),
  ),
};

const contributors = (description: string) =>
  Nullable(Type.Record(Type.String(), Type.Number(), { description }));

export const ComputedDeviation = Type.Object(
  {
    value: Type.Number({ description: 'the day’s value' }),
    baseline: Type.Number({ description: 'mean over the 21 days before (at least 14 values)' }),
    sd: Type.Number({ description: 'sample standard deviation of the baseline window' }),
    days: Type.Number({ description: 'values in the baseline window' }),
    deviation: Type.Number({ description: 'value − baseline' }),
    deviation_percent: Type.Number({ description: '(value − baseline) / baseline × 100' }),
    z: Type.Number({ description: '(value − baseline) / max(sd, floor)' }),
    ln_z: Type.Optional(
      Type.Number({ description: 'HRV only: the z-score of ln RMSSD against its baseline' }),
    ),
  },
  { title: 'ComputedDeviation' },
);

export const ComputedTrainingLoad = Type.Object(
  {
    load: NullableNumber({ description: 'the day’s Banister TRIMP (sum of its sessions)' }),
    acute_load: NullableNumber({ description: 'mean daily load of the last 7 days' }),
    chronic_load: NullableNumber({ description: 'mean daily load of the last 28 days' }),
    acwr: NullableNumber({ description: 'acute:chronic workload ratio' }),
    monotony: NullableNumber({ description: 'Foster: 7-day mean / 7-day standard deviation' }),
    strain: NullableNumber({ description: 'Foster: 7-day total × monotony' }),
    trimp_coefficients: Type.Optional(
      Type.String({
        description:
          'Banister’s coefficients used: `male`, `female` (the athlete profile’s sex) or `male (sex unknown)`',
      }),
    ),
  },
  { title: 'ComputedTrainingLoad' },
);

export const ComputedDailyScores = Type.Object(
  {
    ...marks,
    recovery_score: NullableNumber({ description: '0–100; null until the baselines hold enough days' }),
    recovery_contributors: contributors('hrv_z, resting_hr_z (clipped to ±3), sleep_performance (0–1)'),
    sleep_score: NullableNumber({ description: 'the computed score of the night that ended this day' }),
    resting_hr: Nullable(ComputedDeviation),
    hrv_rmssd: Nullable(ComputedDeviation),
    training_load: Nullable(ComputedTrainingLoad),
  },
  { title: 'ComputedDailyScores' },
);

export const ComputedSleepScores = Type.Object(
  {
    ...marks,
    sleep_score: NullableNumber({ description: '0–100; null for naps and without enough earlier nights' }),
    sleep_contributors: contributors('the pillars, each 0–100: duration, stages, consistency, interruptions'),
  },
  { title: 'ComputedSleepScores' },
);
