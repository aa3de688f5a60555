// Route schemas of the FHIR reads and the bulk export. Resources are described loosely here (the
// OpenAPI document is not a FHIR specification: https://hl7.org/fhir/R4/ is); their example is
// the mapping's own output for a small day, so it is what the service writes.
import Type from 'typebox';
import { mapRecord, patientOf } from './map-records.ts';
import type { ExportResource } from './resources.ts';

const EXAMPLE_USER = '8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41';
const EXAMPLE_BASE = 'http://127.0.0.1:8080';

function exampleResources(): ExportResource[] {
  const owner = { userId: EXAMPLE_USER, provider: 'SANDBOX', referenceId: 'your-user-42' };
  const mapped = mapRecord(
    owner,
    'daily',
    '2025-01-01T00:00:00.000000+01:00|2025-01-02T00:00:00.000000+01:00',
    {
      metadata: {
        start_time: '2025-01-01T00:00:00.000000+01:00',
        end_time: '2025-01-02T00:00:00.000000+01:00',
      },
      distance_data: { steps: 8412, distance_meters: 6120.5 },
      heart_rate_data: { summary: { resting_hr_bpm: 54 } },
      device_data: {
        manufacturer: 'Tributary',
        name: 'Tributary Sandbox Watch',
        serial_number: 'TW-1-00C0FFEE',
      },
    },
    '2025-01-02T08:00:00.000Z',
  );
  return [
    patientOf(owner),
    ...mapped.observations,
    ...mapped.devices,
    ...(mapped.provenance ? [mapped.provenance] : []),
  ];
}

const Resource = Type.Object(
  { resourceType: Type.String(), id: Type.String() },
  {
    additionalProperties: true,
    description: 'A FHIR R4 resource: Patient, Observation, Device or Provenance',
  },
);

export const SearchBundleSchema = Type.Object(
  {
    resourceType: Type.Literal('Bundle'),
    id: Type.String(),
    type: Type.Literal('searchset'),
    timestamp: Type.String(),
    link: Type.Array(Type.Object({ relation: Type.String(), url: Type.String() }), {
      description: '`self`, and `next` while there are more pages',
    }),
    entry: Type.Array(
      Type.Object({
        fullUrl: Type.String(),
        resource: Resource,
        search: Type.Object({ mode: Type.Union([Type.Literal('match'), Type.Literal('include')]) }),
      }),
    ),
  },
  {
    title: 'FhirSearchBundle',
    description: 'A FHIR R4 searchset Bundle (application/fhir+json)',
    examples: [
      {
        resourceType: 'Bundle',
        id: '0c4f5e7a-2b1d-8e3f-9a6c-5d4e3f2a1b0c',
        type: 'searchset',
        timestamp: '2025-01-02T08:00:00.000Z',
        link: [
          { relation: 'self', url: `${EXAMPLE_BASE}/v2/fhir/Patient/${EXAMPLE_USER}/$everything` },
          {
            relation: 'next',
            url: `${EXAMPLE_BASE}/v2/fhir/Patient/${EXAMPLE_USER}/$everything?_cursor=eyJ0eXBlIjowfQ`,
          },
        ],
        entry: exampleResources().map((resource) => ({
          fullUrl: `${EXAMPLE_BASE}/v2/fhir/${resource.resourceType}/${resource.id}`,
          resource,
          search: { mode: 'match' },
        })),
      },
    ],
  },
);

const Many = (description: string) => Type.Optional(Type.Array(Type.String(), { description }));
const One = (description: string, examples?: string[]) =>
  Type.Optional(Type.String({ description, ...(examples ? { examples } : {}) }));

export const ObservationQuery = Type.Object({
  subject: Type.String({
    description: 'Patient/{user_id} (required; or patient={user_id})',
    examples: [`Patient/${EXAMPLE_USER}`],
  }),
  patient: One('The user_id, instead of subject'),
  date: Many(
    'A bound on the record’s time, repeated for a range: ge, gt, le, lt or eq before YYYY-MM-DD or a dateTime with its offset (date=ge2025-01-01&date=le2025-01-31)',
  ),
  code: Many(
    'Codes, system|code or code, comma-separated (http://loinc.org|8867-4); docs/fhir.md lists them',
  ),
  _count: One('Observations per page, 1 to 1000 (default 100)'),
  _cursor: One('Where the page starts: take it from the next link'),
  _include: Many('Observation:device adds the Devices'),
  _revinclude: Many('Provenance:target adds the Provenances'),
  'with-samples': One('true: each heart-rate sample as an Observation too (default false)'),
});

export const EverythingParams = Type.Object({
  user_id: Type.String({ description: 'The user (connection) id', maxLength: 100 }),
});

export const EverythingQuery = Type.Object({
  start: One('Records from this day (YYYY-MM-DD)'),
  end: One('Records up to this day, inclusive (YYYY-MM-DD)'),
  _since: One('Records stored or changed since this instant'),
  _count: One('Observations per page, 1 to 1000 (default 100)'),
  _cursor: One('Where the page starts: take it from the next link'),
  'with-samples': One('true: each heart-rate sample as an Observation too (default false)'),
});
