// The MCP server's logic (docs/mcp.md), free of the protocol: who is calling (a developer's API
// key, or a per-user token the developer minted: one user, read-only, expiring), and the tools an
// assistant calls, each answering compact JSON. Every tool call is counted against a per-credential
// window, reads are charged to the user's read budget exactly as the data API charges them, and
// every call, allowed or refused, is written to the audit log (through the dashboard feature).
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Clock } from '../../core/clock.ts';
import type { Config } from '../../core/config.ts';
import { AppError, forbidden, invalidParameter, notFound, unauthorized } from '../../core/errors.ts';
import { newId, newToken } from '../../core/ids.ts';
import type { DataTypeName } from '../../model/index.ts';
import { addDays, isIsoDate } from '../../model/time.ts';
import type { Db } from '../../store/db.ts';
import { findConnectionForDeveloper, requireUuid, toWireUser } from '../connections/service.ts';
import type { ConnectionsService } from '../connections/service.ts';
import type { DashboardService } from '../dashboard/service.ts';
import type { DataService } from '../data/service.ts';
import type { Developer, DevelopersService } from '../developers/service.ts';
import type { LabReportsService } from '../lab-reports/service.ts';
import { createRequestWindows } from '../limits/windows.ts';
import type { MergeService } from '../merge/service.ts';
import { COMPACT_TYPES, type CompactType, compactLabResult, compactRecord } from './compact.ts';
import * as repo from './repo.ts';
import { mcpSettings } from './settings.ts';

type Json = Record<string, unknown>;

/** Who is calling: the developer, and the one user a per-user token is limited to (null: all theirs). */
export type McpPrincipal = { developer: Developer; userId: string | null; ref: string };

export type McpDeps = {
  db: Db;
  clock: Clock;
  config: Config;
  developers: DevelopersService;
  connections: ConnectionsService;
  data: Pick<DataService, 'admitAll' | 'syncWindow' | 'recordsOf'>;
  merge: Pick<MergeService, 'read'>;
  labReports: Pick<LabReportsService, 'withResultsFor'>;
  dashboard: Pick<DashboardService, 'auditApiCall'>;
};

/** The longest window one tool call reads: enough for trends, small enough for a model's context. */
export const MAX_WINDOW_DAYS = 93;
const DEFAULT_TOKEN_TTL_SECONDS = 3600;
const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

async function readAll(stream: Readable): Promise<string> {
  let body = '';
  for await (const chunk of stream)
    body += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  return body;
}

/** Least-squares slope per day, and the means of the first and last seven values. */
function trendOf(points: readonly { day: number; value: number }[]) {
  if (points.length < 2) return null;
  const n = points.length;
  const meanX = points.reduce((sum, point) => sum + point.day, 0) / n;
  const meanY = points.reduce((sum, point) => sum + point.value, 0) / n;
  let numerator = 0;
  let denominator = 0;
  for (const point of points) {
    numerator += (point.day - meanX) * (point.value - meanY);
    denominator += (point.day - meanX) ** 2;
  }
  const mean = (values: readonly { value: number }[]) =>
    Math.round((values.reduce((sum, point) => sum + point.value, 0) / values.length) * 100) / 100;
  return {
    values: n,
    mean: Math.round(meanY * 100) / 100,
    slope_per_day: denominator === 0 ? 0 : Math.round((numerator / denominator) * 1000) / 1000,
    first_week_mean: mean(points.slice(0, 7)),
    last_week_mean: mean(points.slice(-7)),
  };
}

export function createMcpService(deps: McpDeps) {
  const { db, clock } = deps;
  const settings = deps.config.settings.get(mcpSettings);
  const windows = createRequestWindows({ db, clock });

  // --- per-user tokens ---------------------------------------------------------------------

  async function mintToken(developer: Developer, body: { user_id: string; expires_in_seconds?: number }) {
    const userId = requireUuid('user_id', body.user_id);
    const ttl = body.expires_in_seconds ?? DEFAULT_TOKEN_TTL_SECONDS;
    if (!Number.isInteger(ttl) || ttl < 60 || ttl > settings.tokenMaxTtlSeconds)
      throw invalidParameter(
        'expires_in_seconds',
        `expected a whole number from 60 to ${settings.tokenMaxTtlSeconds}`,
      );
    const user = await findConnectionForDeveloper(db, developer.id, userId);
    const token = newToken('mcpUserToken');
    const now = clock.now();
    const row = {
      id: newId('mcpToken'),
      token_hash: hashOf(token),
      developer_id: developer.id,
      user_id: user.id,
      created_at: now,
      expires_at: new Date(now.getTime() + ttl * 1000),
      revoked_at: null,
    };
    // Tokens long past their end go as new ones are made: no schedule of their own needed.
    await repo.pruneTokens(db, new Date(now.getTime() - 86_400_000));
    await repo.insertToken(db, row);
    return {
      token_id: row.id,
      token,
      user_id: user.id,
      scope: 'read' as const,
      expires_at: row.expires_at.toISOString(),
    };
  }

  async function revokeToken(developer: Developer, tokenId: string): Promise<void> {
    if (!(await repo.revokeToken(db, developer.id, tokenId, clock.now())))
      throw notFound(`no live MCP token ${tokenId} of yours`);
  }

  // --- who is calling ----------------------------------------------------------------------

  /** A developer's credentials (as every API route takes them) or `Authorization: Bearer <user token>`. */
  async function authenticate(credentials: {
    devId?: string;
    apiKey?: string;
    bearer?: string;
  }): Promise<McpPrincipal> {
    if (credentials.bearer !== undefined) {
      const row = await repo.findTokenByHash(db, hashOf(credentials.bearer));
      if (!row) throw unauthorized('unknown MCP token');
      if (row.revoked_at) throw unauthorized('this MCP token was revoked');
      if (row.expires_at.getTime() <= clock.now().getTime())
        throw unauthorized(`this MCP token expired at ${row.expires_at.toISOString()}; mint a new one`);
      const developer = await deps.developers.get(row.developer_id);
      if (developer.status === 'suspended') throw forbidden('developer account is suspended');
      return { developer, userId: row.user_id, ref: row.id };
    }
    if (!credentials.devId || !credentials.apiKey)
      throw unauthorized('dev-id and x-api-key headers, or an Authorization: Bearer MCP token, are missing');
    const result = await deps.developers.authenticate(credentials.devId, credentials.apiKey);
    if (!result.ok)
      throw result.kind === 'forbidden' ? forbidden(result.detail) : unauthorized(result.detail);
    return { developer: result.developer, userId: null, ref: result.keyId };
  }

  // --- the tools ---------------------------------------------------------------------------

  /** The user a call names, when the credential may read it (a token reads its own user only). */
  function allowedUser(principal: McpPrincipal, userId: unknown): string {
    const id = requireUuid('user_id', String(userId ?? ''));
    if (principal.userId !== null && principal.userId !== id)
      throw forbidden('this MCP token reads only the user it was minted for');
    return id;
  }

  function windowOf(args: Json): { start_date: string; end_date: string } {
    const start = text(args.start_date);
    const end = text(args.end_date);
    if (!start || !isIsoDate(start)) throw invalidParameter('start_date', 'expected YYYY-MM-DD');
    if (!end || !isIsoDate(end)) throw invalidParameter('end_date', 'expected YYYY-MM-DD');
    if (end < start) throw invalidParameter('end_date', 'must not be before start_date');
    if (addDays(start, MAX_WINDOW_DAYS) < end)
      throw invalidParameter('end_date', `a call reads at most ${MAX_WINDOW_DAYS} days`);
    return { start_date: start, end_date: end };
  }

  /** The data API's query for an inclusive window (its end_date is the first day not read). */
  const dataQuery = (window: { start_date: string; end_date: string }) => ({
    start_date: window.start_date,
    end_date: addDays(window.end_date, 1),
    to_webhook: 'false',
  });

  function compactTypeOf(value: unknown): CompactType {
    if (!(COMPACT_TYPES as readonly unknown[]).includes(value))
      throw invalidParameter('type', `expected one of ${COMPACT_TYPES.join(', ')}`);
    return value as CompactType;
  }

  /** A user's stored records of a window, admitted (budget) and synced as a data API read is. */
  async function userRecords(
    principal: McpPrincipal,
    userId: string,
    type: DataTypeName,
    window: ReturnType<typeof windowOf>,
  ) {
    const { params, users } = await deps.data.admitAll(principal.developer, {
      type,
      userIds: [userId],
      query: dataQuery(window),
    });
    const user = users[0]!;
    await deps.data.syncWindow(user, type, params.window!);
    const records = await deps.data.recordsOf(user, type, params.window!);
    return { user, records: records.map((record) => record.record) };
  }

  async function listUsers(principal: McpPrincipal): Promise<Json> {
    if (principal.userId !== null) {
      const user = await findConnectionForDeveloper(db, principal.developer.id, principal.userId);
      return { users: [toWireUser(user)] };
    }
    const result = await deps.connections.subscriptions(principal.developer.id, {});
    return { users: result.kind === 'all' ? result.users : result.results };
  }

  async function readData(principal: McpPrincipal, args: Json): Promise<Json> {
    const type = compactTypeOf(args.type);
    const window = windowOf(args);
    const referenceId = text(args.reference_id);
    if (referenceId !== undefined && args.user_id === undefined) {
      if (principal.userId !== null)
        throw forbidden('this MCP token reads only the user it was minted for; a person needs your API key');
      const result = await deps.merge.read(principal.developer, {
        referenceId,
        type,
        query: { ...dataQuery(window), with_samples: 'false' },
      });
      const body = result.body as Readable;
      const parsed = JSON.parse(await readAll(body)) as { person: Json; data: Json[] };
      return {
        person: parsed.person,
        type,
        ...window,
        records: parsed.data.map((record) => compactRecord(type, record)),
      };
    }
    const userId = allowedUser(principal, args.user_id);
    const { user, records } = await userRecords(principal, userId, type, window);
    return {
      user: { user_id: user.id, provider: user.provider, reference_id: user.reference_id },
      type,
      ...window,
      records: records.map((record) => compactRecord(type, record)),
    };
  }

  async function getScores(principal: McpPrincipal, args: Json): Promise<Json> {
    const userId = allowedUser(principal, args.user_id);
    const window = windowOf(args);
    const { user, records } = await userRecords(principal, userId, 'daily', window);
    const days = records.map((record) => {
      const computed = ((record.data_enrichment as Json | null)?.tributary ?? {}) as Json;
      const pickNumber = (value: unknown) => (typeof value === 'number' ? value : null);
      const deviation = (name: string) => (computed[name] as Json | null | undefined) ?? null;
      return {
        date: String((record.metadata as Json).start_time).slice(0, 10),
        recovery: pickNumber(computed.recovery_score),
        sleep_score: pickNumber(computed.sleep_score),
        resting_hr: pickNumber(deviation('resting_hr')?.value),
        resting_hr_vs_baseline: pickNumber(deviation('resting_hr')?.deviation),
        hrv_rmssd: pickNumber(deviation('hrv_rmssd')?.value),
        hrv_vs_baseline_percent: pickNumber(deviation('hrv_rmssd')?.deviation_percent),
        training_load: pickNumber((computed.training_load as Json | null | undefined)?.load),
        acwr: pickNumber((computed.training_load as Json | null | undefined)?.acwr),
        provider_recovery: pickNumber((record.scores as Json | null)?.recovery),
      };
    });
    const series = (name: keyof (typeof days)[number]) =>
      trendOf(
        days.flatMap((day, index) =>
          typeof day[name] === 'number' ? [{ day: index, value: day[name] as number }] : [],
        ),
      );
    return {
      user: { user_id: user.id, provider: user.provider },
      ...window,
      method: 'docs/scores.md (method "tributary"); null where a baseline is still too short',
      days,
      trends: {
        recovery: series('recovery'),
        sleep_score: series('sleep_score'),
        resting_hr: series('resting_hr'),
        hrv_rmssd: series('hrv_rmssd'),
        training_load: series('training_load'),
      },
    };
  }

  async function listLabResults(principal: McpPrincipal, args: Json): Promise<Json> {
    let referenceId = text(args.reference_id);
    if (args.user_id !== undefined || principal.userId !== null) {
      const userId = allowedUser(principal, args.user_id ?? principal.userId);
      const user = await findConnectionForDeveloper(db, principal.developer.id, userId);
      if (referenceId !== undefined && referenceId !== user.reference_id)
        throw invalidParameter('reference_id', `user ${user.id} carries another reference_id`);
      referenceId = user.reference_id ?? undefined;
      if (referenceId === undefined)
        return { reports: [], note: `user ${user.id} has no reference_id, so no lab reports` };
    }
    if (referenceId === undefined) throw invalidParameter('reference_id', 'give a user_id or a reference_id');
    const limit =
      typeof args.limit === 'number' && Number.isInteger(args.limit)
        ? Math.min(Math.max(args.limit, 1), 50)
        : 10;
    const sessions = (await deps.labReports.withResultsFor(
      { id: principal.developer.id },
      referenceId,
      limit,
    )) as Json[];
    return {
      reference_id: referenceId,
      reports: sessions.map((session) => ({
        session_id: session.session_id,
        status: session.current_status,
        ...(session.report_date ? { report_date: session.report_date } : {}),
        ...(session.collection_date ? { collection_date: session.collection_date } : {}),
        ...(session.lab_name ? { lab_name: session.lab_name } : {}),
        results: ((session.results as Json[] | undefined) ?? []).map(compactLabResult),
      })),
    };
  }

  const TOOLS = {
    list_users: (principal: McpPrincipal) => listUsers(principal),
    read_data: readData,
    get_scores: getScores,
    list_lab_results: listLabResults,
  } as const satisfies Record<string, (principal: McpPrincipal, args: Json) => Promise<Json>>;

  type ToolName = keyof typeof TOOLS;

  /**
   * Runs one tool call: the credential's window first, then the tool. Every call goes to the
   * audit log with its outcome (`mcp.<tool>`, or `mcp.<tool>.refused` with the refusal's status).
   */
  async function call(principal: McpPrincipal, tool: ToolName, args: Json): Promise<Json> {
    const target = text(args.user_id)
      ? `user:${String(args.user_id)}`
      : text(args.reference_id)
        ? `person:${String(args.reference_id)}`
        : null;
    const audit = (action: string) =>
      deps.dashboard.auditApiCall({
        developerId: principal.developer.id,
        ref: `mcp:${principal.ref}`,
        action,
        target,
      });
    try {
      await windows.enforce(
        `mcp:${principal.ref}`,
        settings.callLimit,
        'too many MCP tool calls with this credential',
      );
      const result = await TOOLS[tool](principal, args);
      await audit(`mcp.${tool}`);
      return result;
    } catch (error) {
      await audit(`mcp.${tool}.refused${error instanceof AppError ? `.${error.status}` : ''}`);
      throw error;
    }
  }

  return { mintToken, revokeToken, authenticate, call, toolNames: Object.keys(TOOLS) as ToolName[] };
}

export type McpService = ReturnType<typeof createMcpService>;
export type McpToolName = McpService['toolNames'][number];
