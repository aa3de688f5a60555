import type { ColumnType, Generated } from 'kysely';
import type { CollectionType } from './domain/catalog.ts';
import type { EscalationLevel } from './domain/events.ts';
import type { Bundle } from './domain/fhir.ts';
import type { OrderStatus, ResultsStatus, Status } from './domain/statuses.ts';
import type { AddressInput, GenderAtBirth, RecipientInput, RequestedLabInput } from './domain/validation.ts';

/** jsonb: written as JSON text (both drivers cast it), read back parsed. */
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null, string | null>;
type Counter = ColumnType<number, number | undefined, number>;

export type OrderEnvironment = 'sandbox' | 'production';
export type PaymentStatus = 'authorized' | 'captured' | 'voided';
export type HistorySource = 'create' | 'simulate' | 'timer' | 'activation' | 'supplier';

/** The person who took the sample, as given on the activation form (or the order's recipient). */
export interface TestTakerRecord {
  first_name: string;
  last_name: string;
  email: string;
  phone_number: string;
  date_of_birth: string;
  gender_at_birth: GenderAtBirth;
}

export interface ActivationRecord {
  address: AddressInput | null;
  collection_date: string | null;
}

export interface OrderProductSelectionsTable {
  developer_id: string;
  product_ids: Json<number[]>;
  updated_at: Date;
}

export interface OrderPaymentsTable {
  /** The gateway's authorisation id. */
  id: string;
  developer_id: string;
  /** The idempotency claim (or order id) the authorisation was made for: one charge per claim. */
  claim: string;
  order_id: string | null;
  amount_cents: number;
  currency: number;
  payment_method: string;
  status: PaymentStatus;
  created_at: Date;
  captured_at: Date | null;
  voided_at: Date | null;
}

export interface OrdersTable {
  id: string;
  developer_id: string;
  environment: OrderEnvironment;
  client_order_reference_id: string;
  collection_type: CollectionType;
  status: OrderStatus;
  /** Bumped on every status change; a timer job for an older version is stale. */
  version: Counter;
  recipient_id: string;
  recipient: Json<RecipientInput>;
  shipping_address: NullableJson<AddressInput>;
  requested_lab_address: NullableJson<AddressInput>;
  requested_lab: NullableJson<RequestedLabInput>;
  currency: number;
  total_cents: number;
  tracking_number: string | null;
  payment_id: string;
  idempotency_claim: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface OrderItemsTable {
  id: string;
  order_id: string;
  developer_id: string;
  position: number;
  variant_id: string;
  product_id: number;
  product_type_id: number;
  quantity: number;
  price_per_item_cents: number;
  currency: number;
  results_status: ResultsStatus;
  version: Counter;
  /** The kit id printed on the kit (and encoded in its QR code); it is what activation presents. */
  supplier_item_id: string;
  lab_tracking_number: string | null;
  test_taker_id: string | null;
  test_taker: NullableJson<TestTakerRecord>;
  activation: NullableJson<ActivationRecord>;
  activated_at: Date | null;
  acknowledged_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface OrderStatusHistoryTable {
  id: Generated<number>;
  order_id: string;
  order_item_id: string | null;
  status: Status;
  source: HistorySource;
  escalation_level: EscalationLevel | null;
  acknowledgment_due_by: Date | null;
  changed_at: Date;
}

export interface OrderResultsTable {
  order_item_id: string;
  report_status: 'final' | 'partial';
  bundle: Json<Bundle>;
  issued_at: Date;
}

export interface IdempotencyKeysTable {
  developer_id: string;
  key: string;
  /** SHA-256 of method, path and the canonical JSON body. */
  request_hash: string;
  /** Minted per use of the key; the order and the payment carry it (both unique). */
  claim: string;
  status: 'in_flight' | 'completed';
  response_status: number | null;
  response_body: NullableJson<unknown>;
  /** An in-flight claim older than this belongs to a crashed request and may be taken over. */
  locked_until: Date;
  created_at: Date;
  expires_at: Date;
}

/** The order webhook events emitted, by their id in the webhook log (see webhook-log.ts). */
export interface OrderWebhookEventsTable {
  webhook_event_id: string;
  developer_id: string;
  /** bigint: the event's own 64-bit event_id, written and read as text. */
  order_event_id: ColumnType<string, string, never>;
  event_type: string;
  order_id: string;
  order_item_id: string | null;
  created_at: Date;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    order_product_selections: OrderProductSelectionsTable;
    order_payments: OrderPaymentsTable;
    orders: OrdersTable;
    order_items: OrderItemsTable;
    order_status_history: OrderStatusHistoryTable;
    order_results: OrderResultsTable;
    idempotency_keys: IdempotencyKeysTable;
    order_webhook_events: OrderWebhookEventsTable;
  }
}
