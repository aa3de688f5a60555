// Route schemas of the FHIR reads and the bulk export. Resources are described loosely here (the
// OpenAPI document is not a FHIR specification: https://hl7.org/fhir/R4/ is); their example is
// the mapping's own output for a small day, so it is what the service writes.
import Type from 'typebox';
import { exampleSimulatedProviderId } from '../../provider-access/example-ids.ts';
import { mapRecord, patientOf } from './map-records.ts';
import type { ExportResource } from './resources.ts';

const EXAMPLE_USER = '8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41';
const EXAMPLE_BASE = 'http://127.0.0.1:8080';

function exampleResources(): ExportResource[] {
  const owner = { userId: EXAMPLE_USER, provider: exampleSimulatedProviderId(), referenceId: 'your-user-42' };
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
  subject: Type.Optional(
    Type.String({
      description: 'Patient/{user_id} (required, or patient={user_id})',
      examples: [`Patient/${EXAMPLE_USER}`],
    }),
  ),
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

export const OperationOutcomeSchema = Type.Object(
  {
    resourceType: Type.Literal('OperationOutcome'),
    issue: Type.Array(
      Type.Object({ severity: Type.String(), code: Type.String(), diagnostics: Type.String() }),
    ),
  },
  {
    title: 'FhirOperationOutcome',
    description: 'A FHIR R4 OperationOutcome saying what happened (application/fhir+json)',
    examples: [
      {
        resourceType: 'OperationOutcome',
        issue: [
          {
            severity: 'information',
            code: 'informational',
            diagnostics: 'Export started: poll the URL in Content-Location',
          },
        ],
      },
    ],
  },
);

export const KickOffQuery = Type.Object({
  _type: One(
    'Resource types, comma-separated: Patient, Observation, Device, Provenance (default all); with Open mHealth, schema names (step-count, heart-rate …)',
  ),
  _since: One('Only records stored or changed since this instant (2025-01-01T00:00:00Z)'),
  _outputFormat: One(
    'application/fhir+ndjson (default; also application/ndjson, ndjson), or application/vnd.openmhealth+ndjson (also openmhealth) for Open mHealth data points',
  ),
});

export const ExportParams = Type.Object({
  export_id: Type.String({
    description: 'The id at the end of the status URL',
    maxLength: 100,
    examples: ['exp_5f0c8a3b9e2d4c1a7b6e8f90'],
  }),
});

export const ManifestSchema = Type.Object(
  {
    transactionTime: Type.String(),
    request: Type.String(),
    requiresAccessToken: Type.Boolean(),
    output: Type.Array(Type.Object({ type: Type.String(), url: Type.String(), count: Type.Integer() })),
    error: Type.Array(Type.Object({}, { additionalProperties: true })),
    extension: Type.Object({
      expires_at: Type.String({ description: 'When the files are deleted' }),
      links_expire_at: Type.String({
        description: 'When these links stop working (poll again for fresh ones)',
      }),
      output_format: Type.String(),
    }),
  },
  {
    title: 'FhirExportManifest',
    description:
      'The Bulk Data manifest: one entry per file (one user’s lines of one type), each listed once',
    examples: [
      {
        transactionTime: '2025-01-02T08:00:00.000Z',
        request: 'http://127.0.0.1:8080/v2/fhir/$export?_type=Observation',
        requiresAccessToken: false,
        output: [
          {
            type: 'Observation',
            url: `http://127.0.0.1:8080/v2/fhir/$export-files/exp_5f0c8a3b9e2d4c1a7b6e8f90/${EXAMPLE_USER}/Observation?expires=1735808400&signature=3f1c`,
            count: 412,
          },
        ],
        error: [],
        extension: {
          expires_at: '2025-01-03T08:00:00.000Z',
          links_expire_at: '2025-01-02T09:00:00.000Z',
          output_format: 'application/fhir+ndjson',
        },
      },
    ],
  },
);

export const FileParams = Type.Object({
  export_id: Type.String({ maxLength: 100, examples: ['exp_5f0c8a3b9e2d4c1a7b6e8f90'] }),
  user_id: Type.String({ maxLength: 100 }),
  type: Type.String({
    maxLength: 100,
    description: 'The file’s resource type (or Open mHealth schema)',
    examples: ['Observation'],
  }),
});

export const FileQuery = Type.Object({
  expires: Type.String({ description: 'From the manifest link', examples: ['1735808400'] }),
  signature: Type.String({
    description: 'From the manifest link',
    examples: ['3f1c9a7e5b2d4c8e9a1b6d0f7e2c4a8b3f1c9a7e5b2d4c8e9a1b6d0f7e2c4a8b'],
  }),
});

export const NdjsonSchema = Type.String({
  description: 'One resource (or Open mHealth data point) per line',
  examples: [
    '{"resourceType":"Patient","id":"8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41","identifier":[],"active":true}\n',
  ],
});
