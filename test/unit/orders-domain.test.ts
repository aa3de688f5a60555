import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BIOMARKERS } from '../../src/features/orders/domain/biomarkers.ts';
import type { CatalogProduct } from '../../src/features/orders/domain/catalog.ts';
import {
  COLLECTION_TYPES,
  CURRENCY,
  defaultEnabledProductIds,
  disabledProductIds,
  findVariant,
  listProductsOfType,
  listVariants,
  parseProductSelection,
  toWireProduct,
} from '../../src/features/orders/domain/catalog.ts';
import {
  buildOrderStatusChangedEvent,
  buildResultsStatusChangeEvent,
  newestFirst,
  statusHistoryEntryFor,
} from '../../src/features/orders/domain/events.ts';
import type {
  Bundle,
  DiagnosticReport,
  Observation,
  Patient,
} from '../../src/features/orders/domain/fhir.ts';
import {
  buildSandboxResultsBundle,
  INTERPRETATION_SYSTEM,
  LOINC_SYSTEM,
  stableUuid,
  UCUM_SYSTEM,
} from '../../src/features/orders/domain/fhir.ts';
import type { InvalidField } from '../../src/features/orders/domain/field-rules.ts';
import { VALIDATION_TAGS } from '../../src/features/orders/domain/field-rules.ts';
import type { AuthorizeRequest } from '../../src/features/orders/domain/payment.ts';
import {
  PaymentIdempotencyConflictError,
  SANDBOX_AUTHORIZATION_LIMIT_CENTS,
  SANDBOX_PAYMENT_METHODS,
  SandboxPaymentGateway,
} from '../../src/features/orders/domain/payment.ts';
import { SAMPLE_CATALOG } from '../../src/features/orders/domain/sample-catalog.ts';
import { generateSandboxResults, interpret } from '../../src/features/orders/domain/sandbox-results.ts';
import {
  nextSandboxOrderStep,
  nextSandboxResultsStep,
  orderIsReadyToComplete,
} from '../../src/features/orders/domain/sandbox-timeline.ts';
import type { OrderStatus, Status, TransitionResult } from '../../src/features/orders/domain/statuses.ts';
import {
  applyEvent,
  eventTarget,
  INITIAL_ORDER_STATUS,
  INITIAL_RESULTS_STATUS,
  ORDER_EVENTS,
  ORDER_STATUSES,
  orderAcceptsResultsEvents,
  parseOrderStatusFilter,
  RESULTS_EVENTS,
  RESULTS_STATUSES,
} from '../../src/features/orders/domain/statuses.ts';
import type { ValidationContext } from '../../src/features/orders/domain/validation.ts';
import { parseCreateOrder, validateCreateOrder } from '../../src/features/orders/domain/validation.ts';

// --- Statuses and transitions ---------------------------------------------------------------------

// Written out independently of the implementation's table: every allowed move, nothing else.
const EXPECTED_EDGES: readonly (readonly [Status, string, Status])[] = [
  ['order.payment_processing', 'payment_complete', 'order.payment_complete'],
  ['order.payment_processing', 'payment_failed', 'order.payment_failed'],
  ['order.payment_processing', 'cancelled', 'order.cancelled'],
  ['order.payment_complete', 'processing', 'order.processing'],
  ['order.payment_complete', 'cancelled', 'order.cancelled'],
  ['order.processing', 'delayed', 'order.delayed'],
  ['order.processing', 'delivery_fulfilled', 'order.delivery_fulfilled'],
  ['order.processing', 'cancelled', 'order.cancelled'],
  ['order.delayed', 'processing', 'order.processing'],
  ['order.delayed', 'delivery_fulfilled', 'order.delivery_fulfilled'],
  ['order.delayed', 'cancelled', 'order.cancelled'],
  ['order.delivery_fulfilled', 'completed', 'order.completed'],
  ['results.awaiting_sample', 'kit_activated', 'results.kit_activated'],
  ['results.kit_activated', 'sample_processing_in_lab', 'results.sample_processing_in_lab'],
  ['results.sample_processing_in_lab', 'partial_results_ready', 'results.partial_results_ready'],
  ['results.sample_processing_in_lab', 'results_ready', 'results.results_ready'],
  ['results.sample_processing_in_lab', 'lab_processing_error', 'results.lab_processing_error'],
  ['results.sample_processing_in_lab', 'escalation_raised', 'results.escalation_raised'],
  ['results.sample_processing_in_lab', 'sample_rejected', 'results.sample_rejected'],
  ['results.partial_results_ready', 'results_ready', 'results.results_ready'],
  ['results.partial_results_ready', 'escalation_raised', 'results.escalation_raised'],
  ['results.results_ready', 'escalation_raised', 'results.escalation_raised'],
];

const ALL_STATUSES: readonly Status[] = [...ORDER_STATUSES, ...RESULTS_STATUSES];
const ALL_EVENTS: readonly string[] = [...ORDER_EVENTS, ...RESULTS_EVENTS];

describe('order and results transitions', () => {
  test('vocabularies match the contract (docs/wire-contract.md#statuses-and-transitions)', () => {
    assert.equal(INITIAL_ORDER_STATUS, 'order.payment_processing');
    assert.equal(INITIAL_RESULTS_STATUS, 'results.awaiting_sample');
    assert.equal(ORDER_STATUSES.length, 8);
    assert.equal(RESULTS_STATUSES.length, 8);
    assert.deepEqual([...ORDER_EVENTS].sort(), [
      'cancelled',
      'completed',
      'delayed',
      'delivery_fulfilled',
      'payment_complete',
      'payment_failed',
      'processing',
    ]);
  });

  for (const [from, event, to] of EXPECTED_EDGES) {
    test(`${from} --${event}--> ${to}`, () => {
      assert.deepEqual(applyEvent(from, event), { ok: true, status: to, event });
    });
  }

  test('every status x event pair outside the table is refused with the sorted valid events', () => {
    for (const from of ALL_STATUSES) {
      const expectedValid = EXPECTED_EDGES.filter(([f]) => f === from)
        .map(([, e]) => e)
        .sort();
      for (const event of ALL_EVENTS) {
        const result = applyEvent(from, event);
        if (expectedValid.includes(event)) {
          assert.equal(result.ok, true, `${from} + ${event}`);
          continue;
        }
        assert.deepEqual(
          result,
          {
            ok: false,
            error: {
              kind: 'invalid_transition',
              reason: 'not_allowed',
              event,
              current_status: from,
              valid_events: expectedValid,
            },
          },
          `${from} + ${event}`,
        );
      }
    }
  });

  test("the spec's own 422 case: payment_complete offers cancelled and processing", () => {
    const result = applyEvent('order.payment_complete', 'completed');
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.error.current_status, 'order.payment_complete');
    assert.deepEqual(result.error.valid_events, ['cancelled', 'processing']);
  });

  test('unknown event names are refused as unknown, still listing what would work', () => {
    const result = applyEvent('order.processing', 'shipped');
    assert.deepEqual(result, {
      ok: false,
      error: {
        kind: 'invalid_transition',
        reason: 'unknown_event',
        event: 'shipped',
        current_status: 'order.processing',
        valid_events: ['cancelled', 'delayed', 'delivery_fulfilled'],
      },
    });
    // Prefixed names are statuses, not events.
    assert.equal(applyEvent('order.processing', 'order.delayed').ok, false);
  });

  test('terminal statuses accept nothing', () => {
    for (const status of [
      'order.payment_failed',
      'order.completed',
      'order.cancelled',
      'results.sample_rejected',
      'results.lab_processing_error',
      'results.escalation_raised',
    ] as const) {
      const result = applyEvent(status, 'cancelled');
      assert.equal(result.ok, false);
      if (!result.ok) assert.deepEqual(result.error.valid_events, []);
    }
  });

  test('events are routed to the order or to its items', () => {
    assert.equal(eventTarget('delayed'), 'order');
    assert.equal(eventTarget('kit_activated'), 'order_item');
    assert.equal(orderAcceptsResultsEvents('order.delivery_fulfilled'), true);
    assert.equal(orderAcceptsResultsEvents('order.cancelled'), false);
    assert.equal(orderAcceptsResultsEvents('order.payment_failed'), false);
  });

  test('the legacy order.failed filter means payment failure; junk is rejected', () => {
    assert.equal(parseOrderStatusFilter('order.failed'), 'order.payment_failed');
    assert.equal(parseOrderStatusFilter('order.processing'), 'order.processing');
    assert.equal(parseOrderStatusFilter('fulfillment.processing'), undefined);
  });

  test('sandbox timers only ever take valid transitions and end at completion', () => {
    let order: OrderStatus = INITIAL_ORDER_STATUS;
    const visited: OrderStatus[] = [order];
    for (let step = nextSandboxOrderStep(order); step; step = nextSandboxOrderStep(order)) {
      const result: TransitionResult<OrderStatus> = applyEvent(order, step.event);
      assert.equal(result.ok, true, `${order} + ${step.event}`);
      if (!result.ok) break;
      order = result.status;
      visited.push(order);
    }
    assert.deepEqual(visited, [
      'order.payment_processing',
      'order.payment_complete',
      'order.processing',
      'order.delivery_fulfilled',
    ]);
    assert.equal(nextSandboxResultsStep('results.awaiting_sample'), undefined, 'activation is never timed');
    const afterActivation = nextSandboxResultsStep('results.kit_activated');
    assert.equal(afterActivation?.event, 'sample_processing_in_lab');
    assert.ok(afterActivation && afterActivation.delaySeconds >= 60 && afterActivation.delaySeconds <= 120);
    assert.equal(applyEvent('results.kit_activated', afterActivation?.event ?? '').ok, true);
    assert.equal(nextSandboxResultsStep('results.sample_processing_in_lab')?.event, 'results_ready');
    assert.equal(orderIsReadyToComplete('order.delivery_fulfilled', ['results.results_ready']), true);
    assert.equal(
      orderIsReadyToComplete('order.delivery_fulfilled', ['results.results_ready', 'results.kit_activated']),
      false,
    );
    assert.equal(orderIsReadyToComplete('order.processing', ['results.results_ready']), false);
  });
});

// --- Catalog --------------------------------------------------------------------------------------

function loincCheckDigit(body: string): number {
  let sum = 0;
  [...body].reverse().forEach((char, index) => {
    const digit = Number(char) * (index % 2 === 0 ? 2 : 1);
    sum += Math.floor(digit / 10) + (digit % 10);
  });
  return (10 - (sum % 10)) % 10;
}

describe('sample catalog', () => {
  const variants = SAMPLE_CATALOG.products.flatMap((product) => product.variants);

  test('has the expected products, each orderable', () => {
    assert.deepEqual(
      SAMPLE_CATALOG.products.map((product) => product.name),
      [
        'Lipid Panel',
        'HbA1c',
        'Comprehensive Metabolic Panel',
        'Vitamin D (25-OH)',
        'Thyroid Panel',
        'Testosterone Panel',
      ],
    );
    for (const product of SAMPLE_CATALOG.products) {
      assert.ok(product.variants.length >= 2, product.name);
      assert.ok(product.biomarkers.length >= 1, product.name);
      assert.ok(SAMPLE_CATALOG.product_types.some((type) => type.id === product.product_type_id));
    }
  });

  test('variants are well formed: integer cents, ISO 4217 numeric, alpha-2 countries, known collection types', () => {
    const ids = new Set<number>();
    for (const variant of variants) {
      assert.ok(!ids.has(variant.id), `duplicate variant id ${variant.id}`);
      ids.add(variant.id);
      assert.ok(Number.isSafeInteger(variant.price_cents) && variant.price_cents > 0);
      assert.ok(([CURRENCY.USD, CURRENCY.EUR, CURRENCY.GBP] as number[]).includes(variant.currency));
      assert.ok(variant.supported_ship_to_countries.length > 0);
      for (const country of variant.supported_ship_to_countries) assert.match(country, /^[A-Z]{2}$/);
      assert.ok(variant.available_collection_types.length > 0);
      for (const type of variant.available_collection_types) assert.ok(COLLECTION_TYPES.includes(type));
      const product = SAMPLE_CATALOG.products.find((p) => p.id === variant.product_id);
      assert.equal(variant.product_type_id, product?.product_type_id);
    }
    const methods = new Set(variants.map((variant) => variant.variant_defining_attrs.collection_method));
    assert.deepEqual([...methods].sort(), ['finger_prick', 'lab_visit', 'mobile_phlebotomy']);
  });

  test('every LOINC code carries a correct check digit', () => {
    const codes = [
      ...Object.values(BIOMARKERS).map((biomarker) => biomarker.loinc),
      ...SAMPLE_CATALOG.products.flatMap((product) =>
        product.report_code ? [product.report_code.loinc] : [],
      ),
    ];
    for (const code of codes) {
      const match = /^(\d{1,7})-(\d)$/.exec(code);
      assert.ok(match, code);
      assert.equal(loincCheckDigit(match[1] ?? ''), Number(match[2]), code);
    }
    assert.equal(loincCheckDigit('2093'), 3, 'sanity: cholesterol 2093-3');
  });

  test('reference ranges are ordered', () => {
    for (const biomarker of Object.values(BIOMARKERS)) {
      const ranges = [
        biomarker.reference_range,
        ...('reference_range_by_sex' in biomarker
          ? [biomarker.reference_range_by_sex.male, biomarker.reference_range_by_sex.female]
          : []),
      ];
      for (const range of ranges) {
        const low = 'low' in range ? range.low : undefined;
        const high = 'high' in range ? range.high : undefined;
        assert.ok(low !== undefined || high !== undefined, biomarker.name);
        if (low !== undefined && high !== undefined) assert.ok(low < high, biomarker.name);
      }
    }
  });

  test('variant lookup accepts numeric ids and canonical strings only', () => {
    assert.equal(findVariant(SAMPLE_CATALOG, '1011')?.product.name, 'Lipid Panel');
    assert.equal(findVariant(SAMPLE_CATALOG, 1011)?.variant.id, 1011);
    assert.equal(findVariant(SAMPLE_CATALOG, '01011'), undefined);
    assert.equal(findVariant(SAMPLE_CATALOG, '1011abc'), undefined);
    assert.equal(findVariant(SAMPLE_CATALOG, '999999'), undefined);
  });

  test('wire products never expose biomarkers; enabled appears only with show_all', () => {
    const lipid = SAMPLE_CATALOG.products[0] as CatalogProduct;
    const wire = toWireProduct(lipid);
    assert.equal('biomarkers' in wire, false);
    assert.equal('report_code' in wire, false);
    assert.equal('enabled' in wire, false);
    assert.equal(toWireProduct(lipid, false).enabled, false);
  });

  test('selection: full-set writes, unknown ids rejected, disabled products found', () => {
    assert.deepEqual(parseProductSelection(SAMPLE_CATALOG, ['104', '101', '101']), {
      ok: true,
      productIds: [101, 104],
    });
    assert.deepEqual(parseProductSelection(SAMPLE_CATALOG, ['101', '7']), {
      ok: false,
      unknownProductIds: ['7'],
    });
    const enabled = new Set([101]);
    assert.deepEqual(
      disabledProductIds([{ product_id: 101 }, { product_id: 106 }, { product_id: 106 }], enabled),
      [106],
    );
    assert.equal(defaultEnabledProductIds(SAMPLE_CATALOG).size, SAMPLE_CATALOG.products.length);

    const hormones = listProductsOfType(SAMPLE_CATALOG, 4, {
      enabledProductIds: new Set([105]),
      showAll: false,
    });
    assert.deepEqual(
      hormones?.map((product) => [product.id, product.enabled]),
      [[105, undefined]],
    );
    const all = listProductsOfType(SAMPLE_CATALOG, 4, { enabledProductIds: new Set([105]), showAll: true });
    assert.deepEqual(
      all?.map((product) => [product.id, product.enabled]),
      [
        [105, true],
        [106, false],
      ],
    );
    assert.equal(
      listProductsOfType(SAMPLE_CATALOG, 99, { enabledProductIds: enabled, showAll: true }),
      undefined,
    );
    assert.deepEqual(listVariants(SAMPLE_CATALOG, 106, { enabledProductIds: enabled, showAll: false }), []);
    assert.equal(listVariants(SAMPLE_CATALOG, 106, { enabledProductIds: enabled, showAll: true })?.length, 4);
  });
});

// --- Create-order validation ----------------------------------------------------------------------

const context: ValidationContext = { catalog: SAMPLE_CATALOG, now: new Date('2025-06-01T12:00:00Z') };

function validBody(): Record<string, unknown> {
  return {
    client_order_reference_id: 'ref-001',
    collection_type: 'AT_HOME',
    items: [
      { variant_id: '1011', quantity: 2 },
      { variant_id: '1041', quantity: 1 },
    ],
    recipient: {
      first_name: ' Ada ',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      date_of_birth: '1990-12-10',
      gender_at_birth: 'female',
      phone_number: '+14155552671',
    },
    shipping_address: {
      address_line_1: '1 Market St',
      city: 'San Francisco',
      administrative_area: 'CA',
      postal_code: '94105',
      country_code: 'us',
    },
  };
}

function withChanges(change: (body: Record<string, unknown>) => void): Record<string, unknown> {
  const body = validBody();
  change(body);
  return body;
}

const REMOVE = Symbol('remove');

/** Sets (or with REMOVE deletes) the member at `path` of a request body. */
function setAt(path: readonly (string | number)[], value: unknown): (body: Record<string, unknown>) => void {
  return (body) => {
    let target: Record<string | number, unknown> = body;
    for (const key of path.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
    const last = path[path.length - 1] ?? '';
    if (value === REMOVE) delete target[last];
    else target[last] = value;
  };
}

const recipientOf = (body: Record<string, unknown>) => body.recipient as Record<string, unknown>;
const itemsOf = (body: Record<string, unknown>) => body.items as Record<string, unknown>[];
const fieldTags = (fields: readonly InvalidField[]) => fields.map((f) => `${f.field}:${f.tag}`);

describe('create-order validation', () => {
  test('a valid body is normalised and priced from the catalog', () => {
    const result = parseCreateOrder(validBody(), context);
    assert.equal(result.ok, true, JSON.stringify(result));
    if (!result.ok) return;
    assert.equal(result.order.recipient.first_name, 'Ada');
    assert.equal(result.order.shipping_address?.country_code, 'US');
    assert.equal(result.order.currency, 840);
    assert.equal(result.order.total_cents, 2 * 4900 + 4500);
    assert.deepEqual(result.order.items[0], {
      variant_id: '1011',
      product_id: 101,
      product_type_id: 1,
      quantity: 2,
      price_per_item_cents: 4900,
      currency: 840,
    });
  });

  test('a numeric variant id (as catalog reads return it) is accepted', () => {
    const body = withChanges((b) => {
      b.items = [{ variant_id: 1011, quantity: 1 }];
    });
    const result = parseCreateOrder(body, context);
    assert.equal(result.ok, true);
    if (result.ok) assert.equal(result.order.items[0]?.variant_id, '1011');
  });

  test('an empty body reports every required top-level field', () => {
    assert.deepEqual(fieldTags(validateCreateOrder({}, context)), [
      'client_order_reference_id:required',
      'collection_type:required',
      'items:required',
      'recipient:required',
    ]);
    assert.deepEqual(fieldTags(validateCreateOrder([], context)), ['body:type']);
  });

  const cases: readonly [string, (b: Record<string, unknown>) => void, string, string][] = [
    ['bad email', setAt(['recipient', 'email'], 'ada@'), 'recipient.email:email', 'ada@'],
    [
      'phone with separators',
      setAt(['recipient', 'phone_number'], '415-555-2671'),
      'recipient.phone_number:e164',
      '415-555-2671',
    ],
    [
      'impossible date',
      setAt(['recipient', 'date_of_birth'], '1990-02-30'),
      'recipient.date_of_birth:date',
      '1990-02-30',
    ],
    [
      'date in wrong format',
      setAt(['recipient', 'date_of_birth'], '10/12/1990'),
      'recipient.date_of_birth:date',
      '10/12/1990',
    ],
    [
      'birth in the future',
      setAt(['recipient', 'date_of_birth'], '2025-06-02'),
      'recipient.date_of_birth:past_date',
      '2025-06-02',
    ],
    ['unknown gender', setAt(['recipient', 'gender_at_birth'], 'F'), 'recipient.gender_at_birth:oneof', 'F'],
    ['blank last name', setAt(['recipient', 'last_name'], '   '), 'recipient.last_name:required', '   '],
    ['missing first name', setAt(['recipient', 'first_name'], REMOVE), 'recipient.first_name:required', ''],
    ['bad collection type', setAt(['collection_type'], 'MAIL'), 'collection_type:oneof', 'MAIL'],
    [
      'reference too long',
      setAt(['client_order_reference_id'], 'x'.repeat(101)),
      'client_order_reference_id:max_length',
      'x'.repeat(101),
    ],
    [
      'unknown variant',
      setAt(['items', 1, 'variant_id'], '424242'),
      'items[1].variant_id:unknown_variant',
      '424242',
    ],
    ['missing variant', setAt(['items', 0, 'variant_id'], REMOVE), 'items[0].variant_id:required', ''],
    ['zero quantity', setAt(['items', 0, 'quantity'], 0), 'items[0].quantity:min', '0'],
    ['quantity over 100', setAt(['items', 0, 'quantity'], 101), 'items[0].quantity:max', '101'],
    ['fractional quantity', setAt(['items', 0, 'quantity'], 1.5), 'items[0].quantity:integer', '1.5'],
    ['quantity as text', setAt(['items', 0, 'quantity'], '2'), 'items[0].quantity:type', '2'],
    ['no items', setAt(['items'], []), 'items:min_items', '[]'],
    [
      'three-letter country',
      setAt(['shipping_address', 'country_code'], 'USA'),
      'shipping_address.country_code:iso3166_1_alpha2',
      'USA',
    ],
    [
      'bad US ZIP',
      setAt(['shipping_address', 'postal_code'], '9410'),
      'shipping_address.postal_code:postal_code',
      '9410',
    ],
    ['missing city', setAt(['shipping_address', 'city'], REMOVE), 'shipping_address.city:required', ''],
    [
      'AT_HOME without shipping address',
      setAt(['shipping_address'], REMOVE),
      'shipping_address:required',
      '',
    ],
    [
      'same variant twice',
      setAt(['items', 2], { variant_id: '1011', quantity: 1 }),
      'items[2].variant_id:unique',
      '1011',
    ],
    [
      'out of stock variant',
      (b) => {
        // The EU testosterone kit, shipped within the EU, so stock is the only problem.
        setAt(['items'], [{ variant_id: '1062', quantity: 1 }])(b);
        setAt(['shipping_address'], {
          address_line_1: 'Unter den Linden 1',
          city: 'Berlin',
          postal_code: '10117',
          country_code: 'DE',
        })(b);
      },
      'items[0].variant_id:out_of_stock',
      '1062',
    ],
    [
      'lab-only variant at home',
      setAt(['items', 2], { variant_id: '1032', quantity: 1 }),
      'items[2].variant_id:unsupported_collection_type',
      '1032',
    ],
  ];

  for (const [name, change, expected, value] of cases) {
    test(`${name} -> ${expected}`, () => {
      const fields = validateCreateOrder(withChanges(change), context);
      assert.deepEqual(fieldTags(fields), [expected]);
      assert.equal(fields[0]?.value, value);
      assert.ok((fields[0]?.message.length ?? 0) > 0);
    });
  }

  test('variants that do not ship to the destination name the countries that would work', () => {
    const body = withChanges((b) => {
      b.items = [
        { variant_id: '1012', quantity: 1 },
        { variant_id: '1022', quantity: 1 },
      ];
    });
    const result = parseCreateOrder(body, context);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.deepEqual(result.invalid_fields, [
      {
        field: 'shipping_address.country_code',
        tag: 'unsupported_ship_to_country',
        value: 'US',
        message: 'variant(s) 1012, 1022 cannot be delivered to US',
      },
    ]);
    assert.deepEqual(result.supported_ship_to_countries, ['GB']);
  });

  test('one order is one currency', () => {
    const body = withChanges((b) => {
      b.items = [
        { variant_id: '1011', quantity: 1 },
        { variant_id: '1042', quantity: 1 },
      ];
      (b.shipping_address as Record<string, unknown>).country_code = 'GB';
      (b.shipping_address as Record<string, unknown>).postal_code = 'SW1A 1AA';
    });
    const tags = fieldTags(validateCreateOrder(body, context));
    assert.ok(tags.includes('items[1].variant_id:currency_mismatch'), tags.join());
  });

  test('GO_TO_LAB needs a lab or a lab address, and lab codes can be checked', () => {
    const labBody = withChanges((b) => {
      b.collection_type = 'GO_TO_LAB';
      b.items = [{ variant_id: '1015', quantity: 1 }];
      delete b.shipping_address;
    });
    assert.deepEqual(fieldTags(validateCreateOrder(labBody, context)), ['requested_lab_address:required']);

    labBody.requested_lab = { code: 'PSC-001' };
    assert.deepEqual(validateCreateOrder(labBody, context), []);
    const strict = { ...context, isKnownLabCode: (code: string) => code === 'PSC-002' };
    assert.deepEqual(fieldTags(validateCreateOrder(labBody, strict)), [
      'requested_lab.code:unknown_lab_code',
    ]);

    delete labBody.requested_lab;
    labBody.requested_lab_address = {
      address_line_1: '10 Rue de Rivoli',
      city: 'Paris',
      postal_code: '75001',
      country_code: 'FR',
    };
    const result = parseCreateOrder(labBody, context);
    assert.equal(result.ok, false);
    if (!result.ok) {
      assert.deepEqual(fieldTags(result.invalid_fields), [
        'requested_lab_address.country_code:unsupported_ship_to_country',
      ]);
      assert.deepEqual(result.supported_ship_to_countries, ['US']);
    }
  });

  test('problems are all reported at once, in body order, with valid tags and string values', () => {
    const body = withChanges((b) => {
      b.client_order_reference_id = '';
      recipientOf(b).email = 'not-an-email';
      recipientOf(b).phone_number = '0044 20 7946 0958';
      itemsOf(b)[0] = { variant_id: 'abc', quantity: 0 };
    });
    const fields = validateCreateOrder(body, context);
    assert.deepEqual(fieldTags(fields), [
      'client_order_reference_id:required',
      'items[0].variant_id:unknown_variant',
      'items[0].quantity:min',
      'recipient.email:email',
      'recipient.phone_number:e164',
    ]);
    for (const field of fields) {
      assert.ok((VALIDATION_TAGS as readonly string[]).includes(field.tag));
      assert.equal(typeof field.value, 'string');
    }
  });

  test('echoed values are truncated', () => {
    const body = withChanges((b) => {
      recipientOf(b).email = `${'a'.repeat(5000)}@example.com`;
    });
    const [field] = validateCreateOrder(body, context);
    assert.equal(field?.tag, 'max_length');
    assert.ok((field?.value.length ?? 0) <= 201);
  });
});

// --- Payment --------------------------------------------------------------------------------------

function authorizeRequest(overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest {
  return {
    amountCents: 9800,
    currency: CURRENCY.USD,
    payment: { payment_method: SANDBOX_PAYMENT_METHODS.approve },
    idempotencyKey: 'order-1',
    ...overrides,
  };
}

describe('sandbox payment gateway', () => {
  test('approves, captures once, and is deterministic across instances', async () => {
    const gateway = new SandboxPaymentGateway();
    const auth = await gateway.authorize(authorizeRequest());
    assert.equal(auth.status, 'authorized');
    if (auth.status !== 'authorized') return;
    assert.equal(auth.amount_cents, 9800);
    const other = await new SandboxPaymentGateway().authorize(authorizeRequest());
    assert.equal(other.status === 'authorized' && other.authorization_id, auth.authorization_id);

    const capture = await gateway.capture(auth.authorization_id);
    assert.equal(capture.status, 'captured');
    assert.deepEqual(await gateway.capture(auth.authorization_id), capture);
    assert.deepEqual(await gateway.void(auth.authorization_id), {
      status: 'failed',
      reason: 'already_captured',
    });
    assert.equal(gateway.heldOrCapturedCents(), 9800);
  });

  const declines = [
    [SANDBOX_PAYMENT_METHODS.decline, 'payment_failed', false],
    [SANDBOX_PAYMENT_METHODS.insufficientFunds, 'insufficient_funds', false],
    [SANDBOX_PAYMENT_METHODS.expired, 'expired_payment_method', false],
    [SANDBOX_PAYMENT_METHODS.processingError, 'processing_error', true],
  ] as const;

  for (const [token, category, retryable] of declines) {
    test(`${token} declines with ${category} and holds nothing`, async () => {
      const gateway = new SandboxPaymentGateway();
      const result = await gateway.authorize(authorizeRequest({ payment: { payment_method: token } }));
      assert.equal(result.status, 'declined');
      if (result.status !== 'declined') return;
      assert.equal(result.category, category);
      assert.equal(result.retryable, retryable);
      assert.equal(gateway.heldOrCapturedCents(), 0);
    });
  }

  test('amounts above the sandbox limit decline; the limit itself is fine', async () => {
    const gateway = new SandboxPaymentGateway();
    const over = await gateway.authorize(
      authorizeRequest({ amountCents: SANDBOX_AUTHORIZATION_LIMIT_CENTS + 1, idempotencyKey: 'a' }),
    );
    assert.equal(over.status === 'declined' && over.category, 'limit_exceeded');
    const at = await gateway.authorize(
      authorizeRequest({ amountCents: SANDBOX_AUTHORIZATION_LIMIT_CENTS, idempotencyKey: 'b' }),
    );
    assert.equal(at.status, 'authorized');
  });

  test('unsupported currency declines; nonsense amounts are programming errors', async () => {
    const gateway = new SandboxPaymentGateway();
    const result = await gateway.authorize(authorizeRequest({ currency: CURRENCY.UNSPECIFIED }));
    assert.equal(result.status === 'declined' && result.category, 'unsupported_currency');
    await assert.rejects(gateway.authorize(authorizeRequest({ amountCents: 0 })), RangeError);
    await assert.rejects(gateway.authorize(authorizeRequest({ amountCents: 10.5 })), RangeError);
  });

  test('a replay with the same key holds money once; a different charge under that key is refused', async () => {
    const gateway = new SandboxPaymentGateway();
    const first = await gateway.authorize(authorizeRequest());
    const second = await gateway.authorize(authorizeRequest());
    assert.deepEqual(second, first);
    assert.equal(gateway.heldOrCapturedCents(), 9800);
    await assert.rejects(
      gateway.authorize(authorizeRequest({ amountCents: 1 })),
      PaymentIdempotencyConflictError,
    );
  });

  test('a voided authorisation cannot be captured and releases the hold', async () => {
    const gateway = new SandboxPaymentGateway();
    const auth = await gateway.authorize(authorizeRequest());
    assert.equal(auth.status, 'authorized');
    if (auth.status !== 'authorized') return;
    assert.deepEqual(await gateway.void(auth.authorization_id), {
      status: 'voided',
      authorization_id: auth.authorization_id,
    });
    assert.deepEqual(await gateway.capture(auth.authorization_id), {
      status: 'failed',
      reason: 'authorization_voided',
    });
    assert.equal(gateway.heldOrCapturedCents(), 0);
    assert.deepEqual(await gateway.capture('sbx_auth_nope'), {
      status: 'failed',
      reason: 'unknown_authorization',
    });
  });
});

// --- FHIR results ---------------------------------------------------------------------------------

const productByName = (name: string): CatalogProduct => {
  const product = SAMPLE_CATALOG.products.find((p) => p.name === name);
  assert.ok(product, name);
  return product;
};

function sandboxBundle(orderItemId: string, productName = 'Lipid Panel', partial = false): Bundle {
  return buildSandboxResultsBundle({
    orderItemId,
    product: productByName(productName),
    testTaker: {
      test_taker_id: 'tt-1',
      first_name: 'Ada',
      last_name: 'Lovelace',
      date_of_birth: '1990-12-10',
      gender_at_birth: 'female',
    },
    collectedAt: '2025-06-01T08:00:00Z',
    issuedAt: '2025-06-03T15:30:00Z',
    reportStatus: partial ? 'partial' : 'final',
  });
}

const resourcesOf = <T extends Bundle['entry'][number]['resource']['resourceType']>(
  bundle: Bundle,
  type: T,
) =>
  bundle.entry.map((entry) => entry.resource).filter((resource) => resource.resourceType === type) as Extract<
    Bundle['entry'][number]['resource'],
    { resourceType: T }
  >[];

describe('FHIR results bundle', () => {
  test('is an R4 collection of one report, one patient and one observation per biomarker', () => {
    const bundle = sandboxBundle('700001');
    assert.equal(bundle.resourceType, 'Bundle');
    assert.equal(bundle.type, 'collection');
    assert.equal(bundle.timestamp, '2025-06-03T15:30:00Z');
    assert.equal(resourcesOf(bundle, 'DiagnosticReport').length, 1);
    assert.equal(resourcesOf(bundle, 'Patient').length, 1);
    assert.equal(resourcesOf(bundle, 'Observation').length, 4);
    const urls = bundle.entry.map((entry) => entry.fullUrl);
    assert.equal(new Set(urls).size, urls.length);
    for (const entry of bundle.entry) assert.equal(entry.fullUrl, `urn:uuid:${entry.resource.id}`);
  });

  test('references between report, observations and patient resolve inside the bundle', () => {
    const bundle = sandboxBundle('700002');
    const byUrl = new Map(bundle.entry.map((entry) => [entry.fullUrl, entry.resource]));
    const [report] = resourcesOf(bundle, 'DiagnosticReport') as [DiagnosticReport];
    const [patient] = resourcesOf(bundle, 'Patient') as [Patient];
    assert.equal(byUrl.get(report.subject.reference), patient);
    const referenced = report.result.map((ref) => byUrl.get(ref.reference));
    assert.ok(referenced.every((resource) => resource?.resourceType === 'Observation'));
    assert.deepEqual(
      new Set(referenced),
      new Set(resourcesOf(bundle, 'Observation')),
      'every observation is in the report and vice versa',
    );
    for (const observation of resourcesOf(bundle, 'Observation')) {
      assert.equal(byUrl.get(observation.subject.reference), patient);
    }
    assert.deepEqual(report.code.coding?.[0], {
      system: LOINC_SYSTEM,
      code: '24331-1',
      display: 'Lipid 1996 panel - Serum or Plasma',
    });
    assert.deepEqual(patient.identifier, [{ system: 'urn:tributary:test-taker-id', value: 'tt-1' }]);
    assert.equal(patient.gender, 'female');
  });

  test('observations are LOINC-coded with UCUM quantities and interpretations that match their ranges', () => {
    const lipid = productByName('Lipid Panel');
    for (let i = 0; i < 40; i++) {
      const bundle = sandboxBundle(`71${i}`);
      const observations = resourcesOf(bundle, 'Observation');
      assert.deepEqual(
        observations.map((o) => o.code.coding?.[0]?.code),
        lipid.biomarkers.map((b) => b.loinc),
      );
      for (const observation of observations) checkObservation(observation);
    }
  });

  test('reference ranges are inclusive at both bounds', () => {
    const range = { low: 70, high: 99 };
    assert.deepEqual(
      [69.9, 70, 99, 99.1].map((value) => interpret(value, range)),
      ['L', 'N', 'N', 'H'],
    );
    assert.equal(interpret(0, { high: 99 }), 'N');
    assert.equal(interpret(1000, { low: 40 }), 'N');
  });

  test('sex-specific ranges apply to the test taker', () => {
    const bundle = sandboxBundle('700003', 'Testosterone Panel');
    const total = resourcesOf(bundle, 'Observation').find((o) => o.code.coding?.[0]?.code === '2986-8');
    assert.equal(total?.referenceRange[0]?.high?.value, 60);
    assert.equal(total?.referenceRange[0]?.low?.value, 8);
  });

  test('sandbox values are deterministic per item, differ between items, and are mostly in range', () => {
    assert.deepEqual(sandboxBundle('800001'), sandboxBundle('800001'));
    const panel = productByName('Comprehensive Metabolic Panel');
    const counts = { L: 0, N: 0, H: 0 };
    const distinctGlucose = new Set<number>();
    for (let i = 0; i < 300; i++) {
      const results = generateSandboxResults(`9${i}`, panel.biomarkers, 'male');
      for (const result of results) counts[result.interpretation]++;
      distinctGlucose.add(results[0]?.value ?? Number.NaN);
    }
    const total = counts.L + counts.N + counts.H;
    assert.ok(counts.N / total > 0.7 && counts.N / total < 0.9, JSON.stringify(counts));
    assert.ok(counts.H > 0 && counts.L > 0, JSON.stringify(counts));
    assert.ok(distinctGlucose.size > 10);
  });

  test('a partial report is marked partial and lists the results back so far', () => {
    const bundle = sandboxBundle('700004', 'Comprehensive Metabolic Panel', true);
    const [report] = resourcesOf(bundle, 'DiagnosticReport');
    assert.equal(report?.status, 'partial');
    assert.equal(report?.result.length, 7);
    assert.equal(resourcesOf(bundle, 'Observation').length, 7);
  });

  test('stable UUIDs are well-formed version-8 UUIDs', () => {
    assert.match(stableUuid('x'), /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(stableUuid('x'), stableUuid('x'));
    assert.notEqual(stableUuid('x'), stableUuid('y'));
  });
});

function checkObservation(observation: Observation): void {
  assert.equal(observation.status, 'final');
  assert.equal(observation.code.coding?.[0]?.system, LOINC_SYSTEM);
  assert.equal(observation.valueQuantity.system, UCUM_SYSTEM);
  const [range] = observation.referenceRange;
  assert.ok(range && (range.low || range.high));
  for (const bound of [range.low, range.high]) {
    if (bound) assert.equal(bound.code, observation.valueQuantity.code);
  }
  const coding = observation.interpretation[0]?.coding?.[0];
  assert.equal(coding?.system, INTERPRETATION_SYSTEM);
  const value = observation.valueQuantity.value;
  const expected =
    range.low && value < range.low.value ? 'L' : range.high && value > range.high.value ? 'H' : 'N';
  assert.equal(coding?.code, expected, `${observation.code.text} = ${value}`);
  assert.equal(coding?.display, { L: 'Low', N: 'Normal', H: 'High' }[expected]);
}

// --- Webhook events -------------------------------------------------------------------------------

describe('order webhook payloads', () => {
  const occurredAt = new Date('2025-06-01T12:34:56.789Z');
  const testTaker = {
    test_taker_id: '5551',
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    phone_number: '+14155552671',
  };

  test('order.status_changed carries supplier_item_id in sandbox only', () => {
    const change = {
      eventId: '1234567890123',
      occurredAt,
      orderId: '42',
      status: 'order.delivery_fulfilled',
      trackingNumber: '1Z999',
      supplierItemId: 'KIT-9',
    } as const;
    assert.deepEqual(buildOrderStatusChangedEvent({ ...change, environment: 'sandbox' }), {
      event_type: 'order.status_changed',
      event_id: '1234567890123',
      timestamp: 1748781296,
      data: {
        order_id: '42',
        status: 'order.delivery_fulfilled',
        tracking_number: '1Z999',
        supplier_item_id: 'KIT-9',
      },
    });
    assert.deepEqual(
      buildOrderStatusChangedEvent({ ...change, environment: 'production', trackingNumber: null }),
      {
        event_type: 'order.status_changed',
        event_id: '1234567890123',
        timestamp: 1748781296,
        data: { order_id: '42', status: 'order.delivery_fulfilled' },
      },
    );
  });

  test('order_item.results_status_change has exactly the wire keys', () => {
    const event = buildResultsStatusChangeEvent({
      eventId: '77',
      occurredAt,
      orderId: '42',
      orderItemId: '4201',
      variantId: '1011',
      status: 'results.kit_activated',
      testTaker: { ...testTaker, internal_column: 'secret' } as typeof testTaker,
    });
    assert.deepEqual(event, {
      event_type: 'order_item.results_status_change',
      event_id: '77',
      timestamp: 1748781296,
      data: {
        order_id: '42',
        order_item_id: '4201',
        variant_id: '1011',
        results_status: 'results.kit_activated',
        test_taker: testTaker,
      },
    });
  });

  test('escalation and rejection details appear only on their statuses', () => {
    const base = {
      eventId: '78',
      occurredAt,
      orderId: '42',
      orderItemId: '4201',
      variantId: '1011',
      testTaker,
    };
    const escalation = {
      ...base,
      status: 'results.escalation_raised',
      escalationLevel: 'high',
      acknowledgmentDueBy: new Date('2025-06-02T12:00:00Z'),
    } as const;
    const escalated = buildResultsStatusChangeEvent(escalation);
    assert.equal(escalated.data.escalation_level, 'high');
    assert.equal(escalated.data.acknowledgment_due_by, '2025-06-02T12:00:00.000Z');
    assert.equal('failure_cause' in escalated.data, false);

    const rejected = buildResultsStatusChangeEvent({
      ...base,
      status: 'results.sample_rejected',
      failureCause: 'insufficient_sample',
    });
    assert.equal(rejected.data.failure_cause, 'insufficient_sample');
    assert.equal('escalation_level' in rejected.data, false);

    assert.deepEqual(statusHistoryEntryFor(escalation), {
      status: 'results.escalation_raised',
      order_item_id: '4201',
      changed_at: '2025-06-01T12:34:56.789Z',
      escalation_level: 'high',
      acknowledgment_due_by: '2025-06-02T12:00:00.000Z',
    });
  });

  test('status history is served newest first', () => {
    const entries = [
      statusHistoryEntryFor({
        eventId: '1',
        occurredAt: new Date('2025-06-01T00:00:00Z'),
        orderId: '42',
        status: 'order.payment_processing',
        environment: 'sandbox',
      }),
      statusHistoryEntryFor({
        eventId: '2',
        occurredAt: new Date('2025-06-01T00:00:05Z'),
        orderId: '42',
        status: 'order.payment_complete',
        environment: 'sandbox',
      }),
      statusHistoryEntryFor({
        eventId: '3',
        occurredAt: new Date('2025-06-01T00:00:05Z'),
        orderId: '42',
        status: 'order.processing',
        environment: 'sandbox',
      }),
    ];
    assert.deepEqual(
      newestFirst(entries).map((entry) => entry.status),
      ['order.processing', 'order.payment_complete', 'order.payment_processing'],
    );
    assert.equal('order_item_id' in (entries[0] ?? {}), false);
  });
});
