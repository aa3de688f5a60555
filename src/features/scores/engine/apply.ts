// Puts computed scores into a record (docs/scores.md#on-the-wire): the whole computation under
// `data_enrichment.tributary`, and the standard fields the provider left empty filled from it,
// listed in `filled`. A provider's value is never replaced; what an earlier computation filled is
// taken back first, so recomputing is idempotent and a provider value arriving later wins.
import type { DailyComputed, SleepComputed } from './day-scores.ts';

type Json = Record<string, unknown>;

/** [path in the record, value] pairs to fill where the record holds nothing. */
type Fill = [section: 'scores' | 'data_enrichment', field: string, value: unknown];

const isEmpty = (value: unknown) =>
  value === undefined ||
  value === null ||
  (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0);

function apply(record: Json, computed: DailyComputed | SleepComputed, fills: Fill[]): Json {
  const previous = (record.data_enrichment as Json | null | undefined)?.tributary as Json | undefined;
  const out: Json = { ...record };
  const sections: Record<'scores' | 'data_enrichment', Json> = {
    scores: { ...((record.scores as Json | null | undefined) ?? {}) },
    data_enrichment: { ...((record.data_enrichment as Json | null | undefined) ?? {}) },
  };
  // Take back what an earlier computation filled.
  for (const path of (previous?.filled as string[] | undefined) ?? []) {
    const [section, field] = path.split('.') as ['scores' | 'data_enrichment', string];
    if (section in sections && field) delete sections[section][field];
  }
  const filled: string[] = [];
  for (const [section, field, value] of fills) {
    if (isEmpty(value) || !isEmpty(sections[section][field])) continue;
    sections[section][field] = value;
    filled.push(`${section}.${field}`);
  }
  sections.data_enrichment.tributary = { ...computed, filled };
  const hadScores = record.scores !== undefined && record.scores !== null;
  if (hadScores || Object.keys(sections.scores).length > 0) out.scores = sections.scores;
  out.data_enrichment = sections.data_enrichment;
  return out;
}

export function applyDaily(record: Json, computed: DailyComputed): Json {
  return apply(record, computed, [
    ['scores', 'recovery', computed.recovery_score],
    ['scores', 'sleep', computed.sleep_score],
    ['data_enrichment', 'readiness_score', computed.recovery_score],
    [
      'data_enrichment',
      'readiness_contributors',
      computed.recovery_score === null ? null : computed.recovery_contributors,
    ],
  ]);
}

export function applySleep(record: Json, computed: SleepComputed): Json {
  return apply(record, computed, [
    ['scores', 'sleep', computed.sleep_score],
    ['scores', 'sleep_score', computed.sleep_score],
    ['data_enrichment', 'sleep_score', computed.sleep_score],
    [
      'data_enrichment',
      'sleep_contributors',
      computed.sleep_score === null ? null : computed.sleep_contributors,
    ],
  ]);
}

/** JSON text with object keys sorted: the store (jsonb) does not keep the order keys were written in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Json)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonical(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The part of a record scores write, key order aside: compared to tell whether a rewrite changes anything. */
export const scoredPart = (record: Json) =>
  canonical([record.scores ?? null, record.data_enrichment ?? null]);
