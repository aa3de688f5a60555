import type { ConnectionRow } from '../../src/features/connections/service.ts';
import { dayContext } from '../../src/providers/sandbox/context.ts';
import { generateDaily } from '../../src/providers/sandbox/daily.ts';
import type { AppContext } from '../../src/runtime/context.ts';

/**
 * One sandbox daily summary of `day` (its values drawn from `seed`) ingested for `user` in a
 * transaction of its own, without webhook events: a change of the person's day as the merge queue
 * sees one from a provider.
 */
export function ingestSandboxDay(ctx: AppContext, user: ConnectionRow, seed: string, day: string) {
  return ctx.db.transaction().execute((trx) =>
    ctx.data.ingest(trx, user, 'daily', generateDaily(dayContext(seed, day, true, 60)), undefined, {
      emit: false,
    }),
  );
}
