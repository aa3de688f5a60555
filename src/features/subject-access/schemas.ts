import Type from 'typebox';
import { exampleSimulatedProviderId } from '../../provider-access/example-ids.ts';

export const SubjectUserParams = Type.Object({
  user_id: Type.String({ description: 'The user (connection) id', maxLength: 100 }),
});

export const ArchiveSchema = Type.String({
  format: 'binary',
  description:
    'A ZIP archive: user.json, records/<type>.ndjson for every data type, raw_payloads.ndjson, ' +
    'webhook_events.ndjson, lab_reports.ndjson and lab_report_files/<upload_id>.<ext>, and ' +
    'manifest.json (each file with its line count)',
  examples: ['PK\u0003\u0004…'],
});

const receiptExample = {
  status: 'success',
  receipt: {
    id: 'ers_5f0c2a9e4b7d1e3a6c8f0b2d',
    user_id: '8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41',
    provider: exampleSimulatedProviderId(),
    deleted_at: '2026-11-28T01:50:00.000Z',
    deleted_rows: {
      connections: 1,
      data_records: 120,
      provider_tokens: 1,
      raw_payloads: 8,
      sync_coverage: 6,
    },
    total_rows: 136,
  },
};

export const ErasureReceiptResponse = Type.Object(
  {
    status: Type.Literal('success'),
    receipt: Type.Object({
      id: Type.String(),
      user_id: Type.String({ description: 'The deleted user’s id' }),
      provider: Type.String(),
      deleted_at: Type.String({ format: 'date-time' }),
      deleted_rows: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
        description:
          'Rows deleted per table, the connection’s own row included: every table whose rows go with a connection',
      }),
      total_rows: Type.Integer({ minimum: 0 }),
    }),
  },
  { examples: [receiptExample] },
);
