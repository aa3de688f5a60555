// HealthKit quantity and category samples, and the day's Activity rings (an activity summary).
import {
  type MobileSample,
  lookupOwn,
  MobileRecordError,
  numberOf,
  optionalString,
  requireString,
  textOf,
} from '../../provider-kit/mobile/samples.ts';
import { FLOW_VALUES, QUANTITIES, SLEEP_VALUES } from './record-types.ts';
import { idOf, span } from './sample-fields.ts';
import { sourceOf } from './sources.ts';
import { convert, ENERGY_KCAL } from './units.ts';

type Json = Record<string, unknown>;

const RECORD_IDENTITY = ['type', 'sourceName', 'startDate', 'endDate', 'value', 'unit'] as const;

/** One HealthKit quantity or category sample. Types Tributary has no place for yield nothing. */
export function readAppleRecord(record: Json): MobileSample[] {
  const type = requireString(record, 'type');
  const base = { id: idOf(record, RECORD_IDENTITY), source: sourceOf(record), ...span(record) };
  const quantity = QUANTITIES[type];
  if (quantity) {
    const raw = numberOf(record.value);
    if (raw === null) throw new MobileRecordError(`value of ${type} is not a number`);
    const value = quantity.to(raw, optionalString(record, 'unit'), type);
    if (quantity.part)
      return [{ ...base, kind: 'nutrition', value: null, parts: { [quantity.part]: value } }];
    return [{ ...base, kind: quantity.kind, value }];
  }
  if (type === 'HKCategoryTypeIdentifierSleepAnalysis') {
    const level = lookupOwn(SLEEP_VALUES, record.value);
    if (level === undefined) throw new MobileRecordError(`sleep value ${textOf(record.value)} is not known`);
    return [{ ...base, kind: 'sleep', value: null, level }];
  }
  if (type === 'HKCategoryTypeIdentifierMenstrualFlow') {
    const level = lookupOwn(FLOW_VALUES, record.value);
    if (level === undefined)
      throw new MobileRecordError(`menstrual flow ${textOf(record.value)} is not known`);
    return [{ ...base, kind: 'menstrual_flow', value: null, level }];
  }
  return [];
}

/** The day's Activity rings: a day, not a time. */
export function readAppleActivitySummary(summary: Json): MobileSample[] {
  const day = requireString(summary, 'dateComponents');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new MobileRecordError(`dateComponents "${day}" is not a date`);
  const parts: Record<string, number> = {};
  const energy = numberOf(summary.activeEnergyBurned);
  if (energy !== null)
    parts.active_energy_kcal = convert(
      energy,
      optionalString(summary, 'activeEnergyBurnedUnit') ?? 'kcal',
      ENERGY_KCAL,
      'activeEnergyBurned',
    );
  const exercise = numberOf(summary.appleExerciseTime);
  if (exercise !== null) parts.exercise_minutes = exercise;
  const stand = numberOf(summary.appleStandHours);
  if (stand !== null) parts.stand_hours = stand;
  const at = Date.parse(`${day}T00:00:00Z`);
  return [
    {
      id: `summary:${day}`,
      kind: 'activity_summary',
      startMs: at,
      endMs: at,
      offsetMinutes: 0,
      day,
      value: null,
      parts,
      source: { name: 'Activity', device: 'other', model: null, manufacturer: null },
    },
  ];
}
