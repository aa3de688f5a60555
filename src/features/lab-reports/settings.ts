// The lab-report feature's settings (declared here, parsed once at boot by core/settings.ts;
// docs/lab-reports.md): the reading limits checked before work, the isolated process every report
// is read in, and how many reports are read at once — per worker process, and per developer in each.
import {
  concurrencySetting,
  isolationLimitsOf,
  isolationSettings,
  type IsolationLimits,
} from '../../core/isolation.ts';
import { defineSettings, numberSetting, readSettings, type RawEnv } from '../../core/settings.ts';
import { windowRuleSetting } from '../limits/settings.ts';
import type { WindowRule } from '../limits/windows.ts';
import { DEFAULT_READING_LIMITS, type ReadingLimits } from './extraction/limits.ts';

export type LabReportSettings = {
  reading: ReadingLimits;
  /** LAB_REPORT_READER_MEMORY_MB, _CPU_SECONDS, _SECONDS. */
  isolation: IsolationLimits;
  /** LAB_REPORT_CONCURRENCY: reports read at once by one worker process. */
  concurrency: number;
  /** LAB_REPORT_DEVELOPER_CONCURRENCY: reports of one developer read at once by one worker process
   *  (below LAB_REPORT_CONCURRENCY, every worker keeps a slot for other developers). */
  developerConcurrency: number;
  /** LAB_REPORT_UPLOAD_RATE: uploads one developer may make, `<count>/<seconds>` (default 120/60):
   *  past it 429, before the file is read, so one developer cannot fill the store or the queue. */
  uploadRate: WindowRule;
};

const positive = (fallback: number, description: string) =>
  numberSetting({
    description,
    default: fallback,
    exclusiveMinimum: 0,
    problem: 'must be a positive number',
  });

const d = DEFAULT_READING_LIMITS;

export const labReportSettings = defineSettings({
  id: 'lab-reports',
  owner: 'features/lab-reports',
  intro: [
    'Lab reports are read in a child process with these limits (docs/lab-reports.md). A file over',
    'a limit fails its session (file_unreadable) naming the setting.',
  ],
  settings: {
    LAB_REPORT_MAX_IMAGE_PIXELS: positive(
      d.maxImagePixels,
      "An image's pixels, from its header (OCR renders stay under it too).",
    ),
    LAB_REPORT_MAX_PAGE_INCHES: positive(d.maxPageInches, "A PDF page's longest side, in inches."),
    LAB_REPORT_MAX_INFLATED_MB: positive(
      d.maxInflatedBytes / 1024 / 1024,
      "A PDF's compressed streams, inflated, in MB.",
    ),
    LAB_REPORT_MAX_TEXT_OPERATIONS: positive(
      d.maxTextOperations,
      'Text operations in one PDF content stream.',
    ),
    // OCR of a 40 MP photo peaks near 1 GB resident; a text PDF needs ~150 MB.
    ...isolationSettings(
      'LAB_REPORT_READER',
      { memoryMb: 1536, cpuSeconds: 240, seconds: 600 },
      'Lab report reader process',
    ),
    LAB_REPORT_CONCURRENCY: concurrencySetting(2, 'Reports read at once by one worker process.'),
    LAB_REPORT_DEVELOPER_CONCURRENCY: concurrencySetting(
      1,
      'Reports of one developer read at once by one worker process (below LAB_REPORT_CONCURRENCY, a slot stays for others).',
    ),
    LAB_REPORT_UPLOAD_RATE: windowRuleSetting(
      { limit: 120, windowSeconds: 60 },
      'Lab report uploads one developer may make; past it 429 with Retry-After, before the file is read.',
    ),
  },
  build: (v): LabReportSettings => ({
    reading: {
      maxImagePixels: v.LAB_REPORT_MAX_IMAGE_PIXELS,
      maxPageInches: v.LAB_REPORT_MAX_PAGE_INCHES,
      maxInflatedBytes: v.LAB_REPORT_MAX_INFLATED_MB * 1024 * 1024,
      maxTextOperations: v.LAB_REPORT_MAX_TEXT_OPERATIONS,
    },
    isolation: isolationLimitsOf(v, 'LAB_REPORT_READER'),
    concurrency: v.LAB_REPORT_CONCURRENCY,
    developerConcurrency: v.LAB_REPORT_DEVELOPER_CONCURRENCY,
    uploadRate: v.LAB_REPORT_UPLOAD_RATE,
  }),
});

/** The reading limits of an environment record (tools and tests). */
export const loadReadingLimits = (env: RawEnv): ReadingLimits => readSettings(labReportSettings, env).reading;
