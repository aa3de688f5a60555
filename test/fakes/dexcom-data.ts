import { dayUuid, seeded } from './fake-server.ts';

/**
 * Deterministic Dexcom API v3 records for any instant: an estimated glucose value every five
 * minutes (a daily curve with meal peaks and noise, computed per slot, so any window can be
 * served without state), user-entered events at meals, and one device. Records from a phone
 * app carry UTC offsets on both times; receiver records carry none (developer.dexcom.com v3 notes).
 */

export type DexcomUser = {
  seed: string;
  userId: string;
  offsetMinutes: number;
  displayDevice: 'iOS' | 'android' | 'receiver';
  transmitterId: string;
  transmitterGeneration: 'g6' | 'g7';
  /** The first instant with data (ms). */
  sinceMs: number;
};

export const SLOT_MS = 300_000;
const DAY_MS = 86_400_000;
const MEALS = [7.5, 12.5, 19] as const;

const pad = (value: number) => String(value).padStart(2, '0');
function zone(offset: number): string {
  return `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
}

/** `systemTime` / `displayTime` as Dexcom writes them for the user's display device. */
export function times(user: DexcomUser, epochMs: number): { systemTime: string; displayTime: string } {
  const system = new Date(epochMs).toISOString().slice(0, 19);
  const display = new Date(epochMs + user.offsetMinutes * 60_000).toISOString().slice(0, 19);
  return user.displayDevice === 'receiver'
    ? { systemTime: system, displayTime: display }
    : { systemTime: `${system}+00:00`, displayTime: `${display}${zone(user.offsetMinutes)}` };
}

/** Glucose (mg/dL) at a slot: fasting level, meal peaks ~45 min after eating, autocorrelated noise. */
function glucoseAt(user: DexcomUser, slot: number): number {
  const localHours =
    ((((slot * SLOT_MS + user.offsetMinutes * 60_000) % DAY_MS) + DAY_MS) % DAY_MS) / 3_600_000;
  const day = Math.floor((slot * SLOT_MS + user.offsetMinutes * 60_000) / DAY_MS);
  const daily = seeded(`${user.seed}|day|${day}`);
  let value = 95 + daily.between(-8, 8);
  for (const meal of MEALS) {
    const minutes = (localHours - meal) * 60;
    const size = daily.between(30, 110);
    if (minutes > 0 && minutes < 240) value += size * (minutes / 45) * Math.exp(1 - minutes / 45);
  }
  // Smooth noise: the mean of three neighbouring slots' random draws.
  let noise = 0;
  for (let near = slot - 1; near <= slot + 1; near++)
    noise += seeded(`${user.seed}|slot|${near}`).between(-12, 12);
  return Math.round(value + noise / 3);
}

function trendOf(rate: number): string {
  if (rate > 3) return 'doubleUp';
  if (rate > 2) return 'singleUp';
  if (rate > 1) return 'fortyFiveUp';
  if (rate >= -1) return 'flat';
  if (rate >= -2) return 'fortyFiveDown';
  if (rate >= -3) return 'singleDown';
  return 'doubleDown';
}

/** Whether a slot has a reading: none before `sinceMs`, and a 20-minute sensor gap each day. */
function hasReading(user: DexcomUser, slot: number): boolean {
  if (slot * SLOT_MS < user.sinceMs) return false;
  const localSlot = Math.floor(
    ((((slot * SLOT_MS + user.offsetMinutes * 60_000) % DAY_MS) + DAY_MS) % DAY_MS) / SLOT_MS,
  );
  return localSlot < 150 || localSlot >= 154;
}

export function egvAt(user: DexcomUser, slot: number): Record<string, unknown> | null {
  if (!hasReading(user, slot)) return null;
  const raw = glucoseAt(user, slot);
  const rate = (raw - glucoseAt(user, slot - 3)) / 15;
  // The sensor reports 40-400 mg/dL; outside it, a status and no number.
  const status = raw > 400 ? 'high' : raw < 40 ? 'low' : 'ok';
  return {
    recordId: dayUuid(user.seed, Math.floor(slot / 288), slot % 288, 1),
    ...times(user, slot * SLOT_MS),
    transmitterId: user.transmitterId,
    transmitterTicks: Math.floor((slot * SLOT_MS - user.sinceMs) / 1000),
    value: status === 'ok' ? raw : null,
    status,
    trend: status === 'ok' ? trendOf(rate) : 'rateOutOfRange',
    trendRate: status === 'ok' ? Math.round(rate * 10) / 10 : null,
    unit: 'mg/dL',
    rateUnit: 'mg/dL/min',
    displayDevice: user.displayDevice,
    transmitterGeneration: user.transmitterGeneration,
  };
}

/** EGVs whose systemTime lies in [startMs, endMs], newest first (Dexcom's order). */
export function egvsBetween(user: DexcomUser, startMs: number, endMs: number): Record<string, unknown>[] {
  const records = [];
  for (let slot = Math.floor(endMs / SLOT_MS); slot * SLOT_MS >= startMs; slot--) {
    const record = egvAt(user, slot);
    if (record) records.push(record);
  }
  return records;
}

/** User-entered events of one local day: carbs and fast-acting insulin at meals, sometimes exercise. */
export function eventsOfDay(user: DexcomUser, day: number): Record<string, unknown>[] {
  const random = seeded(`${user.seed}|events|${day}`);
  const midnight = day * DAY_MS - user.offsetMinutes * 60_000;
  const events: Record<string, unknown>[] = [];
  const event = (
    index: number,
    atMs: number,
    eventType: string,
    eventSubType: string | null,
    value: number,
    unit: string,
  ) => {
    if (atMs < user.sinceMs) return;
    events.push({
      recordId: dayUuid(user.seed, day, index, 2),
      ...times(user, atMs),
      eventType,
      eventSubType,
      value,
      unit,
      eventStatus: 'created',
      transmitterId: user.transmitterId,
      transmitterGeneration: user.transmitterGeneration,
      displayDevice: user.displayDevice,
    });
  };
  MEALS.forEach((hour, index) => {
    const atMs = midnight + hour * 3_600_000 + random.int(0, 20) * 60_000;
    event(index * 2, atMs, 'carbs', null, random.int(20, 90), 'grams');
    event(
      index * 2 + 1,
      atMs - 10 * 60_000,
      'insulin',
      'fastActing',
      Math.round(random.between(2, 9) * 10) / 10,
      'units',
    );
  });
  if (random.next() < 0.4)
    event(
      9,
      midnight + 18 * 3_600_000,
      'exercise',
      random.pick(['light', 'medium', 'heavy']),
      random.int(20, 60),
      'minutes',
    );
  return events;
}

export function eventsBetween(user: DexcomUser, startMs: number, endMs: number): Record<string, unknown>[] {
  const records = [];
  const shift = user.offsetMinutes * 60_000;
  for (let day = Math.floor((endMs + shift) / DAY_MS); day >= Math.floor((startMs + shift) / DAY_MS); day--) {
    for (const event of eventsOfDay(user, day).reverse()) {
      const atMs = Date.parse(`${(event.systemTime as string).slice(0, 19)}Z`);
      if (atMs >= startMs && atMs <= endMs) records.push(event);
    }
  }
  return records;
}

export function deviceOf(user: DexcomUser, lastUploadMs: number): Record<string, unknown> {
  return {
    lastUploadDate: times(user, lastUploadMs).systemTime,
    transmitterId: user.transmitterId,
    transmitterGeneration: user.transmitterGeneration,
    displayDevice: user.displayDevice,
    displayApp:
      user.displayDevice === 'receiver' ? 'receiver' : user.transmitterGeneration === 'g7' ? 'G7' : 'G6',
    alertSchedules: [
      {
        alertScheduleSettings: {
          alertScheduleName: 'Default',
          isEnabled: true,
          isDefaultSchedule: true,
          startTime: '00:00',
          endTime: '00:00',
          daysOfWeek: ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'],
        },
        alertSettings: [
          { alertName: 'high', value: 250, unit: 'mg/dL', snooze: 120, enabled: true },
          { alertName: 'low', value: 70, unit: 'mg/dL', snooze: 30, enabled: true },
        ],
      },
    ],
  };
}
