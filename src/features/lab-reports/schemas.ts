// Route schemas of the lab-reports API (the vendor's `/lab-reports`), for validation of the
// query and path and for the OpenAPI document. Results keep the contract's layered shape
// (result-types.ts); they are documented as open objects here and checked against the vendor's
// schemas by the tests.
import Type from 'typebox';

const Day = (description: string) =>
  Type.Optional(Type.String({ maxLength: 10, description: `YYYY-MM-DD; ${description}` }));

export const UploadQuery = Type.Object({
  reference_id: Type.Optional(
    Type.String({ maxLength: 256, description: 'Your external identifier for this report or patient' }),
  ),
});

export const UploadResponse = Type.Object({
  upload_id: Type.String({ description: 'Correlates every session and webhook event of this upload' }),
  current_status: Type.String({ description: 'processing' }),
});

/** The vendor's open enum: `lab`, or `dexa` for a DXA scan (docs.tryterra.co/lab-reports/scans). */
export const ReportTypeSchema = Type.String({
  description:
    'lab (a clinical lab report: results scoped by biomarker.specimen) or dexa (a DXA body-composition or ' +
    'bone-density scan: results scoped by biomarker.region). An open enum: handle unknown values gracefully.',
  examples: ['lab', 'dexa'],
});

export const ListQuery = Type.Object({
  reference_id: Type.Optional(Type.String({ maxLength: 256 })),
  report_type: Type.Optional(
    Type.String({ maxLength: 16, description: 'Only sessions of this report type: lab or dexa' }),
  ),
  upload_id: Type.Optional(Type.String({ maxLength: 64 })),
  report_date_from: Day('lab report date lower bound (inclusive)'),
  report_date_to: Day('lab report date upper bound (inclusive)'),
  uploaded_at_from: Day('upload date lower bound (inclusive, UTC)'),
  uploaded_at_to: Day('upload date upper bound (inclusive, UTC)'),
});

export const SessionParams = Type.Object({
  session_id: Type.String({ maxLength: 32, description: 'The session id (an integer)', examples: ['7301'] }),
});

export const FileQuery = Type.Object({
  token: Type.String({ maxLength: 1024, description: 'The sealed link token from /files' }),
});

const StatusEntry = Type.Object({
  status: Type.String(),
  timestamp: Type.Optional(Type.String({ format: 'date-time' })),
  note: Type.Optional(Type.String()),
});

/** One layered result; the reader's review marking is documented, the layers are open objects. */
export const Result = Type.Object(
  {
    confidence: Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        'How sure the reader is of this result, from 0 to 1 (1 on reports read before it was kept)',
    }),
    needs_review: Type.Boolean({
      description:
        'true when the confidence is below the reader’s threshold: check the value against the report before using it',
    }),
  },
  {
    additionalProperties: true,
    description:
      'One layered result: source, biomarker, measurement, interpretation, reference_ranges, and its review marking. ' +
      'A lab result’s biomarker names its specimen; a scan’s (report_type dexa) names its body region ' +
      '(biomarker.region: total, arms, left_arm, legs, trunk, android, gynoid, l1 … l4, l1_l4, femoral_neck, total_hip …) ' +
      'and its key the measure (bone_mineral_density, t_score, z_score, fat_percent, fat_mass, lean_mass …).',
  },
);

export const Unmatched = Type.Object(
  {
    page: Type.Integer({ description: 'The page it is printed on (from 1)' }),
    text: Type.String({ description: 'The row as printed' }),
    reason: Type.String({
      description: 'Why it is not a result (no dictionary match, or not a possible value)',
    }),
  },
  { description: 'A row that looked like a result but was not emitted; it carries no value' },
);

export const Session = Type.Object(
  {
    session_id: Type.String(),
    upload_id: Type.Optional(Type.String()),
    reference_id: Type.Optional(Type.String()),
    report_type: ReportTypeSchema,
    current_status: Type.String({
      description: 'processing, completed (event on its way), sent, delivery_failed or failed',
    }),
    uploaded_at: Type.Optional(Type.String({ format: 'date-time' })),
    updated_at: Type.Optional(Type.String({ format: 'date-time' })),
    report_date: Type.Optional(Type.String()),
    report_time: Type.Optional(Type.String()),
    collection_date: Type.Optional(Type.String()),
    collection_time: Type.Optional(Type.String()),
    report_locale: Type.Optional(Type.String()),
    lab_name: Type.Optional(Type.String()),
    patient_age_at_collection: Type.Optional(Type.Integer()),
    patient_sex: Type.Optional(Type.String()),
    input_bytes: Type.Optional(Type.Integer()),
    results_count: Type.Optional(Type.Integer()),
    output_bytes: Type.Optional(Type.Integer()),
    file_count: Type.Optional(Type.Integer()),
    status_history: Type.Optional(Type.Array(StatusEntry)),
    results: Type.Optional(Type.Array(Result)),
    panels: Type.Optional(
      Type.Array(
        Type.Object({
          id: Type.Integer(),
          name: Type.Optional(Type.String()),
          key: Type.Optional(Type.String()),
        }),
      ),
    ),
    report_notes: Type.Optional(Type.String()),
    unmatched: Type.Optional(
      Type.Array(Unmatched, { description: 'Rows read but matched to no biomarker (retrieve only)' }),
    ),
  },
  { description: 'A lab report session; list items carry the summary fields only (no results/panels)' },
);

export const SessionList = Type.Object({ sessions: Type.Array(Session) });

export const Deliveries = Type.Object({
  deliveries: Type.Array(
    Type.Object({
      destination_id: Type.String(),
      destination_type: Type.Optional(Type.String()),
      status: Type.String({ description: 'pending, delivered or failed' }),
      attempt_count: Type.Integer({ description: 'Retries: 0 on the first attempt' }),
      last_error: Type.Optional(Type.String()),
    }),
  ),
});

const File = Type.Object({ filename: Type.Optional(Type.String()), presigned_url: Type.String() });

export const Files = Type.Object({
  files: Type.Array(File),
  thumbnail: Type.Optional(File),
  expires_at: Type.Optional(Type.String({ format: 'date-time' })),
});

export const ReprocessResponse = Type.Object(
  {
    session_id: Type.String(),
    current_status: Type.String({ description: 'processing' }),
  },
  { description: 'The session is read again with the current reader (LabReportReprocessResponse)' },
);

/** `X-Terra-Version` as the OpenAPI document shows it on every lab-reports operation. */
export const VersionHeaders = Type.Object({
  'x-terra-version': Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        'YYYY-MM-DD: served by the newest lab-reports API version on or before that date (earlier dates get ' +
        'the first, 2026-03-24). Absent: your pin (PUT /v2/reports/api-version), else the latest. Malformed: 400.',
      examples: ['2026-11-19'],
    }),
  ),
});

export const VersionPin = Type.Object(
  {
    api_version: Type.Union([Type.String(), Type.Null()], {
      description: 'Your pinned version; null when none is pinned',
    }),
    served_without_header: Type.String({ description: 'The version a request without X-Terra-Version gets' }),
    latest: Type.String(),
    versions: Type.Array(Type.String(), { description: 'Every version, oldest first' }),
  },
  { description: 'Your lab-reports API version pin' },
);

export const VersionPinBody = Type.Object(
  {
    // Null first: the validator coerces types, and would otherwise take null for an empty string.
    api_version: Type.Union([Type.Null(), Type.String({ maxLength: 40 })], {
      description:
        'YYYY-MM-DD: pins the newest version on or before that date; null: unpinned (the latest serves)',
      examples: ['2026-03-24'],
    }),
  },
  { additionalProperties: false },
);
