// Rows to wire objects (docs/wire-contract.md#endpoints-and-objects). Only these functions decide what
// leaves the service, so a new column never reaches a response by accident; cursors are opaque so their
// shape may change.
import { invalidParameter } from '../../core/errors.ts';
import { isStorableInstant } from '../../core/cursor-bounds.ts';
import type { Catalog } from './domain/catalog.ts';
import { findProduct } from './domain/catalog.ts';
import type { StatusHistoryEntry } from './domain/events.ts';
import { newestFirst } from './domain/events.ts';
import type { Lab } from './domain/labs.ts';
import type { HistoryRow, ItemRow, OrderRow } from './repo.ts';

/**
 * `item_status` codes (undocumented on the wire, which shows 1 and 2): 1 awaiting fulfilment,
 * 2 fulfilled (the kit was delivered or the lab visit is booked), 3 not fulfilled (cancelled or
 * payment failed).
 */
export const ITEM_STATUS = { PENDING: 1, FULFILLED: 2, NOT_FULFILLED: 3 } as const;

export function itemStatus(order: OrderRow): number {
  if (order.status === 'order.delivery_fulfilled' || order.status === 'order.completed')
    return ITEM_STATUS.FULFILLED;
  if (order.status === 'order.cancelled' || order.status === 'order.payment_failed')
    return ITEM_STATUS.NOT_FULFILLED;
  return ITEM_STATUS.PENDING;
}

export function orderItemView(order: OrderRow, item: ItemRow) {
  return {
    order_item_id: item.id,
    order_id: item.order_id,
    variant_id: item.variant_id,
    product_type_id: String(item.product_type_id),
    quantity: item.quantity,
    price_per_item_cents: item.price_per_item_cents,
    currency: item.currency,
    item_status: itemStatus(order),
    results_status: item.results_status,
    ...(item.lab_tracking_number ? { lab_tracking_number: item.lab_tracking_number } : {}),
    supplier_item_id: item.supplier_item_id,
    ...(item.test_taker_id ? { test_taker_ids: [item.test_taker_id] } : {}),
  };
}

/**
 * The draw site a GO_TO_LAB order is bound to: `confirmed_lab` (null when unbound) and its address
 * as `confirmed_lab_address`, which is left out rather than sent as null when there is none (the
 * schema gives it as an address object).
 */
function labBinding(lab: Lab | null) {
  return { ...(lab ? { confirmed_lab_address: lab.address } : {}), confirmed_lab: lab };
}

export function createOrderView(order: OrderRow, items: readonly ItemRow[], lab: Lab | null = null) {
  return {
    order_id: order.id,
    recipient_id: order.recipient_id,
    order_status: order.status,
    order_items: items.map((item) => orderItemView(order, item)),
    ...(order.tracking_number ? { tracking_number: order.tracking_number } : {}),
    ...labBinding(lab),
  };
}

export function historyView(rows: readonly HistoryRow[]): StatusHistoryEntry[] {
  return newestFirst(
    rows.map((row) => {
      const entry: StatusHistoryEntry = { status: row.status, changed_at: row.changed_at.toISOString() };
      if (row.order_item_id) entry.order_item_id = row.order_item_id;
      if (row.escalation_level) entry.escalation_level = row.escalation_level;
      if (row.acknowledgment_due_by) entry.acknowledgment_due_by = row.acknowledgment_due_by.toISOString();
      return entry;
    }),
  );
}

export function orderView(
  order: OrderRow,
  items: readonly ItemRow[],
  history: readonly HistoryRow[],
  lab: Lab | null = null,
) {
  return {
    order_id: order.id,
    client_id: order.developer_id,
    client_order_reference_id: order.client_order_reference_id,
    collection_type: order.collection_type,
    order_status: order.status,
    created_at: order.created_at.toISOString(),
    recipient: { ...order.recipient, id: order.recipient_id },
    // A GO_TO_LAB order ships nothing to the recipient: its requisition goes to the draw site, so
    // the site's address (or the requested lab address) is its shipping address.
    shipping_address: order.shipping_address ?? lab?.address ?? order.requested_lab_address,
    ...(order.requested_lab_address ? { requested_lab_address: order.requested_lab_address } : {}),
    ...(order.requested_lab ? { requested_lab: order.requested_lab } : {}),
    ...labBinding(lab),
    ...(order.tracking_number ? { tracking_number: order.tracking_number } : {}),
    items: items.map((item) => orderItemView(order, item)),
    order_financials: { currency: order.currency, total_cents: order.total_cents, discount_cents: 0 },
    status_history: historyView(history),
  };
}

const productName = (catalog: Catalog, productId: number) => findProduct(catalog, productId)?.name;

export function orderSummaryView(catalog: Catalog, order: OrderRow, items: readonly ItemRow[]) {
  return {
    order_id: order.id,
    client_order_reference_id: order.client_order_reference_id,
    created_at: order.created_at.toISOString(),
    collection_type: order.collection_type,
    order_status: order.status,
    total_cents: order.total_cents,
    currency: order.currency,
    items: items.map((item) => {
      const name = productName(catalog, item.product_id);
      return {
        order_item_id: item.id,
        variant_id: item.variant_id,
        ...(name ? { product_name: name } : {}),
        item_status: itemStatus(order),
        results_status: item.results_status,
        ...(item.test_taker_id ? { test_taker_id: item.test_taker_id } : {}),
      };
    }),
  };
}

export function resultSummaryView(catalog: Catalog, item: ItemRow) {
  const name = productName(catalog, item.product_id);
  return {
    order_item_id: item.id,
    order_id: item.order_id,
    variant_id: item.variant_id,
    ...(name ? { product_name: name } : {}),
    results_status: item.results_status,
    is_acknowledged: item.acknowledged_at !== null,
    ...(item.test_taker_id ? { test_taker_id: item.test_taker_id } : {}),
    updated_at: item.updated_at.toISOString(),
  };
}

// --- Cursors --------------------------------------------------------------------------------------

const encode = (value: object) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

function decode(cursor: string): Record<string, unknown> {
  try {
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw new Error('not base64url');
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
    return value as Record<string, unknown>;
  } catch {
    throw invalidParameter(
      'cursor',
      'not a cursor this API issued; pass next_cursor from the previous page unchanged',
    );
  }
}

const ID_PATTERN = /^[1-9]\d{0,19}$/;

export const encodeOrderCursor = (order: OrderRow) => encode({ t: order.created_at.getTime(), i: order.id });

export function decodeOrderCursor(cursor: string): { createdAt: Date; id: string } {
  const { t, i } = decode(cursor);
  if (
    typeof t !== 'number' ||
    !Number.isSafeInteger(t) ||
    !isStorableInstant(t) ||
    typeof i !== 'string' ||
    !ID_PATTERN.test(i)
  ) {
    throw invalidParameter(
      'cursor',
      'not a cursor this API issued; pass next_cursor from the previous page unchanged',
    );
  }
  return { createdAt: new Date(t), id: i };
}

export const encodeItemCursor = (item: ItemRow) => encode({ i: item.id });

export function decodeItemCursor(cursor: string): string {
  const { i } = decode(cursor);
  if (typeof i !== 'string' || !ID_PATTERN.test(i)) {
    throw invalidParameter(
      'cursor',
      'not a cursor this API issued; pass next_cursor from the previous page unchanged',
    );
  }
  return i;
}
