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
 * Data elements per stored batch of an import (and per checkpoint). Large, because a batch is one
 * statement whatever its size and what a statement costs beyond its rows is paid per batch (issue
 * 28: 250 made the import wait on round trips); small enough that two batches in flight (one
 * stored, one read meanwhile) stay a few MB (bench/apple-import.ts: peak RSS).
 */
export const IMPORT_BATCH = 5000;

/**
 * Bytes of sample JSON an import keeps for the rebuild at its end (imported-days.ts: in a file of
 * its own, UTF-8, on the disk beside the spooled export, which is larger). It was 12 MB kept in
 * the importing process's memory until issue 44's eleventh pass; on disk the pages are the
 * kernel's cache, so the budget bounds disk use, not the process.
 */
export const IMPORT_KEPT_BYTES = 256 * 1024 * 1024;

/** Days an import's rebuild takes per transaction: an import changes many contiguous days. */
export const IMPORT_REBUILD_DAYS = 56;

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [NORMALIZE_UPLOAD_QUEUE]: NormalizeUploadJob;
    [IMPORT_QUEUE]: ImportJob;
    [SWEEP_SPOOL_QUEUE]: NoPayload;
  }
}
