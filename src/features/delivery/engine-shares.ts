// The engine's bulkheads per attempt: a slot in the destination's share and in its developer's
// (route-shares.ts), taken at once or waited for while the attempts holding it are still young.
// Separate so the batch loop (deliver.ts) only asks "a slot, or the slow lane?".
import { createRouteShares } from './route-shares.ts';
import type { WebhookSettings } from './settings.ts';

export function createShareSlots(settings: WebhookSettings) {
  const destinationShares = createRouteShares(settings.destinationConcurrency);
  const developerShares = createRouteShares(settings.developerConcurrency);

  /**
   * A slot in the destination's share and in its developer's (route-shares.ts), or, when one of
   * them is full, which one and how long its oldest attempt in flight has been waiting. (No
   * closure for the full case: with a busy destination most events find its share full once.)
   */
  function takeShare(
    route: string,
    developerId: string,
  ): { release: () => void } | { waitedMs: number; full: 'destination' | 'developer' } {
    const destination = destinationShares.take(route);
    if (!destination) return { waitedMs: destinationShares.oldestMs(route), full: 'destination' };
    const developer = developerShares.take(developerId);
    if (!developer) {
      destination();
      return { waitedMs: developerShares.oldestMs(developerId), full: 'developer' };
    }
    return {
      release: () => {
        destination();
        developer();
      },
    };
  }

  /**
   * A slot as `takeShare`, waiting for one while the attempts holding the share are younger than
   * `batchWaitMs` (a destination or developer busy but answering gets one as they end); null when
   * they are older (slow or silent: the event goes to the slow lane instead). Answered at once,
   * without a promise, when the share has a slot or is held by old attempts.
   */
  function shareSlot(route: string, developerId: string): (() => void) | null | Promise<(() => void) | null> {
    const taken = takeShare(route, developerId);
    if ('release' in taken) return taken.release;
    if (taken.waitedMs >= settings.batchWaitMs) return null;
    return waitForShare(route, developerId, taken);
  }

  async function waitForShare(
    route: string,
    developerId: string,
    full: { waitedMs: number; full: 'destination' | 'developer' },
  ): Promise<(() => void) | null> {
    for (let taken = full; ;) {
      const wait = settings.batchWaitMs - taken.waitedMs;
      if (taken.full === 'destination') await destinationShares.waitForSlot(route, wait);
      else await developerShares.waitForSlot(developerId, wait);
      const next = takeShare(route, developerId);
      if ('release' in next) return next.release;
      if (next.waitedMs >= settings.batchWaitMs) return null;
      taken = next;
    }
  }

  return { takeShare, shareSlot };
}
