import type { Db } from '../../store/db.ts';
import type { DeveloperStatus, Environment } from './tables.ts';

export type DeveloperRow = {
  id: string;
  name: string;
  environment: Environment;
  status: DeveloperStatus;
  order_api_access: boolean;
  hourly_days_limit: number | null;
  created_at: Date;
};

const developerColumns = [
  'id',
  'name',
  'environment',
  'status',
  'order_api_access',
  'hourly_days_limit',
  'created_at',
] as const;

export async function insertDeveloper(
  db: Db,
  row: {
    id: string;
    name: string;
    environment: Environment;
    order_api_access: boolean;
  },
): Promise<DeveloperRow> {
  return db.insertInto('developers').values(row).returning(developerColumns).executeTakeFirstOrThrow();
}

export async function findDeveloper(db: Db, id: string): Promise<DeveloperRow | undefined> {
  return db.selectFrom('developers').select(developerColumns).where('id', '=', id).executeTakeFirst();
}

export async function listDevelopers(db: Db): Promise<DeveloperRow[]> {
  return db.selectFrom('developers').select(developerColumns).orderBy('created_at').orderBy('id').execute();
}

export async function countDevelopers(db: Db): Promise<number> {
  const row = await db
    .selectFrom('developers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function updateDeveloper(
  db: Db,
  id: string,
  changes: Partial<{ status: DeveloperStatus; hourly_days_limit: number | null; order_api_access: boolean }>,
): Promise<DeveloperRow | undefined> {
  return db
    .updateTable('developers')
    .set(changes)
    .where('id', '=', id)
    .returning(developerColumns)
    .executeTakeFirst();
}

export async function insertApiKey(
  db: Db,
  row: { id: string; developer_id: string; display_prefix: string; hash: string },
): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({ ...row, revoked_at: null })
    .execute();
}

/** The developer and the hashes of its live keys, in one round trip (the hot path of every request). */
export async function findDeveloperWithKeyHashes(
  db: Db,
  id: string,
): Promise<{ developer: DeveloperRow; keys: { id: string; hash: string }[] } | undefined> {
  const rows = await db
    .selectFrom('developers')
    .leftJoin('api_keys', (join) =>
      join.onRef('api_keys.developer_id', '=', 'developers.id').on('api_keys.revoked_at', 'is', null),
    )
    .select([
      ...developerColumns.map((column) => `developers.${column}` as const),
      'api_keys.hash',
      'api_keys.id as key_id',
    ])
    .where('developers.id', '=', id)
    .execute();
  const first = rows[0];
  if (!first) return undefined;
  const { hash: _hash, key_id: _keyId, ...developer } = first;
  return {
    developer,
    keys: rows.flatMap((row) => (row.hash && row.key_id ? [{ id: row.key_id, hash: row.hash }] : [])),
  };
}

export async function listApiKeys(db: Db, developerId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'display_prefix', 'created_at', 'revoked_at'])
    .where('developer_id', '=', developerId)
    .orderBy('created_at')
    .execute();
}

export async function revokeApiKey(db: Db, developerId: string, keyId: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('developer_id', '=', developerId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Whether `keyId` is a live (unrevoked) key of the developer: a dashboard session lives only as long as its key. */
export async function isLiveApiKey(db: Db, developerId: string, keyId: string): Promise<boolean> {
  const row = await db
    .selectFrom('api_keys')
    .select('id')
    .where('developer_id', '=', developerId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}
