import { sql } from 'kysely';
import type { Registry } from 'prom-client';
import Type, { type Static } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../app-type.ts';
import type { Db } from '../../store/db.ts';
import { migrationState } from '../../store/migrate.ts';
import type { StartupProgress } from '../startup-gate.ts';

const Liveness = Type.Object({ status: Type.Literal('ok') });
const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
  database: Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]),
  pending_migrations: Type.Array(Type.String()),
  /** What a starting process is doing (startup-gate.ts); absent once it serves. */
  startup: Type.Optional(
    Type.Union([Type.Literal('waiting_for_database'), Type.Literal('migrating'), Type.Literal('starting')]),
  ),
});

/**
 * Probes answer with JSON they serialize themselves: the response schemas stay for the API's
 * document, but compiling their serializers (a union needs Ajv) took a start-up's first probe
 * ~250 ms of CPU while the process was still starting.
 */
const json = (reply: FastifyReply, code: number, body: Static<typeof Readiness> | Static<typeof Liveness>) =>
  reply.code(code).type('application/json; charset=utf-8').send(JSON.stringify(body));

export function registerOpsRoutes(
  app: App,
  deps: { db: Db; schema: string | undefined; metrics: Registry; startup: StartupProgress },
) {
  app.get(
    '/health',
    {
      config: { auth: 'none' },
      schema: { tags: ['operations'], summary: 'Liveness', response: { 200: Liveness } },
    },
    async (_request, reply) => json(reply, 200, { status: 'ok' }),
  );

  app.get(
    '/ready',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['operations'],
        summary: 'Readiness: database reachable and every migration applied',
        response: { 200: Readiness, 503: Readiness },
      },
    },
    async (_request, reply) => {
      const startup = deps.startup.stage();
      // While starting, the answer comes from the start-up itself: a probe must not queue behind
      // the migrations (embedded storage has one connection) or wait out a connect timeout.
      if (startup !== 'serving')
        return json(reply, 503, {
          status: 'not_ready',
          database: startup === 'waiting_for_database' ? 'unreachable' : 'ok',
          pending_migrations: [],
          startup,
        });
      let database: 'ok' | 'unreachable' = 'ok';
      let pending: string[] = [];
      try {
        await sql`select 1`.execute(deps.db);
        // One read of the bookkeeping table (the migrator's own check is a dozen round trips).
        pending = (await migrationState(deps.db, deps.schema)).pending;
      } catch {
        database = 'unreachable';
      }
      const ready = database === 'ok' && pending.length === 0;
      return json(reply, ready ? 200 : 503, {
        status: ready ? 'ready' : 'not_ready',
        database,
        pending_migrations: pending,
      });
    },
  );

  app.get(
    '/metrics',
    {
      config: { auth: 'none' },
      schema: { tags: ['operations'], summary: 'Prometheus metrics', hide: true } as object,
    },
    async (_request, reply) => reply.type(deps.metrics.contentType).send(await deps.metrics.metrics()),
  );
}
