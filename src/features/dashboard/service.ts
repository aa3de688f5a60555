import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Clock } from '../../core/clock.ts';
import type { Config } from '../../core/config.ts';
import { AppError, forbidden, notFound } from '../../core/errors.ts';
import { constantTimeEqual } from '../../provider-kit/signatures.ts';
import type { Db } from '../../store/db.ts';
import type { Developer, DevelopersService } from '../developers/service.ts';
import * as repo from './repo.ts';
import { dashboardSettings } from './settings.ts';
import type { DashboardSessionKind } from './tables.ts';

/**
 * Dashboard sign-in, sessions and the audit log. The session id (32 random bytes) lives only in
 * the browser's cookie; the store keeps its SHA-256, so reading the table signs nobody in. A
 * developer session is checked against the API key it was made with on every request, so
 * revoking the key (dashboard, CLI or otherwise) ends it at once.
 */
export type DashboardSession =
  | { kind: 'developer'; developer: Developer; keyId: string; ref: string; csrfToken: string }
  | { kind: 'operator'; ref: string; csrfToken: string };

export type AuditEntry = {
  actor: DashboardSessionKind;
  developerId: string | null;
  sessionRef: string;
  action: string;
  target: string | null;
  at: Date;
};

const hashId = (sessionId: string) => createHash('sha256').update(sessionId, 'utf8').digest('hex');
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export function createDashboardService(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  developers: DevelopersService;
}) {
  const { db, clock, developers } = deps;
  const settings = deps.config.settings.get(dashboardSettings);

  // Form tokens are HMACs under the service key: nothing more to store, the same in every process.
  const mac = (purpose: string, value: string) =>
    createHmac('sha256', deps.config.encryptionKey).update(`${purpose}:${value}`).digest('base64url');

  async function open(kind: DashboardSessionKind, developerId: string | null, keyId: string | null) {
    const sessionId = randomBytes(32).toString('base64url');
    const now = clock.now();
    // Sessions that ended over a day ago go as new ones are made: no schedule of its own needed.
    await repo.pruneSessions(db, new Date(now.getTime() - 86_400_000));
    await repo.insertSession(db, {
      id_hash: hashId(sessionId),
      kind,
      developer_id: developerId,
      api_key_id: keyId,
      created_at: now,
      expires_at: new Date(now.getTime() + settings.sessionTtlMs),
      revoked_at: null,
    });
    return { sessionId, maxAgeSeconds: Math.floor(settings.sessionTtlMs / 1000) };
  }

  return {
    operatorEnabled: settings.operatorToken !== undefined,

    /** The token of the sign-in form, bound to a random value the browser holds in a cookie. */
    signInFormToken: (nonce: string) => mac('dashboard-sign-in', nonce),
    checkSignInFormToken: (nonce: string, token: string) =>
      nonce !== '' && constantTimeEqual(token, mac('dashboard-sign-in', nonce)),

    /** Same check as every API request (unknown id or wrong key: 401 without saying which; suspended: 403). */
    async signInDeveloper(devId: string, apiKey: string) {
      const result = await developers.authenticate(devId.trim(), apiKey.trim());
      if (!result.ok) {
        throw result.kind === 'forbidden'
          ? forbidden(result.detail)
          : new AppError('unauthorized', result.detail);
      }
      const opened = await open('developer', result.developer.id, result.keyId);
      return { ...opened, developer: result.developer };
    },

    async signInOperator(token: string) {
      if (settings.operatorToken === undefined)
        throw notFound('operator sign-in is disabled (OPERATOR_TOKEN is unset)');
      if (!constantTimeEqual(token.trim(), settings.operatorToken)) {
        throw new AppError('unauthorized', 'invalid operator token');
      }
      return open('operator', null, null);
    },

    /** The live session behind a cookie value, or undefined (unknown, expired, signed out, key revoked). */
    async resolve(sessionId: string | undefined): Promise<DashboardSession | undefined> {
      if (!sessionId || !SESSION_ID.test(sessionId)) return undefined;
      const idHash = hashId(sessionId);
      const row = await repo.findLiveSession(db, idHash, clock.now());
      if (!row) return undefined;
      const ref = idHash.slice(0, 12);
      const csrfToken = mac('dashboard-form', idHash);
      if (row.kind === 'operator') {
        // Turning the operator token off ends operator sessions too.
        return settings.operatorToken === undefined ? undefined : { kind: 'operator', ref, csrfToken };
      }
      if (!row.developer_id || !row.api_key_id) return undefined;
      const result = await developers.sessionDeveloper(row.developer_id, row.api_key_id);
      if (!result.ok) {
        // The key is gone or the developer suspended: this session is over for good.
        await repo.revokeSession(db, idHash, clock.now());
        return undefined;
      }
      return { kind: 'developer', developer: result.developer, keyId: row.api_key_id, ref, csrfToken };
    },

    checkFormToken: (session: DashboardSession, token: string) => constantTimeEqual(token, session.csrfToken),

    async signOut(sessionId: string | undefined): Promise<void> {
      if (!sessionId || !SESSION_ID.test(sessionId)) return;
      await repo.revokeSession(db, hashId(sessionId), clock.now());
    },

    /** Records one dashboard action; called after the service it fronts succeeded. */
    async audit(
      session: DashboardSession,
      entry: { action: string; target?: string | null; developerId?: string | null },
    ): Promise<void> {
      await repo.insertAuditEntry(db, {
        actor: session.kind,
        developer_id:
          entry.developerId !== undefined
            ? entry.developerId
            : session.kind === 'developer'
              ? session.developer.id
              : null,
        session_ref: session.ref,
        action: entry.action,
        target: entry.target ?? null,
        at: clock.now(),
      });
    },

    /**
     * Records one call a developer made outside the dashboard (the MCP server's tool calls): the
     * developer, a short non-secret reference to the credential used, the action and its target.
     */
    async auditApiCall(entry: { developerId: string; ref: string; action: string; target?: string | null }) {
      await repo.insertAuditEntry(db, {
        actor: 'developer',
        developer_id: entry.developerId,
        session_ref: entry.ref,
        action: entry.action,
        target: entry.target ?? null,
        at: clock.now(),
      });
    },

    async auditLog(filter: { developerId?: string }, limit = 50): Promise<AuditEntry[]> {
      const rows = await repo.listAuditEntries(db, filter, limit);
      return rows.map((row) => ({
        actor: row.actor,
        developerId: row.developer_id,
        sessionRef: row.session_ref,
        action: row.action,
        target: row.target,
        at: row.at,
      }));
    },
  };
}

export type DashboardService = ReturnType<typeof createDashboardService>;
