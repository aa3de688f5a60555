// TypeBox schemas for the catalog endpoints (numeric ids on catalog reads:
// docs/wire-contract.md#order-api-conventions).
import Type from 'typebox';
import { COLLECTION_TYPES } from './domain/catalog.ts';

export const Currency = Type.Integer({
  description: 'ISO 4217 numeric code: 840 USD, 978 EUR, 826 GBP (0 unspecified)',
});
const StringMap = Type.Record(Type.String(), Type.String());

const Image = Type.Object({
  id: Type.Integer(),
  product_id: Type.Integer(),
  variant_id: Type.Integer(),
  url: Type.String(),
  alt_text: Type.String(),
  width: Type.Integer(),
  height: Type.Integer(),
  display_order: Type.Integer(),
});

export const ProductType = Type.Object(
  { id: Type.Integer(), name: Type.String(), description: Type.String() },
  { title: 'ProductType' },
);

export const ProductVariant = Type.Object(
  {
    id: Type.Integer(),
    product_id: Type.Integer(),
    product_type_id: Type.Integer(),
    variant_name: Type.String(),
    price_cents: Type.Integer({ description: 'Integer cents' }),
    currency: Currency,
    variant_availability: Type.Integer({ description: '0 unspecified, 1 in stock, 2 out of stock' }),
    available_collection_types: Type.Array(Type.Enum(COLLECTION_TYPES)),
    supported_ship_to_countries: Type.Array(Type.String({ description: 'ISO 3166-1 alpha-2' })),
    variant_defining_attrs: StringMap,
    descriptive_attrs_override: StringMap,
    images: Type.Array(Image),
  },
  { title: 'ProductVariant' },
);

export const Product = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    product_type_id: Type.Integer(),
    base_price_cents: Type.Integer(),
    currency: Currency,
    availability: Type.Integer({ description: '0 unspecified, 1 in stock, 2 out of stock' }),
    images: Type.Array(Image),
    model_descriptive_attrs: StringMap,
    variants: Type.Array(ProductVariant),
    enabled: Type.Optional(
      Type.Boolean({ description: 'Only with show_all=true: whether the product is in your selection' }),
    ),
  },
  { title: 'Product' },
);

export const ShowAllQuery = Type.Object({
  show_all: Type.Optional(
    Type.Boolean({ description: 'Include products disabled in your selection, each marked with enabled' }),
  ),
});
export const ProductTypeParams = Type.Object({ productTypeId: Type.Integer({ minimum: 1 }) });
export const ProductParams = Type.Object({ productId: Type.Integer({ minimum: 1 }) });

export const SelectionBody = Type.Object(
  {
    product_ids: Type.Array(Type.String(), {
      maxItems: 1000,
      description:
        'A full-set write: every product not listed is disabled. Unknown ids reject the whole write (400).',
    }),
  },
  { examples: [{ product_ids: ['101', '102'] }] },
);
export const SelectionResponse = Type.Object({ enabled_count: Type.Integer() });
