// Reading a batch: the event generations its jobs ask for that are still current, once each, and
// what the suppression hook says of them. Separate because it is the engine's one read of the
// event log before sending; a job that no longer matches its event (delivered meanwhile,
// replayed, dropped) stops here, so a job run twice never starts a second chain of retries.
import type { Job } from 'pg-boss';
import type { Db } from '../../store/db.ts';
import type { Work } from './engine-work.ts';
import type { WebhookHooks } from './hooks.ts';
import type { DeliveryJob } from './outbox.ts';
import { findEventsForDelivery } from './event-rows.ts';

/** A generation a job asks to attempt, and the job's try. */
type Asked = { generation: number; try: number };

export function createBatchReader(deps: {
  db: Db;
  hooks: WebhookHooks;
  /** Event generations whose detached attempt is still going or being written (engine-detached.ts). */
  detached: { events: Map<string, number> };
}) {
  const { db, detached } = deps;

  /**
   * Event generations the batch's jobs ask for that are still current, once each, with what the
   * suppression hook says of the suppressible ones (one call for the whole batch).
   */
  async function currentWork(jobs: Job<DeliveryJob>[]): Promise<Work[]> {
    // What each event's jobs ask for: nearly always one job per event, kept as the object itself
    // (a list only when jobs repeat an event).
    const wanted = new Map<string, Asked | Asked[]>();
    for (const { data } of jobs) {
      for (const [id, generation] of data.events) {
        const asked: Asked = { generation, try: data.try };
        const before = wanted.get(id);
        if (!before) wanted.set(id, asked);
        else if (Array.isArray(before)) before.push(asked);
        else wanted.set(id, [before, asked]);
      }
    }
    const events = await findEventsForDelivery(db, [...wanted.keys()]);
    // One Work per current event, made once (the batch holds up to 1,250 of them while it sends).
    const current: Work[] = [];
    let suppressible = false;
    for (const event of events) {
      if (event.status !== 'pending') continue;
      const asked = wanted.get(event.id);
      const match = Array.isArray(asked)
        ? asked.find((w) => w.generation === event.generation)
        : asked?.generation === event.generation
          ? asked
          : undefined;
      // (Its detached attempt in this process is still going or being written: see `detached`.)
      if (!match || detached.events.get(event.id) === match.generation) continue;
      current.push({ event, generation: match.generation, try: match.try, suppressed: null });
      if (event.suppressible) suppressible = true;
    }
    if (!suppressible) return current;
    const candidates = current
      .filter(({ event }) => event.suppressible)
      .map(({ event }) => ({ id: event.id, userId: event.user_id }));
    const withheld = await deps.hooks.suppress(db, candidates, 'delivery');
    for (const work of current) work.suppressed = withheld.get(work.event.id) ?? null;
    return current;
  }

  return currentWork;
}
