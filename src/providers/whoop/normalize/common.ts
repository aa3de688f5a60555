// Time and state helpers shared by the WHOOP normalizers. WHOOP writes instants in UTC (`Z`) and
// the user's offset at the time separately (`timezone_offset`), so every datetime is re-written
// in that offset. Cannot map: nothing here maps fields; a malformed datetime is an error.
import { UploadType } from '../../../model/enums.ts';
import { formatDateTime } from '../../../model/time.ts';
import { NormalizationError } from '../../../provider-kit/normalize/errors.ts';
import { type NormalizeContext, tzdOffsetMinutes } from '../../../provider-kit/normalize/normalize.ts';
import type { WhoopScoreState } from './types.ts';

export function offsetOf(timezoneOffset: string | null | undefined, context: NormalizeContext): number {
  return tzdOffsetMinutes(timezoneOffset) ?? context.userOffsetMinutes ?? 0;
}

export function instant(text: string): number {
  const epochMs = Date.parse(text);
  if (Number.isNaN(epochMs)) throw new RangeError(`invalid WHOOP datetime: ${text}`);
  return epochMs;
}

export function wire(text: string, offsetMinutes: number): string {
  return formatDateTime(instant(text), offsetMinutes);
}

/** PENDING_SCORE records are re-sent once scored: mark them pending rather than final. */
export function uploadTypeOf(state: WhoopScoreState) {
  return state === 'PENDING_SCORE' ? UploadType.PENDING : UploadType.AUTOMATIC;
}

/**
 * A sleep's or workout's id as text: the UUID of the v2 shape, or the long of the v1 shape
 * (WHOOP's v1-v2 migration guide: v1 ids are longs). The model keys records by a string id, so a
 * long is written in decimal; anything else is not an id WHOOP documents.
 */
export function idText(kind: 'sleep' | 'workout', id: unknown): string {
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) return String(id);
  const shown = id === undefined ? 'without id' : JSON.stringify(id).slice(0, 40);
  throw new NormalizationError(`WHOOP ${kind} ${shown}`, 'id: expected a UUID (v2) or a long (v1)', {
    field: 'id',
  });
}
