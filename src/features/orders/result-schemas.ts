// TypeBox schemas for kit activation and results (property names: docs/wire-contract.md#lab-orders):
// the results list, the FHIR bundle, acknowledgement and the signed download link.
import Type from 'typebox';
import { Cursor, PageLimit, ResultsStatus } from './schema-parts.ts';

export const ActivationBody = Type.Unknown({
  title: 'ActivationContextDTO',
  description:
    'supplier_kit_id (the kit id), collection_date? (RFC 3339), address (AddressDTO, required), recipient? ' +
    '{first_name?, last_name?, email, date_of_birth, gender_at_birth, phone_number}: the test taker, when not the ' +
    'order recipient. Invalid fields: 400 with invalid_fields.',
  examples: [
    {
      supplier_kit_id: 'KIT-4Q7Z2M',
      collection_date: '2025-01-02T08:30:00Z',
      address: { address_line_1: '1 Main St', city: 'Springfield', postal_code: '62701', country_code: 'US' },
    },
  ],
});
export const ActivationResponse = Type.Object({
  kit_id: Type.String(),
  message: Type.String(),
  success: Type.Boolean(),
  test_taker_id: Type.String({ description: 'Tributary extension: the id both results endpoints require' }),
});

export const ResultListQuery = Type.Object({
  limit: PageLimit,
  cursor: Cursor,
  status: Type.Optional(Type.String({ description: 'A results status, e.g. results.results_ready' })),
});

export const ResultListResponse = Type.Object({
  results: Type.Array(
    Type.Object(
      {
        order_item_id: Type.String(),
        order_id: Type.String(),
        variant_id: Type.String(),
        product_name: Type.Optional(Type.String()),
        results_status: ResultsStatus,
        is_acknowledged: Type.Boolean(),
        test_taker_id: Type.Optional(Type.String()),
        updated_at: Type.String(),
      },
      { title: 'ResultSummary' },
    ),
  ),
  next_cursor: Type.Optional(Type.String()),
});

export const ResultParams = Type.Object({
  orderItemID: Type.String({
    description: 'Order item id (numeric string)',
    examples: ['1893462851473129473'],
  }),
});
export const TestTakerQuery = Type.Object({
  test_taker_id: Type.String({
    description: 'Required: the id created at kit activation',
    examples: ['1893462851473129480'],
  }),
});

export const ResultsBundle = Type.Object(
  {
    resourceType: Type.Literal('Bundle'),
    id: Type.String(),
    identifier: Type.Object({ system: Type.String(), value: Type.String() }),
    type: Type.Literal('collection'),
    timestamp: Type.String(),
    entry: Type.Array(
      Type.Object({
        fullUrl: Type.String(),
        resource: Type.Unknown({
          description:
            'DiagnosticReport, Patient or Observation (valueQuantity, referenceRange, interpretation)',
        }),
      }),
    ),
  },
  { title: 'FHIR R4 Bundle' },
);

export const AcknowledgeResponse = Type.Object({ status: Type.Literal('acknowledged') });

export const ResultsLinkResponse = Type.Object(
  {
    download_url: Type.String({ description: 'Serves the FHIR bundle without credentials until expires_at' }),
    expires_at: Type.String({ description: 'ISO 8601, 15 minutes after the request' }),
    format: Type.Literal('json'),
  },
  { title: 'GetResultsURLResponse' },
);

export const DownloadQuery = Type.Object({
  test_taker_id: Type.String(),
  expires: Type.String({ description: 'Unix seconds (part of the signed link)' }),
  signature: Type.String({ description: 'Part of the signed link' }),
});
