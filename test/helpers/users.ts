import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../src/runtime/context.ts';
import type { ConnectionRow } from '../../src/features/connections/service.ts';
import type { ConnectionStatus } from '../../src/features/connections/tables.ts';

/**
 * A user row written straight into the store, for states no public flow reaches quickly (an
 * active user of a provider without a local fake, a broken connection). Prefer the real flows
 * (test/helpers/connections.ts) where they exist.
 */
export async function insertUser(
  ctx: AppContext,
  input: {
    developerId: string;
    provider: string;
    status?: ConnectionStatus;
    active?: boolean;
    referenceId?: string;
  },
): Promise<string> {
  const id = randomUUID();
  await ctx.db
    .insertInto('connections')
    .values({
      id,
      developer_id: input.developerId,
      provider: input.provider,
      status: input.status ?? 'active',
      active: input.active ?? true,
      reference_id: input.referenceId ?? null,
      scopes: null,
      provider_user_id: null,
      last_webhook_update: null,
      last_polled_at: null,
      most_recent_data_at: null,
    })
    .execute();
  return id;
}

/** A user row written as insertUser writes it, read back whole (as ingestion takes a connection). */
export async function insertConnection(
  ctx: AppContext,
  input: Parameters<typeof insertUser>[1],
): Promise<ConnectionRow> {
  const id = await insertUser(ctx, input);
  return (await ctx.db
    .selectFrom('connections')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow()) as ConnectionRow;
}

/** Rows a user owns in the data module's tables. */
export async function dataRowCounts(ctx: AppContext, userId: string) {
  const count = async (table: 'data_records' | 'raw_payloads' | 'sync_coverage' | 'rate_buckets') => {
    const row = await ctx.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  return {
    records: await count('data_records'),
    raw: await count('raw_payloads'),
    coverage: await count('sync_coverage'),
    buckets: await count('rate_buckets'),
  };
}
