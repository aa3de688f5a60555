// Reading model records generically: whether a section holds anything, how complete a record
// is, values at dotted paths. The merge rules pick whole sections (`heart_rate_data`,
// `sleep_durations_data`, …) from the source best at them, so they need to know which sections a
// record really filled: a section of nulls and empty arrays is not heart rate.
type Json = unknown;

/** Whether a value holds any measurement: a number, string or boolean somewhere, or a non-empty array. */
export function hasContent(value: Json): boolean {
  if (value === null || value === undefined) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.values(value as object).some(hasContent);
  return true;
}

/** Filled leaves, counting an array as its length: how much a record says. */
export function completenessOf(value: Json): number {
  if (value === null || value === undefined) return 0;
  if (Array.isArray(value)) return value.length;
  if (typeof value === 'object') {
    let total = 0;
    for (const child of Object.values(value as object)) total += completenessOf(child);
    return total;
  }
  return 1;
}

export function valueAt(record: Json, path: string): Json {
  let node: Json = record;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, Json>)[key];
  }
  return node;
}

/**
 * Sets a value at a dotted path, copying each object on the way (never the input's): a merged
 * record shares every untouched section with the stored records it came from, so merging costs
 * what it changes, not what the records hold.
 */
export function setAt(record: Record<string, Json>, path: string, value: Json): void {
  const keys = path.split('.');
  let node = record;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    const copy =
      next !== null && typeof next === 'object' && !Array.isArray(next) ? { ...(next as object) } : {};
    node[key] = copy;
    node = copy as Record<string, Json>;
  }
  node[keys.at(-1)!] = value;
}

/** Epoch milliseconds of an ISO date-time, or null. */
export function msOf(text: Json): number | null {
  if (typeof text !== 'string') return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
}

/** The local calendar day an ISO date-time with offset names (its first ten characters). */
export const localDayOfText = (text: string) => text.slice(0, 10);
