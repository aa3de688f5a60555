// Menstruation: one day of cycle tracking (docs/wire-contract.md#data-model).
// Identity: start_time + end_time.
import Type, { type Static } from 'typebox';
import { MenstrualPhaseSchema, MenstruationIntervalSchema } from './enums.ts';
import { MenstruationFlowSample, MenstruationIntervalSample } from './samples.ts';
import {
  Nullable,
  NullableArray,
  NullableDateTime,
  NullableInteger,
  NullableString,
} from './schema-helpers.ts';
import { dayBounds, timestampLocalization } from './shared.ts';

export const MenstruationData = Type.Object(
  {
    period_length_days: NullableInteger(),
    /** The SDK's string phase, or the newer integer `MenstruationInterval`. */
    current_phase: Nullable(Type.Union([MenstrualPhaseSchema, MenstruationIntervalSchema])),
    length_of_current_phase_days: NullableInteger(),
    days_until_next_phase: NullableInteger(),
    period_start_date: NullableString({ description: 'ISO date' }),
    predicted_cycle_length_days: NullableInteger(),
    day_in_cycle: NullableInteger({ description: '1 on the first day of the period' }),
    last_updated_time: NullableDateTime(),
    /** A string in the SDK ("28"), an integer in the newer schema. */
    cycle_length_days: Nullable(Type.Union([Type.String(), Type.Integer()])),
    /** A string in the SDK ("false"), a boolean in the newer schema. */
    is_predicted_cycle: Nullable(Type.Union([Type.String(), Type.Boolean()])),
    menstruation_flow: NullableArray(MenstruationFlowSample),
    intervals: NullableArray(MenstruationIntervalSample),
    fertility_window_start: NullableString({ description: 'ISO date' }),
    fertility_window_end: NullableString({ description: 'ISO date' }),
    ovulation_day: NullableString({ description: 'ISO date' }),
  },
  { title: 'MenstruationData' },
);

export const Menstruation = Type.Object(
  {
    metadata: Type.Object(
      { ...dayBounds, timestamp_localization: timestampLocalization },
      { title: 'MenstruationMetadata' },
    ),
    menstruation_data: Nullable(MenstruationData),
  },
  {
    $id: 'Menstruation',
    title: 'Menstruation',
    description: 'One day of menstrual-cycle tracking. Identity: start_time + end_time.',
  },
);

export type Menstruation = Static<typeof Menstruation>;
