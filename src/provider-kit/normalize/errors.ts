// A provider payload that is not in the shape its documentation gives. Normalizers read
// payloads as the documented types; a field of another type (an object where a list was
// promised) would surface as a TypeError from deep inside a loop. `normalizeEach` turns that
// into a NormalizationError naming the item, and keeps the rest of the page: one bad record
// is skipped (and reported, so the sync logs it), never the whole fetch.

export class NormalizationError extends Error {
  override name = 'NormalizationError';
  /** What was being normalized (`<PROVIDER> workout 123`): the provider, the kind and the payload's identity. */
  readonly item: string;
  /** The field at fault (`metadata.summary_id`), when one is known. */
  readonly field: string | null;

  constructor(item: string, message: string, options: { cause?: unknown; field?: string } = {}) {
    super(`${item}: ${message}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.item = item;
    this.field = options.field ?? null;
  }
}

/** Why an item of a page was not normalized. */
export type NormalizationProblem = { item: string; problem: string };

/** Throws a NormalizationError unless `value` is a plain object. */
export function expectObject(item: string, value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new NormalizationError(item, `expected an object, got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

/** Throws a NormalizationError unless `value` is an array (absent reads as empty). */
export function expectArray(item: string, value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw new NormalizationError(item, `expected a list, got ${describe(value)}`);
  return value;
}

const describe = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;

/**
 * Normalizes each item on its own: the records of the items that are in shape, and a problem
 * for each item that is not (any error becomes a NormalizationError naming it).
 */
export function normalizeEach<I, R>(
  items: readonly I[],
  label: (item: I, index: number) => string,
  normalize: (item: I) => R | readonly R[] | null,
): { records: R[]; rejected: NormalizationProblem[] } {
  const records: R[] = [];
  const rejected: NormalizationProblem[] = [];
  items.forEach((item, index) => {
    let name = `item ${index}`;
    try {
      name = label(item, index);
      const result = normalize(item);
      if (result === null) return;
      if (Array.isArray(result)) records.push(...(result as readonly R[]));
      else records.push(result as R);
    } catch (error) {
      const problem =
        error instanceof NormalizationError ? error.message : `${name}: ${describeError(error)}`;
      rejected.push({ item: name, problem });
    }
  });
  return { records, rejected };
}

function describeError(error: unknown): string {
  if (error instanceof TypeError) return `not in the documented shape (${error.message})`;
  return error instanceof Error ? error.message : String(error);
}
