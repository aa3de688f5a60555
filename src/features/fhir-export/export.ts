// The bulk export, after the FHIR Bulk Data Access pattern
// (https://hl7.org/fhir/uv/bulkdata/export.html): a kick-off answers 202 with a status URL; the
// export runs as durable jobs, one per user, each moving its place forward in the transaction that
// stores the lines it wrote (a worker killed mid-way resumes from the last commit and writes no line
// twice); the status URL answers 202 with X-Progress until the last user is done, then 200 with a
// manifest whose file links are signed and expire; the files go after the retention; DELETE cancels.
// Records are read a page at a time, so memory stays flat whatever the export's size.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { Config } from '../../core/config.ts';
import { AppError, forbidden, invalidParameter, notFound } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { NoPayload } from '../../jobs/queues.ts';
import type { Db } from '../../store/db.ts';
import {
  type ConnectionRow,
  type ConnectionsService,
  findConnectionForDeveloper,
} from '../connections/service.ts';
import type { DataService, RecordKeyset } from '../data/service.ts';
import type { Developer } from '../developers/service.ts';
import { EXPORTED_TYPES } from './map-records.ts';
import { OMH_NDJSON, OMH_SCHEMA_NAMES, omhWriter } from './omh.ts';
import { ownerOf } from './pager.ts';
import * as repo from './repo.ts';
import { EXPORT_RESOURCE_TYPES } from './resources.ts';
import { parseSince, type Query } from './search.ts';
import { fhirExportSettings } from './settings.ts';
import { type ExportWriter, FHIR_NDJSON, FHIR_NDJSON_ALIASES, fhirWriter, type Lines } from './writers.ts';

export const EXPORT_UNIT_QUEUE = 'fhir-export.unit';
export const EXPORT_PRUNE_QUEUE = 'fhir-export.prune';

export type ExportUnitJob = { exportId: string; userId: string };

declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [EXPORT_UNIT_QUEUE]: ExportUnitJob;
    [EXPORT_PRUNE_QUEUE]: NoPayload;
  }
}

/** The most records one step reads (small records: few round trips). */
const RECORDS_PER_STEP = 64;
/** The first step of each type, before any record's size is known. */
const FIRST_STEP_RECORDS = 8;
/**
 * The lines one step aims at: later steps read as many records as fit at the largest size per
 * record seen so far, so a user whose records carry days of second-by-second samples (several MB
 * each) is exported a few records a step instead of 64 at once.
 */
const STEP_BYTES = 4 * 1024 * 1024;
const recordsPerStep = (bytesPerRecord: number) =>
  Math.max(1, Math.min(RECORDS_PER_STEP, Math.floor(STEP_BYTES / Math.max(1, bytesPerRecord))));
/** How long each file's list of lines is now (a few files: one per resource type). */
const lengthsOf = (lines: Lines) => new Map([...lines].map(([file, list]) => [file, list.length]));
/** The characters of the lines added to `lines` since `before` was taken. */
const addedChars = (lines: Lines, before: Map<string, number>) => {
  let chars = 0;
  for (const [file, list] of lines)
    for (let index = before.get(file) ?? 0; index < list.length; index++) chars += list[index]!.length;
  return chars;
};
const PARTS_PER_READ = 16;
const KICK_OFF_PARAMS = ['_type', '_since', '_outputFormat'];
/** Open mHealth data points (docs/fhir.md#open-mhealth). */
const OMH_ALIASES = [OMH_NDJSON, 'openmhealth'];

export type ExportDeps = {
  db: Db;
  clock: Clock;
  log: Logger;
  config: Config;
  jobs: JobQueue;
  data: Pick<DataService, 'recordPage'>;
  connections: Pick<ConnectionsService, 'subscriptions'>;
  /** Writers of output formats other than FHIR NDJSON (Open mHealth), by `_outputFormat`. */
  extraFormats?: Record<
    string,
    { types: readonly string[]; writer: (types: readonly string[]) => ExportWriter }
  >;
};

export type KickOff = { statusUrl: string; exportId: string };
export type ExportStatus =
  | { state: 'in_progress'; progress: string; retryAfterSeconds: number }
  | { state: 'completed'; manifest: Manifest };

export interface Manifest {
  transactionTime: string;
  request: string;
  requiresAccessToken: false;
  output: { type: string; url: string; count: number }[];
  error: never[];
  extension: { expires_at: string; links_expire_at: string; output_format: string };
}

export function createBulkExport(deps: ExportDeps) {
  const { db, clock } = deps;
  const settings = deps.config.settings.get(fhirExportSettings);
  const linkKey = createHmac('sha256', deps.config.encryptionKey)
    .update('tributary:fhir-export-file-link')
    .digest();
  const sign = (exportId: string, userId: string, type: string, expires: number) =>
    createHmac('sha256', linkKey).update(`${exportId}.${userId}.${type}.${expires}`).digest('hex');
  const statusUrl = (id: string) => `${deps.config.publicUrl}/v2/fhir/$export-status/${id}`;

  function formatOf(query: Query): {
    format: string;
    types: readonly string[];
    writer: (types: readonly string[], at: string) => ExportWriter;
  } {
    const raw = query['_outputFormat'];
    if (Array.isArray(raw)) throw invalidParameter('_outputFormat', 'given more than once');
    if (raw === undefined || FHIR_NDJSON_ALIASES.includes(raw)) {
      return { format: FHIR_NDJSON, types: EXPORT_RESOURCE_TYPES, writer: fhirWriter };
    }
    if (OMH_ALIASES.includes(raw)) return { format: OMH_NDJSON, types: OMH_SCHEMA_NAMES, writer: omhWriter };
    throw invalidParameter(
      '_outputFormat',
      `expected one of ${[...FHIR_NDJSON_ALIASES, ...OMH_ALIASES].join(', ')}`,
    );
  }

  function typesOf(query: Query, allowed: readonly string[]): string[] {
    const raw = query['_type'];
    if (raw === undefined) return [];
    const types = (Array.isArray(raw) ? raw : [raw])
      .flatMap((value) => value.split(','))
      .map((type) => type.trim());
    for (const type of types) {
      if (!allowed.includes(type))
        throw invalidParameter('_type', `${type} is not exported: expected some of ${allowed.join(', ')}`);
    }
    return [...new Set(types)];
  }

  /** `GET /v2/fhir/$export` (userId null: every connected user) or `/v2/fhir/Patient/{id}/$export`. */
  async function kickOff(
    developer: Developer,
    input: { userId: string | null; query: Query; prefer: string | undefined; requestUrl: string },
  ): Promise<KickOff> {
    if (!/(^|[,;\s])respond-async($|[,;\s])/.test(input.prefer ?? '')) {
      throw invalidParameter(
        'Prefer',
        'the header must say respond-async: a bulk export always runs in the background',
      );
    }
    for (const name of Object.keys(input.query)) {
      if (!KICK_OFF_PARAMS.includes(name))
        throw invalidParameter(name, `unknown parameter: expected one of ${KICK_OFF_PARAMS.join(', ')}`);
    }
    const format = formatOf(input.query);
    const types = typesOf(input.query, format.types);
    const since = parseSince(input.query);
    let userIds: string[];
    if (input.userId !== null) {
      userIds = [(await findConnectionForDeveloper(db, developer.id, input.userId)).id];
    } else {
      const listed = await deps.connections.subscriptions(developer.id, {});
      userIds = listed.kind === 'all' ? listed.users.map((user) => user.user_id) : [];
    }
    const id = newId('fhirExport');
    const now = clock.now();
    const empty = userIds.length === 0;
    await db.transaction().execute(async (trx) => {
      await repo.insertExport(
        trx,
        {
          id,
          developer_id: developer.id,
          user_id: input.userId,
          resource_types: types,
          since: since ?? null,
          output_format: format.format,
          request_url: input.requestUrl,
          status: empty ? 'completed' : 'in_progress',
          units_total: userIds.length,
          created_at: now,
          completed_at: empty ? now : null,
          expires_at: empty ? new Date(now.getTime() + settings.retentionHours * 3_600_000) : null,
        },
        userIds,
      );
      await deps.jobs.sendMany(
        EXPORT_UNIT_QUEUE,
        userIds.map((userId) => ({ data: { exportId: id, userId } })),
        trx,
      );
    });
    return { exportId: id, statusUrl: statusUrl(id) };
  }

  async function ownExport(developer: Developer, id: string) {
    const row = await repo.findExport(db, developer.id, id);
    if (!row || (row.expires_at && row.expires_at.getTime() <= clock.now().getTime())) {
      throw notFound(`no export ${id}: never started, cancelled, or past its retention`);
    }
    return row;
  }

  async function status(developer: Developer, id: string): Promise<ExportStatus> {
    const row = await ownExport(developer, id);
    if (row.status === 'in_progress') {
      return {
        state: 'in_progress',
        progress: `${row.units_done} of ${row.units_total} users exported`,
        retryAfterSeconds: 5,
      };
    }
    const nowMs = clock.now().getTime();
    const expires = Math.floor(nowMs / 1000) + settings.linkMinutes * 60;
    const linkFor = (userId: string, type: string) => {
      const url = new URL(
        `${deps.config.publicUrl}/v2/fhir/$export-files/${row.id}/${userId}/${encodeURIComponent(type)}`,
      );
      url.searchParams.set('expires', String(expires));
      url.searchParams.set('signature', sign(row.id, userId, type, expires));
      return url.toString();
    };
    const files = await repo.fileList(db, row.id);
    return {
      state: 'completed',
      manifest: {
        transactionTime: row.created_at.toISOString(),
        request: row.request_url,
        requiresAccessToken: false,
        output: files.map((file) => ({
          type: file.resource_type,
          url: linkFor(file.user_id, file.resource_type),
          count: Number(file.count),
        })),
        error: [],
        extension: {
          expires_at: (row.expires_at ?? new Date(nowMs)).toISOString(),
          links_expire_at: new Date(expires * 1000).toISOString(),
          output_format: row.output_format,
        },
      },
    };
  }

  /** DELETE on the status URL: the export stops (its jobs find it gone) and what it wrote is deleted. */
  async function cancel(developer: Developer, id: string): Promise<void> {
    const row = await ownExport(developer, id);
    await repo.deleteExport(db, row.id);
  }

  /** One file, streamed part by part, for a link whose signature and expiry check out. */
  async function file(input: {
    exportId: string;
    userId: string;
    type: string;
    expires?: string;
    signature?: string;
  }): Promise<{ body: Readable; format: string }> {
    const { exportId, userId, type, expires, signature } = input;
    if (!expires || !/^\d{1,12}$/.test(expires) || !signature || !/^[0-9a-f]{64}$/.test(signature)) {
      throw forbidden('not a valid export file link: take the links from the export manifest');
    }
    const expected = Buffer.from(sign(exportId, userId, type, Number(expires)), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
      throw forbidden('not a valid export file link: take the links from the export manifest');
    }
    if (Number(expires) * 1000 <= clock.now().getTime()) {
      throw new AppError('gone', 'this file link has expired: poll the status URL again for fresh links');
    }
    const row = await repo.findExport(db, null, exportId);
    if (
      !row ||
      row.status !== 'completed' ||
      (row.expires_at && row.expires_at.getTime() <= clock.now().getTime())
    ) {
      throw notFound(`export ${exportId} is gone (cancelled or past its retention)`);
    }
    const first = await repo.fileParts(db, { exportId, userId, type }, -1, PARTS_PER_READ);
    if (first.length === 0) throw notFound(`export ${exportId} has no such file`);
    async function* parts() {
      let page = first;
      while (page.length > 0) {
        for (const part of page) yield part.body;
        if (page.length < PARTS_PER_READ) return;
        page = await repo.fileParts(db, { exportId, userId, type }, page.at(-1)!.seq, PARTS_PER_READ);
      }
    }
    return { body: Readable.from(parts()), format: row.output_format };
  }

  /** The job of one user: every step from the unit's place to its end, each step committed with its lines. */
  async function runUnit(job: ExportUnitJob): Promise<void> {
    const row = await repo.findExport(db, null, job.exportId);
    if (!row || row.status !== 'in_progress') return;
    let unit: repo.UnitRow | null = (await repo.findUnit(db, job.exportId, job.userId)) ?? null;
    if (!unit || unit.done) return;
    let user: ConnectionRow | null = null;
    try {
      user = await findConnectionForDeveloper(db, row.developer_id, job.userId);
    } catch (error) {
      // Deleted since the kick-off (deauthenticated): nothing of theirs is exported.
      if (!(error instanceof AppError && error.kind === 'not_found')) throw error;
    }
    const format = formatOf({ _outputFormat: row.output_format });
    const writer = format.writer(row.resource_types, row.created_at.toISOString());
    const owner = user ? ownerOf(user) : null;
    if (owner && !unit.patient_written) {
      const lines: Lines = new Map();
      writer.start(owner, lines);
      unit = await step(unit, lines, { patient_written: true });
      if (!unit) return;
    }
    // Sized by what the records of this run wrote so far (per type: types differ in size).
    let sizedType = -1;
    let largestPerRecord = 0;
    while (owner && unit.type_index < EXPORTED_TYPES.length) {
      const type = EXPORTED_TYPES[unit.type_index]!;
      if (sizedType !== unit.type_index) {
        sizedType = unit.type_index;
        largestPerRecord = 0;
      }
      const after: RecordKeyset | null =
        unit.after_at && unit.after_key !== null ? { at: unit.after_at, key: unit.after_key } : null;
      const page = await deps.data.recordPage(job.userId, type, {
        ...(row.since ? { since: row.since } : {}),
        after,
        limit: largestPerRecord === 0 ? FIRST_STEP_RECORDS : recordsPerStep(largestPerRecord),
      });
      const devices = new Set(unit.devices);
      const lines: Lines = new Map();
      for (const stored of page.records) {
        const before = lengthsOf(lines);
        writer.record(owner, type, stored.key, stored.record, devices, lines);
        largestPerRecord = Math.max(largestPerRecord, addedChars(lines, before));
      }
      const next = page.next
        ? { after_at: page.next.at, after_key: page.next.key }
        : { type_index: unit.type_index + 1, after_at: null, after_key: null };
      unit = await step(unit, lines, { ...next, devices: [...devices] });
      if (!unit) return;
    }
    await db.transaction().execute(async (trx) => {
      const counts = await repo.finishUnit(trx, { export_id: job.exportId, user_id: job.userId });
      if (counts && counts.units_done >= counts.units_total) {
        const now = clock.now();
        await repo.completeExport(
          trx,
          job.exportId,
          now,
          new Date(now.getTime() + settings.retentionHours * 3_600_000),
        );
      }
    });
  }

  /** Commits a step; null when the export is gone or another worker moved the unit first. */
  async function step(unit: repo.UnitRow, lines: Lines, next: Parameters<typeof repo.storeStep>[3]) {
    const stored = await db.transaction().execute(async (trx) => {
      const current = await repo.findExport(trx, null, unit.export_id);
      if (!current || current.status !== 'in_progress') return false;
      return repo.storeStep(trx, unit, lines, next);
    });
    if (!stored) return null;
    return repo.findUnit(db, unit.export_id, unit.user_id).then((row) => row ?? null);
  }

  /** Deletes exports past their retention; returns how many went. */
  async function prune(): Promise<number> {
    let removed = 0;
    for (;;) {
      const ids = await repo.expiredExports(db, clock.now(), 100);
      for (const id of ids) if (await repo.deleteExport(db, id)) removed += 1;
      if (ids.length < 100) return removed;
    }
  }

  return { kickOff, status, cancel, file, runUnit, prune };
}

export type BulkExport = ReturnType<typeof createBulkExport>;
