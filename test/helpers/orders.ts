import type { TestDeveloper, TestService } from './app.ts';

/** Helpers for the order API tests: a valid body to vary, and short calls through inject. */

export type Json = Record<string, unknown>;

export function orderBody(overrides: Json = {}): Json {
  return {
    client_order_reference_id: 'ref-1',
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
    ...overrides,
  };
}

export const activationBody = (kitId: string, overrides: Json = {}): Json => ({
  supplier_kit_id: kitId,
  address: { address_line_1: '1 Main St', city: 'Springfield', postal_code: '62701', country_code: 'US' },
  recipient: {
    first_name: 'Grace',
    last_name: 'Hopper',
    email: 'grace@example.com',
    date_of_birth: '1985-12-09',
    gender_at_birth: 'female',
    phone_number: '+14155550100',
  },
  ...overrides,
});

export type ApiResponse = { status: number; body: Json; headers: Record<string, unknown> };

export async function api(
  service: TestService,
  developer: TestDeveloper | undefined,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const response = await service.app.inject({
    method,
    url,
    headers: { ...(developer?.headers ?? {}), ...headers },
    ...(payload === undefined ? {} : { payload: payload as Json }),
  });
  const text = response.body;
  return {
    status: response.statusCode,
    body: text?.startsWith('{')
      ? (JSON.parse(text) as Json)
      : text.startsWith('[')
        ? { list: JSON.parse(text) }
        : {},
    headers: response.headers,
  };
}

export async function createOrder(
  service: TestService,
  developer: TestDeveloper,
  overrides: Json = {},
  headers: Record<string, string> = {},
) {
  const response = await api(service, developer, 'POST', '/api/v1/orders', orderBody(overrides), headers);
  if (response.status !== 201)
    throw new Error(`create order failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as Json & {
    order_id: string;
    order_items: (Json & { order_item_id: string; supplier_item_id: string })[];
  };
}

export async function simulate(
  service: TestService,
  developer: TestDeveloper,
  orderId: string,
  event: string,
  orderItemId?: string,
) {
  return api(service, developer, 'POST', `/api/v1/orders/${orderId}/simulate`, {
    event,
    ...(orderItemId ? { order_item_id: orderItemId } : {}),
  });
}

/** Simulates each event in turn and fails loudly on the first that is not applied. */
export async function advance(
  service: TestService,
  developer: TestDeveloper,
  orderId: string,
  ...events: string[]
) {
  for (const event of events) {
    const response = await simulate(service, developer, orderId, event);
    if (response.status !== 200)
      throw new Error(`simulate ${event}: ${response.status} ${JSON.stringify(response.body)}`);
  }
}

export async function countRows(
  service: TestService,
  table: 'orders' | 'order_payments',
  developerId: string,
  where: Json = {},
) {
  let query = service.ctx.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('developer_id', '=', developerId);
  for (const [column, value] of Object.entries(where)) {
    query = query.where(column as 'developer_id', '=', value as string);
  }
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}
