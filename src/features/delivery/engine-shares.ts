// The engine's bulkheads per attempt: a slot in the destination's share and in its developer's
// (route-shares.ts), taken at once or waited for while the attempts holding it are still young.
// Separate so the batch loop (deliver.ts) only asks "a slot, or the slow lane?".
import { createRouteShares } from './route-shares.ts';
import type { WebhookSettings } from './settings.ts';

/** Which share was full when no slot was taken. */
export type FullShare = 'destination' | 'developer';

export function createShareSlots(settings: WebhookSettings) {
  const destinationShares = createRouteShares(settings.destinationConcurrency);
  const developerShares = createRouteShares(settings.developerConcurrency);

  /**
   * A slot in the destination's share and in its developer's (route-shares.ts), or, when one of
   * them is full, which one (`waitedMs` says for how long). (No object for the full case: with a
   * busy destination most events find its share full once or twice.)
   */
  function takeShare(route: string, developerId: string): (() => void) | FullShare {
    const destination = destinationShares.take(route);
    if (!destination) return 'destination';
    const developer = developerShares.take(developerId);
    if (!developer) {
      destination();
      return 'developer';
    }
    return () => {
      destination();
      developer();
    };
  }

  /** How long the oldest attempt in flight in the full share has been waiting. */
  function waitedMs(full: FullShare, route: string, developerId: string): number {
    return full === 'destination' ? destinationShares.oldestMs(route) : developerShares.oldestMs(developerId);
  }

  /**
   * A slot as `takeShare`, waiting for one while the attempts holding the share are younger than
   * `batchWaitMs` (a destination or developer busy but answering gets one as they end); null when
   * they are older (slow or silent: the event goes to the slow lane instead). Answered at once,
   * without a promise, when the share has a slot or is held by old attempts. `batch`: the order
   * the asking batch started in; a freed slot goes to the earliest batch waiting (route-shares.ts).
   */
  function shareSlot(
    route: string,
    developerId: string,
    batch: number,
  ): (() => void) | null | Promise<(() => void) | null> {
    const taken = takeShare(route, developerId);
    if (typeof taken === 'function') return taken;
    const waited = waitedMs(taken, route, developerId);
    if (waited >= settings.batchWaitMs) return null;
    return waitForShare(route, developerId, batch, taken, waited);
  }

  async function waitForShare(
    route: string,
    developerId: string,
    batch: number,
    full: FullShare,
    waited: number,
  ): Promise<(() => void) | null> {
    for (;;) {
      const wait = settings.batchWaitMs - waited;
      if (full === 'destination') await destinationShares.waitForSlot(route, wait, batch);
      else await developerShares.waitForSlot(developerId, wait, batch);
      const taken = takeShare(route, developerId);
      if (typeof taken === 'function') return taken;
      full = taken;
      waited = waitedMs(full, route, developerId);
      if (waited >= settings.batchWaitMs) return null;
    }
  }

  return { takeShare, waitedMs, shareSlot };
}
