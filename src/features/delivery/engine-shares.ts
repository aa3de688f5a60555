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
   * them is full, how long that one's oldest attempt in flight has been waiting (and on what).
   */
  function takeShare(
    route: string,
    developerId: string,
  ): { release: () => void } | { waitedMs: number; wait: (ms: number) => Promise<void> } {
    const destination = destinationShares.take(route);
    if (!destination)
      return {
        waitedMs: destinationShares.oldestMs(route),
        wait: (ms) => destinationShares.waitForSlot(route, ms),
      };
    const developer = developerShares.take(developerId);
    if (!developer) {
      destination();
      return {
        waitedMs: developerShares.oldestMs(developerId),
        wait: (ms) => developerShares.waitForSlot(developerId, ms),
      };
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
   * they are older (slow or silent: the event goes to the slow lane instead).
   */
  async function shareSlot(route: string, developerId: string): Promise<(() => void) | null> {
    for (;;) {
      const taken = takeShare(route, developerId);
      if ('release' in taken) return taken.release;
      if (taken.waitedMs >= settings.batchWaitMs) return null;
      await taken.wait(settings.batchWaitMs - taken.waitedMs);
    }
  }

  return { takeShare, shareSlot };
}
