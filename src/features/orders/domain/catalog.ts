// The lab-test catalog: product types, products and their orderable variants
// (docs/wire-contract.md#endpoints-and-objects), plus the developer's enabled selection. Wire property
// names are exact; what the sandbox needs beyond the wire (biomarkers, the report's LOINC code) lives
// on `CatalogProduct` and is stripped by `toWireProduct` so it never reaches a response.

import type { Biomarker } from './biomarkers.ts';

/** ISO 4217 numeric codes the API speaks; 0 is the wire's "unspecified". */
export const CURRENCY = { UNSPECIFIED: 0, USD: 840, EUR: 978, GBP: 826 } as const;
export type CurrencyCode = (typeof CURRENCY)[keyof typeof CURRENCY];

export const AVAILABILITY = { UNSPECIFIED: 0, IN_STOCK: 1, OUT_OF_STOCK: 2 } as const;
export type Availability = (typeof AVAILABILITY)[keyof typeof AVAILABILITY];

export const COLLECTION_TYPES = ['AT_HOME', 'GO_TO_LAB'] as const;
export type CollectionType = (typeof COLLECTION_TYPES)[number];

export interface ProductType {
  id: number;
  name: string;
  description: string;
}

export interface Image {
  id: number;
  product_id: number;
  variant_id: number;
  url: string;
  alt_text: string;
  width: number;
  height: number;
  display_order: number;
}

export interface ProductVariant {
  id: number;
  product_id: number;
  product_type_id: number;
  variant_name: string;
  price_cents: number;
  currency: CurrencyCode;
  variant_availability: Availability;
  available_collection_types: CollectionType[];
  /** ISO 3166-1 alpha-2 codes. */
  supported_ship_to_countries: string[];
  variant_defining_attrs: Record<string, string>;
  descriptive_attrs_override: Record<string, string>;
  images: Image[];
}

/** A product as `GET /products/{productTypeId}` returns it. */
export interface Product {
  id: number;
  name: string;
  description: string;
  product_type_id: number;
  base_price_cents: number;
  currency: CurrencyCode;
  availability: Availability;
  images: Image[];
  model_descriptive_attrs: Record<string, string>;
  variants: ProductVariant[];
  /** Present only when listed with `show_all=true`. */
  enabled?: boolean;
}

/** A catalog entry: the wire product plus what results generation needs. */
export interface CatalogProduct extends Omit<Product, 'enabled'> {
  /** Measured by every variant of the product, in report order. */
  biomarkers: readonly Biomarker[];
  /** LOINC panel code for the DiagnosticReport; absent where no single panel code fits. */
  report_code?: { loinc: string; display: string };
}

export interface Catalog {
  product_types: readonly ProductType[];
  products: readonly CatalogProduct[];
}

export interface VariantMatch {
  product: CatalogProduct;
  variant: ProductVariant;
}

/**
 * Catalog reads return numeric ids while orders carry ids as strings
 * (docs/wire-contract.md#order-api-conventions), so lookups accept both; a string must be the canonical
 * decimal form ("0012" is not variant 12).
 */
export function findVariant(catalog: Catalog, variantId: string | number): VariantMatch | undefined {
  const id = typeof variantId === 'number' ? variantId : parseCanonicalId(variantId);
  if (id === undefined) return undefined;
  for (const product of catalog.products) {
    const variant = product.variants.find((candidate) => candidate.id === id);
    if (variant) return { product, variant };
  }
  return undefined;
}

export function findProduct(catalog: Catalog, productId: string | number): CatalogProduct | undefined {
  const id = typeof productId === 'number' ? productId : parseCanonicalId(productId);
  return id === undefined ? undefined : catalog.products.find((product) => product.id === id);
}

function parseCanonicalId(value: string): number | undefined {
  if (!/^[1-9]\d{0,15}$/.test(value)) return undefined;
  const id = Number(value);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** Copies the wire keys only; `enabled` appears only when the caller asked for every product. */
export function toWireProduct(product: CatalogProduct, enabled?: boolean): Product {
  const wire: Product = {
    id: product.id,
    name: product.name,
    description: product.description,
    product_type_id: product.product_type_id,
    base_price_cents: product.base_price_cents,
    currency: product.currency,
    availability: product.availability,
    images: product.images,
    model_descriptive_attrs: product.model_descriptive_attrs,
    variants: product.variants,
  };
  if (enabled !== undefined) wire.enabled = enabled;
  return wire;
}

export interface ListingOptions {
  enabledProductIds: ReadonlySet<number>;
  /** `show_all=true`: include disabled products, each marked with `enabled`. */
  showAll: boolean;
}

/** `GET /products/{productTypeId}`; undefined means the type does not exist (404). */
export function listProductsOfType(
  catalog: Catalog,
  productTypeId: number,
  options: ListingOptions,
): Product[] | undefined {
  if (!catalog.product_types.some((type) => type.id === productTypeId)) return undefined;
  return catalog.products
    .filter((product) => product.product_type_id === productTypeId)
    .filter((product) => options.showAll || options.enabledProductIds.has(product.id))
    .map((product) =>
      options.showAll
        ? toWireProduct(product, options.enabledProductIds.has(product.id))
        : toWireProduct(product),
    );
}

/** `GET /products/{productId}/variants`; a disabled product lists no variants unless `show_all`. */
export function listVariants(
  catalog: Catalog,
  productId: number,
  options: ListingOptions,
): ProductVariant[] | undefined {
  const product = findProduct(catalog, productId);
  if (!product) return undefined;
  if (!options.showAll && !options.enabledProductIds.has(product.id)) return [];
  return product.variants;
}

/** A developer who never chose a selection can order everything, so a fresh sandbox works at once. */
export function defaultEnabledProductIds(catalog: Catalog): Set<number> {
  return new Set(catalog.products.map((product) => product.id));
}

export type SelectionResult = { ok: true; productIds: number[] } | { ok: false; unknownProductIds: string[] };

/**
 * `PUT /products/selection` is a full-set write: the result replaces the previous selection.
 * Unknown ids reject the whole write rather than being dropped silently.
 */
export function parseProductSelection(catalog: Catalog, productIds: readonly string[]): SelectionResult {
  const known = new Set<number>();
  const unknown: string[] = [];
  for (const raw of productIds) {
    const product = findProduct(catalog, raw);
    if (product) known.add(product.id);
    else unknown.push(raw);
  }
  if (unknown.length > 0) return { ok: false, unknownProductIds: unknown };
  return { ok: true, productIds: [...known].sort((a, b) => a - b) };
}

/** Products in an order that the developer has not enabled; non-empty means 403. Sorted, unique. */
export function disabledProductIds(
  items: readonly { product_id: number }[],
  enabledProductIds: ReadonlySet<number>,
): number[] {
  const disabled = new Set(
    items.map((item) => item.product_id).filter((productId) => !enabledProductIds.has(productId)),
  );
  return [...disabled].sort((a, b) => a - b);
}
