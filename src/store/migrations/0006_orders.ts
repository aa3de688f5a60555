import { type Kysely, sql } from 'kysely';

/**
 * The lab-order API: orders and their items (one kit each), the status history REST and webhooks
 * share, stored sandbox results, the developer's enabled catalog selection, durable payment
 * records, and Idempotency-Key claims.
 *
 * Ids are snowflakes kept as text: they exceed 2^53 and the store reads int8 as a JS number.
 * `idempotency_claim` on orders and `claim` on payments are unique, so even two processes that
 * both believe they own a key cannot create a second order or a second charge.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE order_product_selections (
      developer_id text PRIMARY KEY REFERENCES developers (id) ON DELETE CASCADE,
      product_ids jsonb NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);

  await sql`
    CREATE TABLE order_payments (
      id text PRIMARY KEY,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      claim text NOT NULL UNIQUE,
      order_id text,
      amount_cents integer NOT NULL CHECK (amount_cents > 0),
      currency integer NOT NULL,
      payment_method text NOT NULL,
      status text NOT NULL CHECK (status IN ('authorized', 'captured', 'voided')),
      created_at timestamptz NOT NULL,
      captured_at timestamptz,
      voided_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX order_payments_by_developer ON order_payments (developer_id, created_at)`.execute(
    db,
  );

  await sql`
    CREATE TABLE orders (
      id text PRIMARY KEY,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
      client_order_reference_id text NOT NULL,
      collection_type text NOT NULL CHECK (collection_type IN ('AT_HOME', 'GO_TO_LAB')),
      status text NOT NULL,
      version integer NOT NULL DEFAULT 0,
      recipient_id text NOT NULL,
      recipient jsonb NOT NULL,
      shipping_address jsonb,
      requested_lab_address jsonb,
      requested_lab jsonb,
      currency integer NOT NULL,
      total_cents integer NOT NULL,
      tracking_number text,
      payment_id text NOT NULL REFERENCES order_payments (id),
      idempotency_claim text UNIQUE,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX orders_by_developer ON orders (developer_id, created_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX orders_by_reference ON orders (developer_id, client_order_reference_id)`.execute(db);
  await sql`CREATE INDEX orders_by_status ON orders (developer_id, status, created_at DESC)`.execute(db);

  await sql`
    CREATE TABLE order_items (
      id text PRIMARY KEY,
      order_id text NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      position integer NOT NULL,
      variant_id text NOT NULL,
      product_id integer NOT NULL,
      product_type_id integer NOT NULL,
      quantity integer NOT NULL,
      price_per_item_cents integer NOT NULL,
      currency integer NOT NULL,
      results_status text NOT NULL,
      version integer NOT NULL DEFAULT 0,
      supplier_item_id text NOT NULL UNIQUE,
      lab_tracking_number text,
      test_taker_id text UNIQUE,
      test_taker jsonb,
      activation jsonb,
      activated_at timestamptz,
      acknowledged_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (order_id, position)
    )`.execute(db);
  await sql`CREATE INDEX order_items_by_developer ON order_items (developer_id, id DESC)`.execute(db);

  await sql`
    CREATE TABLE order_status_history (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      order_id text NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
      order_item_id text REFERENCES order_items (id) ON DELETE CASCADE,
      status text NOT NULL,
      source text NOT NULL CHECK (source IN ('create', 'simulate', 'timer', 'activation', 'supplier')),
      escalation_level text,
      acknowledgment_due_by timestamptz,
      changed_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX order_status_history_by_order ON order_status_history (order_id, id)`.execute(db);

  await sql`
    CREATE TABLE order_results (
      order_item_id text PRIMARY KEY REFERENCES order_items (id) ON DELETE CASCADE,
      report_status text NOT NULL CHECK (report_status IN ('final', 'partial')),
      bundle jsonb NOT NULL,
      issued_at timestamptz NOT NULL
    )`.execute(db);

  await sql`
    CREATE TABLE idempotency_keys (
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      key text NOT NULL,
      request_hash text NOT NULL,
      claim text NOT NULL,
      status text NOT NULL CHECK (status IN ('in_flight', 'completed')),
      response_status integer,
      response_body jsonb,
      locked_until timestamptz NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (developer_id, key)
    )`.execute(db);
  await sql`CREATE INDEX idempotency_keys_expiry ON idempotency_keys (developer_id, expires_at)`.execute(db);
}
