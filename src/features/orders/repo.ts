// Data access for orders, items, history, results and the catalog selection. Every function takes
// the transaction (or database) it runs in; nothing here decides a status code.
import type { ExpressionBuilder, Insertable, Selectable } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { Database } from '../../store/schema.ts';
import type { CollectionType } from './domain/catalog.ts';
import type { OrderStatus, ResultsStatus } from './domain/statuses.ts';
import type { OrderItemsTable, OrderStatusHistoryTable, OrdersTable } from './tables.ts';

export type OrderRow = Selectable<OrdersTable>;
export type ItemRow = Selectable<OrderItemsTable>;
export type HistoryRow = Selectable<OrderStatusHistoryTable>;

export async function insertOrder(
  trx: Db,
  order: Insertable<OrdersTable>,
  items: Insertable<OrderItemsTable>[],
) {
  await trx.insertInto('orders').values(order).execute();
  await trx.insertInto('order_items').values(items).execute();
}

export async function insertHistory(trx: Db, rows: Insertable<OrderStatusHistoryTable>[]): Promise<void> {
  if (rows.length > 0) await trx.insertInto('order_status_history').values(rows).execute();
}

export async function findOrder(db: Db, developerId: string, orderId: string): Promise<OrderRow | undefined> {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('id', '=', orderId)
    .where('developer_id', '=', developerId)
    .executeTakeFirst();
}

export async function orderExistsForClaim(db: Db, claim: string): Promise<boolean> {
  const row = await db
    .selectFrom('orders')
    .select('id')
    .where('idempotency_claim', '=', claim)
    .executeTakeFirst();
  return row !== undefined;
}

/** Row lock: every status change of an order and its items is serialised on the order row. */
export async function lockOrder(trx: Db, orderId: string): Promise<OrderRow | undefined> {
  return trx.selectFrom('orders').selectAll().where('id', '=', orderId).forUpdate().executeTakeFirst();
}

export async function itemsOf(db: Db, orderIds: readonly string[]): Promise<ItemRow[]> {
  if (orderIds.length === 0) return [];
  return db
    .selectFrom('order_items')
    .selectAll()
    .where('order_id', 'in', orderIds)
    .orderBy('position')
    .execute();
}

export async function historyOf(db: Db, orderId: string): Promise<HistoryRow[]> {
  return db
    .selectFrom('order_status_history')
    .selectAll()
    .where('order_id', '=', orderId)
    .orderBy('id')
    .execute();
}

export async function updateOrderStatus(
  trx: Db,
  orderId: string,
  changes: { status: OrderStatus; trackingNumber?: string; now: Date },
): Promise<number> {
  const row = await trx
    .updateTable('orders')
    .set((eb) => ({
      status: changes.status,
      version: eb('version', '+', 1),
      updated_at: changes.now,
      ...(changes.trackingNumber ? { tracking_number: changes.trackingNumber } : {}),
    }))
    .where('id', '=', orderId)
    .returning('version')
    .executeTakeFirstOrThrow();
  return row.version;
}

export async function updateItemStatus(
  trx: Db,
  itemId: string,
  status: ResultsStatus,
  now: Date,
): Promise<number> {
  const row = await trx
    .updateTable('order_items')
    .set((eb) => ({ results_status: status, version: eb('version', '+', 1), updated_at: now }))
    .where('id', '=', itemId)
    .returning('version')
    .executeTakeFirstOrThrow();
  return row.version;
}

export async function findItemByKit(db: Db, kitId: string): Promise<ItemRow | undefined> {
  return db.selectFrom('order_items').selectAll().where('supplier_item_id', '=', kitId).executeTakeFirst();
}

/** An item by id alone: for a signed results link, whose signature already names the item. */
export async function findItemById(db: Db, itemId: string): Promise<ItemRow | undefined> {
  return db.selectFrom('order_items').selectAll().where('id', '=', itemId).executeTakeFirst();
}

export async function findItem(db: Db, developerId: string, itemId: string): Promise<ItemRow | undefined> {
  return db
    .selectFrom('order_items')
    .selectAll()
    .where('id', '=', itemId)
    .where('developer_id', '=', developerId)
    .executeTakeFirst();
}

export async function setTestTaker(
  trx: Db,
  itemId: string,
  values: Pick<Insertable<OrderItemsTable>, 'test_taker_id' | 'test_taker' | 'activation' | 'activated_at'>,
): Promise<void> {
  await trx.updateTable('order_items').set(values).where('id', '=', itemId).execute();
}

/** Item statuses in which the lab has not yet reported anything final. */
const AWAITING_RESULTS: ResultsStatus[] = [
  'results.awaiting_sample',
  'results.kit_activated',
  'results.sample_processing_in_lab',
  'results.partial_results_ready',
];

export type OrderListFilters = {
  clientOrderReferenceId?: string;
  status?: OrderStatus;
  since?: Date;
  collectionType?: CollectionType;
  /** Delivered or completed orders with an item still waiting for results. */
  missing?: boolean;
  after?: { createdAt: Date; id: string };
};

/** Newest first, keyset on (created_at, id); fetches one extra row to know whether a page follows. */
export async function listOrders(
  db: Db,
  developerId: string,
  filters: OrderListFilters,
  limit: number,
): Promise<OrderRow[]> {
  let query = db.selectFrom('orders').selectAll().where('developer_id', '=', developerId);
  if (filters.clientOrderReferenceId !== undefined) {
    query = query.where('client_order_reference_id', '=', filters.clientOrderReferenceId);
  }
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.since) query = query.where('created_at', '>=', filters.since);
  if (filters.collectionType) query = query.where('collection_type', '=', filters.collectionType);
  if (filters.missing !== undefined) {
    const awaiting = (eb: ExpressionBuilder<Database, 'orders'>) =>
      eb.exists(
        eb
          .selectFrom('order_items')
          .select('order_items.id')
          .whereRef('order_items.order_id', '=', 'orders.id')
          .where('order_items.results_status', 'in', AWAITING_RESULTS),
      );
    const delivered = ['order.delivery_fulfilled', 'order.completed'] as const;
    query = filters.missing
      ? query.where('status', 'in', delivered).where((eb) => awaiting(eb))
      : query.where((eb) => eb.or([eb('status', 'not in', delivered), eb.not(awaiting(eb))]));
  }
  const after = filters.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', after.createdAt),
        eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
      ]),
    );
  }
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

/** Items newest first (snowflake ids sort by creation), keyset on the id. */
export async function listItems(
  db: Db,
  developerId: string,
  filters: { status?: ResultsStatus; afterId?: string },
  limit: number,
): Promise<ItemRow[]> {
  let query = db.selectFrom('order_items').selectAll().where('developer_id', '=', developerId);
  if (filters.status) query = query.where('results_status', '=', filters.status);
  // Text ids compare as numbers only at equal length, so order by length first.
  if (filters.afterId) {
    const afterId = filters.afterId;
    query = query.where((eb) =>
      eb.or([
        eb(eb.fn('length', ['id']), '<', afterId.length),
        eb.and([eb(eb.fn('length', ['id']), '=', afterId.length), eb('id', '<', afterId)]),
      ]),
    );
  }
  return query
    .orderBy((eb) => eb.fn('length', ['id']), 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

export async function insertResults(
  trx: Db,
  row: { orderItemId: string; reportStatus: 'final' | 'partial'; bundle: unknown; issuedAt: Date },
): Promise<void> {
  const values = {
    order_item_id: row.orderItemId,
    report_status: row.reportStatus,
    bundle: JSON.stringify(row.bundle),
    issued_at: row.issuedAt,
  };
  await trx
    .insertInto('order_results')
    .values(values)
    .onConflict((oc) =>
      oc.column('order_item_id').doUpdateSet({
        report_status: values.report_status,
        bundle: values.bundle,
        issued_at: values.issued_at,
      }),
    )
    .execute();
}

export async function findResults(db: Db, orderItemId: string) {
  return db
    .selectFrom('order_results')
    .selectAll()
    .where('order_item_id', '=', orderItemId)
    .executeTakeFirst();
}

export async function acknowledgeItem(db: Db, itemId: string, now: Date): Promise<void> {
  await db
    .updateTable('order_items')
    .set({ acknowledged_at: now })
    .where('id', '=', itemId)
    .where('acknowledged_at', 'is', null)
    .execute();
}

export async function findSelection(db: Db, developerId: string): Promise<number[] | undefined> {
  const row = await db
    .selectFrom('order_product_selections')
    .select('product_ids')
    .where('developer_id', '=', developerId)
    .executeTakeFirst();
  return row?.product_ids;
}

export async function saveSelection(
  db: Db,
  developerId: string,
  productIds: number[],
  now: Date,
): Promise<void> {
  const values = { developer_id: developerId, product_ids: JSON.stringify(productIds), updated_at: now };
  await db
    .insertInto('order_product_selections')
    .values(values)
    .onConflict((oc) =>
      oc.column('developer_id').doUpdateSet({ product_ids: values.product_ids, updated_at: now }),
    )
    .execute();
}
