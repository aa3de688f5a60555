// Per-provider request budgets. A provider's limits are app-wide (every user of this deployment
// shares them), so each request first takes one unit from every declared window, app-wide and
// from the user's share of it, in one transaction: a busy user runs out of their share long
// before the app runs out of quota. State is in the database, so every process spends from the
// same budget. When a provider says "stop" (a 429, headers showing a spent window), a pause row
// makes every process hold off until then.
import { sql } from 'kysely';
import type { Config } from '../core/config.ts';
import type { Clock } from '../core/clock.ts';
import type { ResolvedProvider } from './catalog.ts';
import type { Db } from '../store/db.ts';
import type { BudgetGate } from './http-client.ts';
import type { RequestWindow } from '../provider-kit/api.ts';
import { providerSettings } from './settings.ts';

export type BudgetSettings = { windows: readonly RequestWindow[]; userShare: number };

class Spent extends Error {
  readonly seconds: number;
  constructor(seconds: number) {
    super('request budget spent');
    this.seconds = seconds;
  }
}

export { parseWindows } from './settings.ts';

/** The declared budget, or the operator's (`<ID>_REQUEST_BUDGET`, `<ID>_USER_SHARE`) when set. */
export function budgetSettingsOf(config: Config, provider: ResolvedProvider): BudgetSettings | null {
  const api = provider.connector?.api;
  if (!api) return null;
  const own = config.settings.forProvider(providerSettings, provider.id);
  return { windows: own.requestWindows ?? api.requestWindows, userShare: own.userShare ?? api.userShare };
}

async function take(trx: Db, scope: string, window: RequestWindow, start: Date, limit: number) {
  const row = await trx
    .insertInto('connector_request_budget')
    .values({ scope, window_seconds: window.seconds, window_start: start, used: 1 })
    .onConflict((conflict) =>
      conflict
        .columns(['scope', 'window_seconds', 'window_start'])
        .doUpdateSet({ used: sql`connector_request_budget.used + 1` })
        .where('connector_request_budget.used', '<', limit),
    )
    .returning('used')
    .executeTakeFirst();
  return row !== undefined;
}

export function createRequestBudget(deps: { db: Db; clock: Clock; config: Config }): BudgetGate & {
  /** Units used in the current windows (for tests and diagnostics). */
  usage(providerId: string, userId?: string): Promise<{ windowSeconds: number; used: number }[]>;
  prune(): Promise<number>;
} {
  const { db, clock } = deps;
  const settings = new Map<string, BudgetSettings | null>();
  const settingsFor = (provider: ResolvedProvider) => {
    if (!settings.has(provider.id)) settings.set(provider.id, budgetSettingsOf(deps.config, provider));
    return settings.get(provider.id) ?? null;
  };

  return {
    async acquire(provider, userId) {
      const budget = settingsFor(provider);
      if (!budget) return null;
      const now = clock.now().getTime();
      try {
        return await db.transaction().execute(async (trx) => {
          const pause = await trx
            .selectFrom('connector_provider_pauses')
            .select('until')
            .where('provider', '=', provider.id)
            .executeTakeFirst();
          if (pause && pause.until.getTime() > now) return Math.ceil((pause.until.getTime() - now) / 1000);
          for (const window of budget.windows) {
            const length = window.seconds * 1000;
            const start = new Date(Math.floor(now / length) * length);
            const left = Math.ceil((start.getTime() + length - now) / 1000);
            if (!(await take(trx, provider.id, window, start, window.requests))) throw new Spent(left);
            if (userId === null) continue;
            const share = Math.max(1, Math.floor(window.requests * budget.userShare));
            if (!(await take(trx, `${provider.id}:${userId}`, window, start, share))) throw new Spent(left);
          }
          return null;
        });
      } catch (error) {
        // Thrown inside the transaction so the units already taken from other windows go back.
        if (error instanceof Spent) return error.seconds;
        throw error;
      }
    },

    async pause(providerId, seconds, reason) {
      const until = new Date(clock.now().getTime() + Math.max(1, seconds) * 1000);
      await db
        .insertInto('connector_provider_pauses')
        .values({ provider: providerId, until, reason })
        .onConflict((conflict) =>
          conflict.column('provider').doUpdateSet({
            until: sql`greatest(connector_provider_pauses.until, excluded.until)`,
            reason,
          }),
        )
        .execute();
    },

    async usage(providerId, userId) {
      const now = clock.now().getTime();
      const rows = await db
        .selectFrom('connector_request_budget')
        .select(['window_seconds', 'window_start', 'used'])
        .where('scope', '=', userId ? `${providerId}:${userId}` : providerId)
        .execute();
      return rows
        .filter((row) => row.window_start.getTime() + row.window_seconds * 1000 > now)
        .map((row) => ({ windowSeconds: row.window_seconds, used: row.used }));
    },

    async prune() {
      const before = new Date(clock.now().getTime() - 2 * 86_400_000);
      const spent = await db
        .deleteFrom('connector_request_budget')
        .where('window_start', '<', before)
        .executeTakeFirst();
      await db.deleteFrom('connector_provider_pauses').where('until', '<', clock.now()).execute();
      return Number(spent.numDeletedRows);
    },
  };
}

export type RequestBudget = ReturnType<typeof createRequestBudget>;
