// The mobile feature's settings (declared here, parsed once at boot by core/settings.ts): limits of
// SDK uploads and the export-import reader (docs/mobile.md).
import { concurrencySetting, isolationLimitsOf, isolationSettings } from '../../core/isolation.ts';
import { defineSettings, numberSetting } from '../../core/settings.ts';
import { windowRuleSetting } from '../limits/settings.ts';
import type { WindowRule } from '../limits/windows.ts';
import type { ImportSettings } from './import-isolated.ts';

/** Limits of the mobile feature. */
export type MobileSettings = {
  /** MOBILE_UPLOAD_MAX_BYTES: largest SDK upload body (default 5 MiB). */
  uploadMaxBytes: number;
  /** MOBILE_IMPORT_MAX_BYTES: largest export file accepted (default 8 GiB). */
  importMaxBytes: number;
  /**
   * MOBILE_UPLOAD_RATE: SDK uploads per connection, `<count>/<seconds>` (default 60/60). The
   * upload token lives on the user's phone: whoever holds it is held to this.
   */
  uploadRate: WindowRule;
  /** MOBILE_UPLOAD_PENDING_MAX: uploads of one connection waiting for normalization (default 20). */
  uploadPendingMax: number;
  /** MOBILE_IMPORT_RATE: export imports one developer may start, `<count>/<seconds>` (default 30/60):
   *  past it 429, before the export is read. */
  importRate: WindowRule;
};

const bytes = (fallback: number, description: string) =>
  numberSetting({
    description,
    default: fallback,
    integer: true,
    minimum: 1024,
    problem: 'must be a whole number of bytes ≥ 1024',
  });

export const mobileSettings = defineSettings({
  id: 'mobile',
  owner: 'features/mobile',
  intro: [
    'Mobile sources: SDK uploads (POST /v2/sdk/upload) and Apple Health exports (POST /v2/import/apple-health).',
  ],
  settings: {
    MOBILE_UPLOAD_MAX_BYTES: bytes(5 * 1024 * 1024, 'The largest SDK upload body (larger: 413).'),
    MOBILE_IMPORT_MAX_BYTES: bytes(
      8 * 1024 * 1024 * 1024,
      'The largest Apple Health export accepted (spooled under DATA_DIR/imports).',
    ),
    MOBILE_UPLOAD_RATE: windowRuleSetting(
      { limit: 60, windowSeconds: 60 },
      "SDK uploads per connection (the upload token sits on the user's phone); past it 429 with Retry-After.",
    ),
    MOBILE_UPLOAD_PENDING_MAX: numberSetting({
      description: 'Uploads of one connection waiting for normalization; past it 429 with Retry-After.',
      default: 20,
      integer: true,
      minimum: 1,
      problem: 'must be a whole number ≥ 1',
    }),
    MOBILE_IMPORT_RATE: windowRuleSetting(
      { limit: 30, windowSeconds: 60 },
      'Export imports one developer may start; past it 429 with Retry-After, before the export is read.',
    ),
    // A batch of 250 elements is a few hundred KB (bench/apple-import.ts); the rest is Node itself
    // and the referenced route files of one batch. An import of gigabytes runs for many minutes,
    // so time is bounded by progress (a batch at least every 2 minutes), not in total.
    ...isolationSettings(
      'MOBILE_IMPORT_READER',
      { memoryMb: 512, idleSeconds: 120 },
      'Export reader process',
    ),
    MOBILE_IMPORT_CONCURRENCY: concurrencySetting(2, 'Export imports run at once by one worker process.'),
    MOBILE_IMPORT_DEVELOPER_CONCURRENCY: concurrencySetting(
      1,
      'Export imports of one developer run at once by one worker process (below MOBILE_IMPORT_CONCURRENCY, every worker keeps a slot for others).',
    ),
  },
  build: (v): { limits: MobileSettings; imports: ImportSettings } => ({
    limits: {
      uploadMaxBytes: v.MOBILE_UPLOAD_MAX_BYTES,
      importMaxBytes: v.MOBILE_IMPORT_MAX_BYTES,
      uploadRate: v.MOBILE_UPLOAD_RATE,
      uploadPendingMax: v.MOBILE_UPLOAD_PENDING_MAX,
      importRate: v.MOBILE_IMPORT_RATE,
    },
    imports: {
      isolation: isolationLimitsOf(v, 'MOBILE_IMPORT_READER'),
      concurrency: v.MOBILE_IMPORT_CONCURRENCY,
      developerConcurrency: v.MOBILE_IMPORT_DEVELOPER_CONCURRENCY,
    },
  }),
});
