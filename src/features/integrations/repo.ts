import type { Db } from '../../store/db.ts';

/** A developer's deviations from the deployment default; no row means "as the deployment". */
export async function listDeveloperProviderChoices(
  db: Db,
  developerId: string,
): Promise<Map<string, boolean>> {
  const rows = await db
    .selectFrom('developer_providers')
    .select(['provider', 'enabled'])
    .where('developer_id', '=', developerId)
    .execute();
  return new Map(rows.map((row) => [row.provider, row.enabled]));
}

export async function setDeveloperProviderChoice(
  db: Db,
  input: { developerId: string; provider: string; enabled: boolean; now: Date },
): Promise<void> {
  await db
    .insertInto('developer_providers')
    .values({
      developer_id: input.developerId,
      provider: input.provider,
      enabled: input.enabled,
      updated_at: input.now,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['developer_id', 'provider'])
        .doUpdateSet({ enabled: input.enabled, updated_at: input.now }),
    )
    .execute();
}
