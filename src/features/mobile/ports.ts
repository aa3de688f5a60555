import type { NoPayload } from '../../jobs/queues.ts';

/** One accepted SDK upload to normalize (its body waits in mobile_uploads). */
export const NORMALIZE_UPLOAD_QUEUE = 'mobile.normalize-upload';
export type NormalizeUploadJob = { uploadId: string };

/** One export import to run, or to resume after a crash (it skips what its checkpoint says is stored). */
export const IMPORT_QUEUE = 'mobile.import';
export type ImportJob = { importId: string };

/** Hourly (and at start-up): removes spooled export files no import will read. */
export const SWEEP_SPOOL_QUEUE = 'mobile.sweep-spool';

/**
 * Data elements per stored batch of an import (and per checkpoint). Small enough that the parsed
 * elements waiting for their transaction stay a few hundred KB (bench/apple-import.ts: peak RSS).
 */
export const IMPORT_BATCH = 250;

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [NORMALIZE_UPLOAD_QUEUE]: NormalizeUploadJob;
    [IMPORT_QUEUE]: ImportJob;
    [SWEEP_SPOOL_QUEUE]: NoPayload;
  }
}
