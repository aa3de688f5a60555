// Time and state helpers shared by the WHOOP normalizers. WHOOP writes instants in UTC (`Z`) and
// the user's offset at the time separately (`timezone_offset`), so every datetime is re-written
// in that offset. Cannot map: nothing here maps fields; a malformed datetime is an error.
import { UploadType } from '../../../model/enums.ts';
import { formatDateTime } from '../../../model/time.ts';
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
