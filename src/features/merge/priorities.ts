// A developer's source order, checked before it is stored: known families only, each entry a
// device kind or a provider this deployment knows, none twice. A wrong name would otherwise be
// ignored silently and the developer would wonder why the order does nothing.
import { invalidParameter } from '../../core/errors.ts';
import { DEVICE_KINDS } from '../../provider-kit/types.ts';
import { MERGE_FAMILIES, type MergeFamily, type Priorities } from './engine/sources.ts';

export const MAX_ENTRIES = 64;

export function validatePriorities(
  input: Record<string, unknown>,
  providerIds: readonly string[],
): Priorities {
  const known = new Set<string>([...DEVICE_KINDS, ...providerIds]);
  const priorities: Priorities = {};
  for (const [family, order] of Object.entries(input)) {
    const field = `priorities.${family}`;
    if (!(MERGE_FAMILIES as readonly string[]).includes(family)) {
      throw invalidParameter(
        'priorities',
        `unknown metric family "${family}"; families are ${MERGE_FAMILIES.join(', ')}`,
      );
    }
    if (!Array.isArray(order))
      throw invalidParameter(field, 'must be an array of provider ids and device kinds');
    if (order.length > MAX_ENTRIES) throw invalidParameter(field, `at most ${MAX_ENTRIES} entries`);
    const seen = new Set<string>();
    for (const [index, entry] of order.entries()) {
      if (typeof entry !== 'string' || !known.has(entry)) {
        throw invalidParameter(
          `${field}[${index}]`,
          `${JSON.stringify(entry)} is neither a device kind (${DEVICE_KINDS.join(', ')}) nor a provider id`,
        );
      }
      if (seen.has(entry)) throw invalidParameter(`${field}[${index}]`, `"${entry}" is listed twice`);
      seen.add(entry);
    }
    priorities[family as MergeFamily] = order as string[];
  }
  return priorities;
}
