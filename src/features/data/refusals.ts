// Provider records refused on their way into the store, counted per provider, type, stage and
// field in this process, for the operator (the `tributary_records_refused_total` metric). Two
// stages refuse: the provider's normalizer (a payload not in its documented shape) and the model
// (a normalized record that fails the unified model's schema or plausibility rules). A refused
// record is never stored; the rest of its batch is.
import type { Logger } from 'pino';
import { NormalizationError, type NormalizationProblem } from '../../provider-kit/normalize/errors.ts';

export type RefusalStage = 'normalizer' | 'model';
export type RefusalCount = {
  provider: string;
  type: string;
  stage: RefusalStage;
  /** The field at fault, array positions as `*` (labels stay few); '' when not known. */
  field: string;
  count: number;
};

/** At most this many refusals of one batch are named in its log line (the count says the rest). */
const NAMED_PER_LINE = 5;

const labelOf = (field: string | null) => (field ?? '').replace(/\.\d+(?=\.|$)/g, '.*');

export function createRefusals() {
  const counts = new Map<string, RefusalCount>();

  function add(entry: Omit<RefusalCount, 'count' | 'field'> & { field: string | null }, by = 1) {
    const field = labelOf(entry.field);
    const key = JSON.stringify([entry.provider, entry.type, entry.stage, field]);
    const current = counts.get(key);
    if (current) current.count += by;
    else
      counts.set(key, { provider: entry.provider, type: entry.type, stage: entry.stage, field, count: by });
  }

  return {
    /**
     * Counts and logs (warn, one line per batch with its count) the records the model refused;
     * each is a NormalizationError naming the provider, the type, the payload's identity and
     * the field.
     */
    modelRefused(
      log: Logger,
      at: { userId: string; provider: string; type: string },
      refused: readonly NormalizationError[],
    ) {
      if (refused.length === 0) return;
      for (const error of refused) add({ ...at, stage: 'model', field: error.field });
      log.warn(
        {
          userId: at.userId,
          provider: at.provider,
          type: at.type,
          invalid: refused.length,
          refused: refused
            .slice(0, NAMED_PER_LINE)
            .map((error) => ({ item: error.item, field: error.field, problem: error.message })),
        },
        'provider records failed model validation and were not stored',
      );
    },

    /** Counts the payload items a provider's normalizer refused (each is logged where it is read). */
    normalizerRefused(
      at: { provider: string; type: string },
      refused: readonly NormalizationProblem[] | undefined,
    ) {
      if (refused && refused.length > 0) add({ ...at, stage: 'normalizer', field: null }, refused.length);
    },

    /** Every count since the process started. */
    snapshot(): RefusalCount[] {
      return [...counts.values()].map((entry) => ({ ...entry }));
    },
  };
}

export type Refusals = ReturnType<typeof createRefusals>;

/** The NormalizationError for a record the model refused. */
export function modelRefusal(
  at: { provider: string; type: string },
  identity: string | null,
  index: number,
  refusal: { problem: string; field: string | null },
): NormalizationError {
  const item = `${at.provider} ${at.type} ${identity ?? `(record ${index} of the batch, no identity)`}`;
  return new NormalizationError(item, refusal.problem, refusal.field ? { field: refusal.field } : {});
}
