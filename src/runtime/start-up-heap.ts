import { gcNow } from '../core/gc-handle.ts';
import { collectStartUpHeap } from '../core/start-up-collection.ts';
import { roleOf, tuningEnabled } from './memory-limits.js';

/**
 * Serve's one start-up collection (core/start-up-collection.ts), which the launcher
 * (bin/tributary.js) runs in the serving image before it loads the service: a module, and a
 * bundle entry of its own (scripts/build-bundle.ts), so that nothing else is loaded yet. There the
 * heap holds ~5 MB (Node and the launcher); once the bundle's first chunks and the configuration
 * had loaded, where serve ran it before, it held ~12 MB, all of which the collection marks while
 * the main thread waits (issue 42). The next trigger is sized the same way, from the heap's size
 * now, so the rest of the start still runs no other full collection.
 *
 * Only where serve sets its old generation's ceiling (runtime/memory-limits.js: the api and all
 * roles, unless the tuning is off), as before. `tuning`: TRIBUTARY_MEMORY_TUNING as the launcher
 * read it (runtime/memory-settings.ts declares it). Returns whether it collected.
 */
export function collectBeforeServing(args: readonly string[], tuning: string | undefined): boolean {
  if (args[0] !== 'serve' || roleOf(args.slice(1)) === 'worker' || !tuningEnabled(tuning)) return false;
  const collect = gcNow();
  if (!collect) return false;
  return collectStartUpHeap(collect);
}
