// JSON Schemas of the lab_report webhook events, as events.ts builds them, for the OpenAPI
// document's `webhooks` section. They describe the payloads; they build none.
import Type, { type TSchema } from 'typebox';
import { ReportTypeSchema, Result, Unmatched } from './schemas.ts';

const Identity = {
  event_id: Type.String({
    description: 'The webhook event’s id (the webhook-id header), what replay takes',
    examples: ['evt_4a2b8c1d-3f9e-4b7a-9c2d-1e5f6a7b8c9d'],
  }),
  occurred_at: Type.String(),
  upload_id: Type.String({ description: 'The id the upload answered with' }),
};
const SessionId = Type.String();
const ReferenceId = Type.Optional(Type.String({ description: 'Your own id, as given with the upload' }));

export const labReportEventSchemas: Record<'lab_report.completed' | 'lab_report.failed', TSchema> = {
  'lab_report.completed': Type.Object(
    {
      type: Type.Literal('lab_report.completed'),
      ...Identity,
      data: Type.Object({
        session_id: SessionId,
        reference_id: ReferenceId,
        report_type: ReportTypeSchema,
        report_date: Type.Optional(Type.String()),
        report_time: Type.Optional(Type.String()),
        report_locale: Type.Optional(Type.String()),
        results_count: Type.Integer({ minimum: 0 }),
        results: Type.Array(Result),
        panels: Type.Optional(
          Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), key: Type.String() })),
        ),
        unmatched: Type.Array(Unmatched),
        report_notes: Type.Optional(Type.String()),
      }),
    },
    {
      title: 'lab_report.completed',
      description:
        'An uploaded lab report or DXA scan was read: its results. report_type says which (the vendor’s scans page); ' +
        'a scan’s results are scoped by biomarker.region.',
    },
  ),
  'lab_report.failed': Type.Object(
    {
      type: Type.Literal('lab_report.failed'),
      ...Identity,
      data: Type.Object({
        session_id: SessionId,
        reference_id: ReferenceId,
        error: Type.Object({
          code: Type.Union(
            (['file_unreadable', 'extraction_failed', 'standardization_failed', 'internal'] as const).map(
              (code) => Type.Literal(code),
            ),
          ),
          message: Type.String(),
          retriable: Type.Boolean(),
        }),
      }),
    },
    { title: 'lab_report.failed', description: 'An uploaded lab report could not be read.' },
  ),
};
