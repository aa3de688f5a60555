// Reading Huawei's value lists and times.
import type { HuaweiSamplePoint, HuaweiValue } from './types.ts';

/** The number a field holds, whichever of integerValue / floatValue / longValue carries it. */
export function fieldOf(values: readonly HuaweiValue[] | null | undefined, name: string): number | null {
  const entry = (values ?? []).find((value) => value?.fieldName === name);
  const raw = entry?.floatValue ?? entry?.integerValue ?? entry?.longValue;
  return typeof raw === 'number' && Number.isFinite(raw) ? raw : null;
}

/** Nanoseconds (a number, or a string when past 2^53) to milliseconds. */
export function nanosToMs(value: number | string | null | undefined): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.floor(value / 1e6);
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return Number(BigInt(value) / 1_000_000n);
  return null;
}

/** `+0800` / `-0530` (the form ActivityRecord.timeZone takes) to minutes east of UTC. */
export function zoneOffsetMinutes(zone: string | null | undefined): number | null {
  const match = typeof zone === 'string' ? /^([+-])(\d{2}):?(\d{2})$/.exec(zone) : null;
  if (!match) return null;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  if (minutes > 14 * 60) return null;
  return match[1] === '-' ? -minutes : minutes;
}

/** Minutes east of UTC as Huawei writes a zone (`+0000`). */
export function zoneOf(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

export const pointsOf = (points: readonly HuaweiSamplePoint[], dataTypeName: string) =>
  points.filter((point) => point?.dataTypeName === dataTypeName);
