import { parseArgs } from 'node:util';
import type { Config } from '../../core/config.ts';
import { findConnectionForDeveloper } from '../../features/connections/service.ts';
import { addDays, isIsoDate } from '../../model/time.ts';
import { openContext } from './session.ts';
import { printJson, printTable, UsageError } from './output.ts';

export const USAGE = `usage:
  tributary scores recompute --dev-id D [--user-id U] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--json]

Recomputes the scores Tributary computes (docs/scores.md) on the stored daily and sleep records
of a developer's users (or one user), local days --from up to and including --to (default: the
365 days up to today). Scores are computed as records are written; this is for records stored
before that, or computed by an earlier version of the method. Rewrites only records whose scores
change; sends no webhook events.`;

export async function scoresCommand(config: Config, args: string[]) {
  const [action, ...rest] = args;
  if (action !== 'recompute') throw new UsageError(USAGE);
  const { values } = parseArgs({
    args: rest,
    options: {
      'dev-id': { type: 'string' },
      'user-id': { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const devId = values['dev-id'];
  if (!devId) throw new UsageError(`--dev-id is required\n${USAGE}`);
  for (const name of ['from', 'to'] as const) {
    const value = values[name];
    if (value !== undefined && !isIsoDate(value))
      throw new UsageError(`--${name} must be YYYY-MM-DD\n${USAGE}`);
  }

  const { ctx, close } = await openContext(config);
  try {
    const developer = await ctx.developers.get(devId);
    const today = ctx.clock.now().toISOString().slice(0, 10);
    const to = values.to ?? today;
    const from = values.from ?? addDays(to, -364);
    if (from > to) throw new UsageError(`--from must not be after --to\n${USAGE}`);
    let userIds: string[];
    if (values['user-id'])
      userIds = [(await findConnectionForDeveloper(ctx.db, developer.id, values['user-id'])).id];
    else {
      const listed = await ctx.connections.subscriptions(developer.id, {});
      userIds = (listed.kind === 'all' ? listed.users : listed.results).map((user) => user.user_id);
    }
    const rows: { user_id: string; rewritten: number }[] = [];
    for (const userId of userIds) {
      const { rewritten } = await ctx.scores.recomputeRange(ctx.db, userId, from, addDays(to, 1));
      rows.push({ user_id: userId, rewritten });
    }
    if (values.json) printJson({ from, to, users: rows });
    else printTable(rows.length > 0 ? rows : [{ user_id: '(no users)', rewritten: 0 }]);
  } finally {
    await close();
  }
}
