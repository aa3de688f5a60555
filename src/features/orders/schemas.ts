// TypeBox schemas for orders on the order API (property names: docs/wire-contract.md#lab-orders): labs,
// creating, reading and listing orders, the sandbox simulation. They validate parameters, shape
// responses (nothing outside a schema is serialised) and feed the OpenAPI document. Kit activation
// and results: result-schemas.ts; the client's own account: client-schemas.ts; the catalog:
// catalog-schemas.ts.
import Type from 'typebox';
import { Currency } from './catalog-schemas.ts';
import { COLLECTION_TYPES } from './domain/catalog.ts';
import { ESCALATION_LEVELS } from './domain/events.ts';
import { ORDER_EVENTS, RESULTS_EVENTS } from './domain/statuses.ts';
import { DEFAULT_IDEMPOTENCY_TTL_HOURS } from './settings.ts';
import { Cursor, OrderStatus, PageLimit, ResultsStatus } from './schema-parts.ts';

const Address = Type.Object(
  {
    address_line_1: Type.String({ maxLength: 100 }),
    address_line_2: Type.Optional(Type.String({ maxLength: 100 })),
    city: Type.String({ maxLength: 50 }),
    administrative_area: Type.Optional(Type.String({ maxLength: 50 })),
    postal_code: Type.String(),
    country_code: Type.String({ description: 'ISO 3166-1 alpha-2' }),
    id: Type.Optional(Type.Integer()),
    is_validated: Type.Optional(Type.Boolean()),
  },
  { title: 'AddressDTO' },
);

const Recipient = Type.Object(
  {
    first_name: Type.String(),
    last_name: Type.String(),
    email: Type.String({ format: 'email' }),
    date_of_birth: Type.String({ description: 'YYYY-MM-DD' }),
    gender_at_birth: Type.Enum(['male', 'female'] as const),
    phone_number: Type.String({ description: 'E.164, e.g. +14155552671' }),
    id: Type.Optional(Type.String()),
  },
  { title: 'RecipientDTO' },
);

const RequestedLab = Type.Object({ code: Type.String(), postal_code: Type.Optional(Type.String()) });

const labFields = {
  code: Type.String(),
  name: Type.String(),
  address: Address,
  phone: Type.String(),
  hours: Type.Record(Type.String(), Type.String(), { description: 'Opening hours by weekday' }),
  latitude: Type.Number(),
  longitude: Type.Number(),
  scheduling: Type.Boolean({ description: 'Whether online scheduling is open' }),
};

/** The draw site a GO_TO_LAB order is bound to (a /labs row without its distance). */
const ConfirmedLab = Type.Object(labFields, { title: 'ConfirmedLab' });

export const LabsQuery = Type.Object({
  zip_code: Type.String({
    description: '5-digit US ZIP, optionally with its 4-digit suffix',
    maxLength: 10,
    examples: ['62701'],
  }),
});

export const LabsResponse = Type.Object({
  labs: Type.Array(
    Type.Object(
      { ...labFields, distance: Type.Number({ description: 'Miles from the requested ZIP (estimated)' }) },
      { title: 'PSCLocation' },
    ),
  ),
});

/**
 * Documentation only: the body is validated by the order rules so that every problem comes back
 * at once as `invalid_fields` (field, tag, value, message) rather than the first schema error.
 */
export const CreateOrderBody = Type.Unknown({
  title: 'CreateOrderRequest',
  description:
    'Required: client_order_reference_id (1-100 chars, not deduplicated), collection_type (AT_HOME | GO_TO_LAB), ' +
    'items [{variant_id: string, quantity: 1-100}] (1-50 items), recipient {first_name, last_name, email, ' +
    'date_of_birth YYYY-MM-DD, gender_at_birth male|female, phone_number E.164}. shipping_address (AddressDTO) is ' +
    'required for AT_HOME; requested_lab_address or requested_lab {code, postal_code?} for GO_TO_LAB. Optional ' +
    'payment_method (Tributary extension): the payment method token to charge; sandbox test values ' +
    'pm_sandbox_decline, pm_sandbox_insufficient_funds, pm_sandbox_expired and pm_sandbox_processing_error ' +
    'decline (402 with category), as does any order above 1,000,000 cents.',
  examples: [
    {
      client_order_reference_id: 'order-42',
      collection_type: 'AT_HOME',
      items: [{ variant_id: '1011', quantity: 1 }],
      recipient: {
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: 'ada@example.com',
        date_of_birth: '1990-12-10',
        gender_at_birth: 'female',
        phone_number: '+14155552671',
      },
      shipping_address: {
        address_line_1: '1 Main St',
        city: 'Springfield',
        administrative_area: 'IL',
        postal_code: '62701',
        country_code: 'US',
      },
    },
  ],
});

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        `Optional, up to 255 printable ASCII characters, scoped to your dev-id and remembered for ${DEFAULT_IDEMPOTENCY_TTL_HOURS} hours. ` +
        'The same key with the same body returns the original response (header idempotent-replayed: true) without a second ' +
        'order or charge; with a different body, or while the first request is still in flight: 409. A declined payment ' +
        'frees the key. Without the header nothing is deduplicated.',
    }),
  ),
});

const OrderItem = Type.Object(
  {
    order_item_id: Type.String(),
    order_id: Type.String(),
    variant_id: Type.String(),
    product_type_id: Type.String(),
    quantity: Type.Integer(),
    price_per_item_cents: Type.Integer(),
    currency: Currency,
    item_status: Type.Integer({
      description: '1 awaiting fulfilment, 2 fulfilled, 3 not fulfilled (cancelled or payment failed)',
    }),
    results_status: ResultsStatus,
    lab_tracking_number: Type.Optional(Type.String()),
    supplier_item_id: Type.Optional(
      Type.String({ description: 'The kit id printed on the kit; the activation page takes it' }),
    ),
    test_taker_ids: Type.Optional(Type.Array(Type.String(), { description: 'After activation' })),
  },
  { title: 'OrderItemResponse' },
);

export const CreateOrderResponse = Type.Object(
  {
    order_id: Type.String(),
    recipient_id: Type.String(),
    order_status: OrderStatus,
    order_items: Type.Array(OrderItem),
    tracking_number: Type.Optional(Type.String()),
    confirmed_lab_address: Type.Optional(Address),
    confirmed_lab: Type.Union([ConfirmedLab, Type.Null()]),
  },
  { title: 'CreateOrderResponse' },
);

const HistoryEntry = Type.Object({
  status: Type.Union([OrderStatus, ResultsStatus]),
  order_item_id: Type.Optional(Type.String()),
  changed_at: Type.String({ description: 'ISO 8601' }),
  escalation_level: Type.Optional(Type.Enum(ESCALATION_LEVELS)),
  acknowledgment_due_by: Type.Optional(Type.String()),
});

export const OrderResponse = Type.Object(
  {
    order_id: Type.String(),
    client_id: Type.String({ description: 'Your dev-id' }),
    client_order_reference_id: Type.String(),
    collection_type: Type.Enum(COLLECTION_TYPES),
    order_status: OrderStatus,
    created_at: Type.String(),
    recipient: Recipient,
    shipping_address: Type.Union([Address, Type.Null()], {
      description: 'AT_HOME: where the kit goes; GO_TO_LAB: the draw site the requisition goes to',
    }),
    requested_lab_address: Type.Optional(Address),
    confirmed_lab_address: Type.Optional(Address),
    requested_lab: Type.Optional(RequestedLab),
    confirmed_lab: Type.Union([ConfirmedLab, Type.Null()]),
    tracking_number: Type.Optional(Type.String()),
    items: Type.Array(OrderItem),
    order_financials: Type.Object({
      currency: Currency,
      total_cents: Type.Integer(),
      discount_cents: Type.Optional(Type.Integer()),
    }),
    status_history: Type.Array(HistoryEntry, {
      description: 'Newest first; order and item changes, one webhook each',
    }),
  },
  { title: 'GetOrderResponse' },
);

export const OrderParams = Type.Object({
  orderID: Type.String({ description: 'Order id (numeric string)', examples: ['1893462851473129472'] }),
});

export const OrderListQuery = Type.Object({
  limit: PageLimit,
  cursor: Cursor,
  client_order_reference_id: Type.Optional(Type.String({ maxLength: 100 })),
  status: Type.Optional(
    Type.String({ description: 'An order status, e.g. order.processing (legacy order.failed accepted)' }),
  ),
  since: Type.Optional(Type.String({ description: 'RFC 3339; orders created at or after it' })),
  collection_type: Type.Optional(Type.Enum(COLLECTION_TYPES)),
  missing: Type.Optional(
    Type.Boolean({ description: 'true: delivered or completed orders still waiting for results' }),
  ),
});

const OrderSummary = Type.Object(
  {
    order_id: Type.String(),
    client_order_reference_id: Type.Optional(Type.String()),
    created_at: Type.String(),
    collection_type: Type.Enum(COLLECTION_TYPES),
    order_status: OrderStatus,
    total_cents: Type.Integer(),
    currency: Currency,
    items: Type.Array(
      Type.Object({
        order_item_id: Type.String(),
        variant_id: Type.String(),
        product_name: Type.Optional(Type.String()),
        item_status: Type.Integer(),
        results_status: ResultsStatus,
        test_taker_id: Type.Optional(Type.String()),
      }),
    ),
  },
  { title: 'OrderSummary' },
);

export const OrderListResponse = Type.Object({
  orders: Type.Array(OrderSummary),
  next_cursor: Type.Optional(Type.String({ description: 'Absent on the last page' })),
});

export const SimulateBody = Type.Object(
  {
    event: Type.String({
      description: `Order events: ${ORDER_EVENTS.join(', ')}. Results events: ${RESULTS_EVENTS.join(', ')}.`,
    }),
    order_item_id: Type.Optional(
      Type.String({ description: 'Narrows a results event to one item (default: every item)' }),
    ),
  },
  { examples: [{ event: 'payment_complete' }] },
);
export const SimulateResponse = Type.Object({ order_id: Type.String(), applied_event: Type.String() });
