// Oura tag and enhanced_tag -> TagEntry (Daily.tag_data.tags, grouped by the tag's day).
//
// Cannot map: an enhanced tag's `end_time`/`end_day` (TagEntry is an instant, not a span) and
// its `id`. A text-only note (no tag selected) becomes a TagEntry named `note`, because TagEntry
// requires a name. Times without an offset (Oura's LocalDateTime) are read in the day's offset.
import type { Static } from 'typebox';
import type { TagEntry } from '../../../model/samples.ts';
import { formatDateTime } from '../../../model/time.ts';
import { instantOf, trailingOffsetMinutes } from '../../../provider-kit/normalize/normalize.ts';
import type { OuraEnhancedTag, OuraTag } from './types.ts';

export type OuraTagEntry = Static<typeof TagEntry>;

function timestampOf(text: string, fallbackOffsetMinutes: number): string {
  const offset = trailingOffsetMinutes(text) ?? fallbackOffsetMinutes;
  return formatDateTime(instantOf(text, offset), offset);
}

/** Tag entries by `YYYY-MM-DD` day; `offsetOfDay` gives the offset for times that carry none. */
export function tagEntriesByDay(
  tags: readonly OuraTag[] | undefined,
  enhancedTags: readonly OuraEnhancedTag[] | undefined,
  offsetOfDay: (day: string) => number,
): Map<string, OuraTagEntry[]> {
  const byDay = new Map<string, OuraTagEntry[]>();
  const add = (day: string, entry: OuraTagEntry) => {
    const list = byDay.get(day);
    if (list) list.push(entry);
    else byDay.set(day, [entry]);
  };
  for (const tag of tags ?? []) {
    const timestamp = timestampOf(tag.timestamp, offsetOfDay(tag.day));
    const notes = tag.text ?? '';
    if (tag.tags.length === 0) {
      if (notes !== '') add(tag.day, { timestamp, tag_name: 'note', notes });
      continue;
    }
    for (const name of tag.tags) add(tag.day, { timestamp, tag_name: name, notes });
  }
  for (const tag of enhancedTags ?? []) {
    const name =
      tag.tag_type_code === 'custom' ? (tag.custom_name ?? 'custom') : (tag.tag_type_code ?? 'note');
    add(tag.start_day, {
      timestamp: timestampOf(tag.start_time, offsetOfDay(tag.start_day)),
      tag_name: name,
      notes: tag.comment ?? '',
    });
  }
  return byDay;
}
