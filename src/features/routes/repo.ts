// Data access for route templates and pushed routes. Every function takes the database it runs
// in. Ids are bigints read as text.
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';

export type RouteRow = { id: string; route: unknown; created_at: Date; updated_at: Date };

export type PushedRouteRow = {
  id: string;
  route_id: string | null;
  user_id: string;
  provider: string;
  provider_route_id: string | null;
  created_at: Date;
  updated_at: Date;
};

const routeColumns = [sql<string>`id::text`.as('id'), 'route', 'created_at', 'updated_at'] as const;
const pushedColumns = [
  sql<string>`id::text`.as('id'),
  sql<string | null>`route_id::text`.as('route_id'),
  sql<string>`user_id::text`.as('user_id'),
  'provider',
  'provider_route_id',
  'created_at',
  'updated_at',
] as const;

export async function insertRoute(db: Db, developerId: string, route: unknown, now: Date): Promise<string> {
  const row = await db
    .insertInto('route_templates')
    .values({ developer_id: developerId, route: JSON.stringify(route), created_at: now, updated_at: now })
    .returning(sql<string>`id::text`.as('id'))
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function listRoutes(db: Db, developerId: string): Promise<RouteRow[]> {
  return db
    .selectFrom('route_templates')
    .select(routeColumns)
    .where('developer_id', '=', developerId)
    .orderBy('id')
    .execute();
}

export async function findRoute(db: Db, developerId: string, id: string): Promise<RouteRow | undefined> {
  return db
    .selectFrom('route_templates')
    .select(routeColumns)
    .where('developer_id', '=', developerId)
    .where(sql<boolean>`id = ${id}::bigint`)
    .executeTakeFirst();
}

export async function updateRoute(db: Db, id: string, route: unknown, now: Date): Promise<void> {
  await db
    .updateTable('route_templates')
    .set({ route: JSON.stringify(route), updated_at: now })
    .where(sql<boolean>`id = ${id}::bigint`)
    .execute();
}

export async function deleteRoute(db: Db, developerId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('route_templates')
    .where('developer_id', '=', developerId)
    .where(sql<boolean>`id = ${id}::bigint`)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function insertPushed(
  db: Db,
  input: {
    developerId: string;
    routeId: string;
    userId: string;
    provider: string;
    now: Date;
  },
): Promise<string> {
  const row = await db
    .insertInto('pushed_routes')
    .values({
      developer_id: input.developerId,
      route_id: input.routeId,
      user_id: input.userId,
      provider: input.provider,
      provider_route_id: null,
      created_at: input.now,
      updated_at: input.now,
    })
    .returning(sql<string>`id::text`.as('id'))
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function setProviderRouteId(db: Db, id: string, providerRouteId: string, now: Date) {
  await db
    .updateTable('pushed_routes')
    .set({ provider_route_id: providerRouteId, updated_at: now })
    .where(sql<boolean>`id = ${id}::bigint`)
    .execute();
}

export async function pushedOfUser(db: Db, developerId: string, userId: string): Promise<PushedRouteRow[]> {
  return db
    .selectFrom('pushed_routes')
    .select(pushedColumns)
    .where('developer_id', '=', developerId)
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
}

export async function pushedOfRoute(db: Db, developerId: string, routeId: string): Promise<PushedRouteRow[]> {
  return db
    .selectFrom('pushed_routes')
    .select(pushedColumns)
    .where('developer_id', '=', developerId)
    .where(sql<boolean>`route_id = ${routeId}::bigint`)
    .orderBy('id')
    .execute();
}

export async function findPushed(
  db: Db,
  developerId: string,
  userId: string,
  id: string,
): Promise<PushedRouteRow | undefined> {
  return db
    .selectFrom('pushed_routes')
    .select(pushedColumns)
    .where('developer_id', '=', developerId)
    .where('user_id', '=', userId)
    .where(sql<boolean>`id = ${id}::bigint`)
    .executeTakeFirst();
}

export async function deletePushed(db: Db, id: string): Promise<void> {
  await db
    .deleteFrom('pushed_routes')
    .where(sql<boolean>`id = ${id}::bigint`)
    .execute();
}
