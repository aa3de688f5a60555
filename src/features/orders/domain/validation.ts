// Validation of `POST /api/v1/orders` bodies (`CreateOrderRequest`,
// docs/wire-contract.md#endpoints-and-objects). Every problem is reported at once, in body order, so a
// developer fixes a request in one round trip; a valid body comes back normalised and priced from the
// catalog, ready for payment and storage.

import type { Catalog, CollectionType, CurrencyCode, VariantMatch } from './catalog.ts';
import { AVAILABILITY, COLLECTION_TYPES, findVariant } from './catalog.ts';
import type { InvalidField, JsonRecord } from './field-rules.ts';
import {
  childPath,
  FieldIssues,
  indexPath,
  isRecord,
  readInteger,
  readOneOf,
  readString,
} from './field-rules.ts';
import type { AddressInput, RecipientInput, RequestedLabInput } from './order-parties.ts';
import { readOptionalAddress, readRecipient, readRequestedLab } from './order-parties.ts';

export type { AddressInput, GenderAtBirth, RecipientInput, RequestedLabInput } from './order-parties.ts';

export const MAX_ITEMS_PER_ORDER = 50;
export const MAX_QUANTITY = 100;

/** One requested item, resolved against the catalog and priced. */
export interface OrderLine {
  variant_id: string;
  product_id: number;
  product_type_id: number;
  quantity: number;
  price_per_item_cents: number;
  currency: CurrencyCode;
}

export interface CreateOrderInput {
  client_order_reference_id: string;
  collection_type: CollectionType;
  items: OrderLine[];
  recipient: RecipientInput;
  shipping_address?: AddressInput;
  requested_lab_address?: AddressInput;
  requested_lab?: RequestedLabInput;
  currency: CurrencyCode;
  total_cents: number;
}

export interface ValidationContext {
  catalog: Catalog;
  /** The clock, injected: a date of birth may not lie after today (UTC). */
  now: Date;
  /** Known patient service centre codes; without it `requested_lab.code` is only checked for shape. */
  isKnownLabCode?: (code: string) => boolean;
}

export type CreateOrderParse =
  | { ok: true; order: CreateOrderInput }
  | {
      ok: false;
      invalid_fields: InvalidField[];
      /** Set when the destination country is the problem: where every requested variant does ship. */
      supported_ship_to_countries?: string[];
    };

export function validateCreateOrder(body: unknown, context: ValidationContext): InvalidField[] {
  const result = parseCreateOrder(body, context);
  return result.ok ? [] : result.invalid_fields;
}

export function parseCreateOrder(body: unknown, context: ValidationContext): CreateOrderParse {
  const issues = new FieldIssues();
  if (!isRecord(body)) {
    issues.add('body', 'type', body, 'the request body must be a JSON object');
    return { ok: false, invalid_fields: issues.list };
  }
  const reference = readString(issues, body, 'client_order_reference_id', 'client_order_reference_id', {
    required: true,
    maxLength: 100,
  });
  const collectionType = readOneOf(issues, body, 'collection_type', 'collection_type', COLLECTION_TYPES);
  const lines = readItems(issues, body, context.catalog);
  const recipient = readRecipient(issues, body.recipient, 'recipient', context.now);
  const shippingAddress = readOptionalAddress(issues, body, 'shipping_address');
  const labAddress = readOptionalAddress(issues, body, 'requested_lab_address');
  const requestedLab = readRequestedLab(issues, body, context.isKnownLabCode);

  if (collectionType !== undefined) checkCollectionType(issues, lines, collectionType);
  const destination =
    collectionType === 'AT_HOME'
      ? requireDestination(issues, body, 'shipping_address', shippingAddress, false)
      : collectionType === 'GO_TO_LAB'
        ? requireDestination(issues, body, 'requested_lab_address', labAddress, isPresent(body.requested_lab))
        : undefined;
  const supportedCountries = destination ? checkShipTo(issues, lines, destination) : undefined;

  if (!issues.isEmpty) {
    const failure: CreateOrderParse = { ok: false, invalid_fields: issues.list };
    if (supportedCountries) failure.supported_ship_to_countries = supportedCountries;
    return failure;
  }
  // Every reader reports an issue whenever it returns undefined, so with no issues all is present.
  const items = lines.flatMap((line) => (line ? toOrderLine(line) : []));
  if (
    reference === undefined ||
    collectionType === undefined ||
    recipient === undefined ||
    items.length !== lines.length
  ) {
    throw new Error('create-order validation invariant broken');
  }
  const order: CreateOrderInput = {
    client_order_reference_id: reference,
    collection_type: collectionType,
    items,
    recipient,
    currency: items[0]?.currency ?? 0,
    total_cents: items.reduce((sum, item) => sum + item.price_per_item_cents * item.quantity, 0),
  };
  if (shippingAddress) order.shipping_address = shippingAddress;
  if (labAddress) order.requested_lab_address = labAddress;
  if (requestedLab) order.requested_lab = requestedLab;
  return { ok: true, order };
}

interface ResolvedLine {
  path: string;
  variantId: string;
  match: VariantMatch;
  /** Undefined when the quantity was invalid; the variant still takes part in the cross-item checks. */
  quantity: number | undefined;
}

/** Lines whose variant did not resolve are kept as `undefined` so later checks keep their indexes. */
type ItemLine = ResolvedLine | undefined;

const isPresent = (value: unknown): boolean => value !== undefined && value !== null;

function readItems(issues: FieldIssues, body: JsonRecord, catalog: Catalog): ItemLine[] {
  const raw = body.items;
  if (raw === undefined || raw === null) {
    issues.add('items', 'required', raw, 'items is required');
    return [];
  }
  if (!Array.isArray(raw)) {
    issues.add('items', 'type', raw, 'items must be an array');
    return [];
  }
  if (raw.length === 0) {
    issues.add('items', 'min_items', raw, 'items must contain at least one item');
    return [];
  }
  if (raw.length > MAX_ITEMS_PER_ORDER) {
    issues.add('items', 'max_items', `${raw.length} items`, `items may hold at most ${MAX_ITEMS_PER_ORDER}`);
    return [];
  }
  const seenVariants = new Set<number>();
  let orderCurrency: CurrencyCode | undefined;
  return raw.map((entry: unknown, index): ItemLine => {
    const path = indexPath('items', index);
    if (!isRecord(entry)) {
      issues.add(path, 'type', entry, `${path} must be an object`);
      return undefined;
    }
    const match = readVariant(issues, entry, childPath(path, 'variant_id'), catalog);
    const quantity = readInteger(issues, entry, 'quantity', childPath(path, 'quantity'), {
      required: true,
      min: 1,
      max: MAX_QUANTITY,
    });
    if (!match) return undefined;
    const variantPath = childPath(path, 'variant_id');
    const { variant } = match;
    if (seenVariants.has(variant.id)) {
      issues.add(
        variantPath,
        'unique',
        variant.id,
        `${variantPath} repeats an earlier item; raise its quantity instead`,
      );
    }
    seenVariants.add(variant.id);
    if (variant.variant_availability === AVAILABILITY.OUT_OF_STOCK) {
      issues.add(variantPath, 'out_of_stock', variant.id, `variant ${variant.id} is out of stock`);
    }
    // One order is one charge, so it must be priced in one currency; the first item sets it.
    orderCurrency ??= variant.currency;
    if (variant.currency !== orderCurrency) {
      issues.add(
        variantPath,
        'currency_mismatch',
        variant.id,
        `variant ${variant.id} is priced in currency ${variant.currency}, the order in ${orderCurrency}`,
      );
    }
    return { path, variantId: String(variant.id), match, quantity };
  });
}

// The order contract types variant_id as a string, but catalog reads return numeric ids, so a client that copies an
// id straight from `GET /products` sends a number; both forms are accepted.
function readVariant(
  issues: FieldIssues,
  item: JsonRecord,
  path: string,
  catalog: Catalog,
): VariantMatch | undefined {
  const raw = item.variant_id;
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
    issues.add(path, 'required', raw, `${path} is required`);
    return undefined;
  }
  if (typeof raw !== 'string' && typeof raw !== 'number') {
    issues.add(path, 'type', raw, `${path} must be a string`);
    return undefined;
  }
  const match = findVariant(catalog, typeof raw === 'string' ? raw.trim() : raw);
  if (!match) issues.add(path, 'unknown_variant', raw, `${path} does not name a variant in the catalog`);
  return match;
}

function checkCollectionType(
  issues: FieldIssues,
  lines: readonly ItemLine[],
  collectionType: CollectionType,
): void {
  for (const line of lines) {
    if (!line || line.match.variant.available_collection_types.includes(collectionType)) continue;
    const path = childPath(line.path, 'variant_id');
    const offered = line.match.variant.available_collection_types.join(', ');
    issues.add(
      path,
      'unsupported_collection_type',
      line.variantId,
      `variant ${line.variantId} is offered only as ${offered}`,
    );
  }
}

/**
 * The address the sample journey depends on: the kit's destination for AT_HOME, the lab's location
 * for GO_TO_LAB. A lab order may instead name the lab itself, in which case no address is needed.
 */
function requireDestination(
  issues: FieldIssues,
  body: JsonRecord,
  key: 'shipping_address' | 'requested_lab_address',
  address: AddressInput | undefined,
  satisfiedOtherwise: boolean,
): { path: string; country: string } | undefined {
  if (!isPresent(body[key]) && !satisfiedOtherwise) {
    const message =
      key === 'shipping_address'
        ? 'shipping_address is required for AT_HOME orders'
        : 'requested_lab or requested_lab_address is required for GO_TO_LAB orders';
    issues.add(key, 'required', undefined, message);
  }
  return address ? { path: childPath(key, 'country_code'), country: address.country_code } : undefined;
}

/** Reports the destination once, and returns the countries every requested variant ships to. */
function checkShipTo(
  issues: FieldIssues,
  lines: readonly ItemLine[],
  destination: { path: string; country: string },
): string[] | undefined {
  const variants = lines.flatMap((line) => (line ? [line.match.variant] : []));
  const refusing = variants.filter(
    (variant) => !variant.supported_ship_to_countries.includes(destination.country),
  );
  if (refusing.length === 0) return undefined;
  const supported = variants
    .map((variant) => variant.supported_ship_to_countries)
    .reduce((common, countries) => common.filter((country) => countries.includes(country)));
  const ids = refusing.map((variant) => variant.id).join(', ');
  issues.add(
    destination.path,
    'unsupported_ship_to_country',
    destination.country,
    `variant(s) ${ids} cannot be delivered to ${destination.country}`,
  );
  return [...supported].sort();
}

function toOrderLine(line: ResolvedLine): OrderLine[] {
  const { product, variant } = line.match;
  if (line.quantity === undefined) return [];
  return [
    {
      variant_id: line.variantId,
      product_id: product.id,
      product_type_id: variant.product_type_id,
      quantity: line.quantity,
      price_per_item_cents: variant.price_cents,
      currency: variant.currency,
    },
  ];
}
