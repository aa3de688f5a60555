// The delivery engine's units of work and what piles up between writes: an event generation to
// attempt (`Work`), the outcomes, retries, diversions, health counts and delivered users answered
// since the last write (`Wave`), and the slow-lane jobs made of diverted events. Shared by the
// engine's modules (deliver.ts and its engine-*.ts parts), kept apart so each of them can name
// these without importing another.
import { type DeliveryJob, EVENTS_PER_JOB } from './outbox.ts';
import type { DeliverableEvent } from './event-rows.ts';
import type { EventOutcome } from './outcome-rows.ts';

export type Lane = 'main' | 'slow';

/** `suppressed`: why the suppression hook withholds the event now (null: it may go out). */
export type Work = { event: DeliverableEvent; generation: number; try: number; suppressed: string | null };

/** What was answered (or settled without a request) since the last write: the next write's content. */
export type Wave = {
  outcomes: EventOutcome[];
  retries: Map<string, { data: DeliveryJob; options: { startAfter: number } }>;
  /** Events for the slow lane without an attempt here, each after `afterMs`. */
  diverted: { work: Work; afterMs: number }[];
  /** By destination id. */
  health: Map<string, { successes: number; failures: number }>;
  deliveredUsers: { eventId: string; userId: string; at: Date }[];
};

export function newWave(): Wave {
  return { outcomes: [], retries: new Map(), diverted: [], health: new Map(), deliveredUsers: [] };
}

export function pendingSize(wave: Wave): number {
  return wave.outcomes.length + wave.diverted.length;
}

/** Where an attempt's outcome goes: its batch's wave, or the engine's once the batch stopped waiting. */
export type Sink = { wave: Wave; detached: boolean };

/** An attempt in flight: the events it sends (one, or a batch for one destination) and when it started. */
export type InFlight = { startedAt: number; works: readonly Work[] };

/** Slow-lane jobs for diverted events: their try kept, grouped by delay, EVENTS_PER_JOB to a job. */
export function divertedJobs(
  diverted: Wave['diverted'],
): { data: DeliveryJob; options?: { startAfter: number } }[] {
  const groups = new Map<string, { try: number; afterMs: number; events: [string, number][] }>();
  for (const { work, afterMs } of diverted) {
    const key = `${work.try}:${afterMs}`;
    const group = groups.get(key) ?? { try: work.try, afterMs, events: [] };
    group.events.push([work.event.id, work.generation]);
    groups.set(key, group);
  }
  const jobs: { data: DeliveryJob; options?: { startAfter: number } }[] = [];
  for (const group of groups.values()) {
    for (let i = 0; i < group.events.length; i += EVENTS_PER_JOB) {
      jobs.push({
        data: { events: group.events.slice(i, i + EVENTS_PER_JOB), try: group.try },
        ...(group.afterMs > 0 ? { options: { startAfter: group.afterMs / 1000 } } : {}),
      });
    }
  }
  return jobs;
}
