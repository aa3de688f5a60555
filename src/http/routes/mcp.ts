// The MCP server (docs/mcp.md): `/mcp` speaks the Model Context Protocol over the Streamable HTTP
// transport of the official SDK, stateless (a server and a transport per request, JSON answers),
// so any API process answers any call. Authentication is the API's (dev-id + x-api-key) or a
// per-user token (`Authorization: Bearer`), minted and revoked under /v2/mcp/tokens. Thin: the
// mcp feature decides; this file is protocol glue.
import Type from 'typebox';
import type { z as Zod } from 'zod';
import { AppError, ERROR_KINDS } from '../../core/errors.ts';
import { version } from '../../core/version.ts';
import type { AppContext } from '../../features/context.ts';
import { COMPACT_TYPES } from '../../features/mcp/compact.ts';
import { McpTokenBody, McpTokenParams, McpTokenResponse } from '../../features/mcp/schemas.ts';
import { MAX_WINDOW_DAYS, type McpPrincipal } from '../../features/mcp/service.ts';
import type { App } from '../app-type.ts';

const tags = ['mcp'];
const Nothing = Type.Null({ description: 'No body' });

/**
 * The SDK and zod load with the first /mcp request, not at start-up: a process that never serves
 * an assistant pays nothing for them (bench/cold-start.ts).
 */
let loading: Promise<Sdk> | undefined;
type Sdk = Awaited<ReturnType<typeof loadSdk>>;
async function loadSdk() {
  const [{ McpServer }, { StreamableHTTPServerTransport }, { z }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('zod'),
  ]);
  return { McpServer, StreamableHTTPServerTransport, tools: toolsWith(z) };
}
const sdk = () => (loading ??= loadSdk());

const toolsWith = (z: typeof Zod) => {
  const date = (what: string) => z.string().describe(`${what} (YYYY-MM-DD, inclusive)`);
  const window = {
    start_date: date('first day'),
    end_date: date(`last day; at most ${MAX_WINDOW_DAYS} days after start_date`),
  };

  return {
    list_users: {
      description:
        'Lists the users (connections to a provider) this credential may read: user_id, provider, reference_id (the developer’s id for the person), active. A per-user token lists its one user.',
      inputSchema: {},
    },
    read_data: {
      description:
        'Reads one user’s (user_id) or one person’s (reference_id: their connections merged) daily, sleep, activity or body records for a date range, in a compact form (summary numbers; computed scores under recovery/sleep_score).',
      inputSchema: {
        type: z.enum(COMPACT_TYPES).describe('the record type'),
        user_id: z.string().optional().describe('a user (connection) id; or give reference_id'),
        reference_id: z
          .string()
          .optional()
          .describe('a person: the developer’s reference_id shared by their connections'),
        ...window,
      },
    },
    get_scores: {
      description:
        'Scores Tributary computes for one user per day (recovery 0–100, sleep score, resting HR and HRV against a 21-day baseline, training load and acute:chronic ratio; docs/scores.md) and their trends over the range (slope per day, first and last week means). Null where a baseline is still too short.',
      inputSchema: { user_id: z.string().describe('a user (connection) id'), ...window },
    },
    list_lab_results: {
      description:
        'Lists lab-report results (biomarker, value, unit, flag, reference range) of a person, newest report first, by reference_id or by a user_id carrying one.',
      inputSchema: {
        user_id: z.string().optional(),
        reference_id: z.string().optional(),
        limit: z.number().int().optional().describe('reports, 1–50 (default 10)'),
      },
    },
  } as const;
};
type ToolName = keyof ReturnType<typeof toolsWith>;

function header(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** One MCP server for one request, its tools calling the feature as `principal`. */
function serverFor(ctx: AppContext, principal: McpPrincipal, { McpServer, tools }: Sdk) {
  const server = new McpServer({ name: 'tributary', version });
  for (const [name, tool] of Object.entries(tools)) {
    server.registerTool(
      name,
      { description: tool.description, inputSchema: tool.inputSchema },
      async (args: Record<string, unknown>) => {
        try {
          const result = await ctx.mcp.call(principal, name as ToolName, args);
          return {
            content: [{ type: 'text' as const, text: JSON.stringify(result) }],
            structuredContent: result,
          };
        } catch (error) {
          if (!(error instanceof AppError) || error.kind === 'internal') throw error;
          // A refusal the assistant can act on: the status and the problem's detail, as the API says it.
          return {
            isError: true,
            content: [
              {
                type: 'text' as const,
                text: `${error.status} ${ERROR_KINDS[error.kind].title}: ${error.message}`,
              },
            ],
          };
        }
      },
    );
  }
  return server;
}

export function registerMcpRoutes(app: App, ctx: AppContext) {
  const config = { auth: 'developer' as const };

  app.post(
    '/v2/mcp/tokens',
    {
      config,
      schema: {
        tags,
        summary: 'Mint a per-user MCP token: one user, read-only, expiring',
        description:
          'The token lets an AI assistant read this one user through the MCP server at /mcp (docs/mcp.md) with ' +
          '`Authorization: Bearer <token>`, and nothing else: no other user, no person, no writes. It is shown only in ' +
          'this answer (only its hash is kept). Another developer’s user or an unknown one: 404.',
        body: McpTokenBody,
        response: { 201: McpTokenResponse },
      },
    },
    async (request, reply) => reply.code(201).send(await ctx.mcp.mintToken(request.developer, request.body)),
  );

  app.delete(
    '/v2/mcp/tokens/:token_id',
    {
      config,
      schema: {
        tags,
        summary: 'Revoke a per-user MCP token at once',
        params: McpTokenParams,
        response: { 204: Nothing },
      },
    },
    async (request, reply) => {
      await ctx.mcp.revokeToken(request.developer, request.params.token_id);
      return reply.code(204).send(null);
    },
  );

  // The protocol endpoint. Not in the OpenAPI document: it is one JSON-RPC endpoint whose
  // operations are the MCP methods and tools, which an MCP client discovers itself (tools/list).
  const mcpRoute = { config: { auth: 'none' as const }, schema: { hide: true } as object };
  app.post('/mcp', mcpRoute, async (request, reply) => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(header(request.headers.authorization) ?? '')?.[1];
    const principal = await ctx.mcp.authenticate({
      ...(bearer ? { bearer } : {}),
      ...(header(request.headers['dev-id']) ? { devId: header(request.headers['dev-id'])! } : {}),
      ...(header(request.headers['x-api-key']) ? { apiKey: header(request.headers['x-api-key'])! } : {}),
    });
    const loaded = await sdk();
    const server = serverFor(ctx, principal, loaded);
    const transport = new loaded.StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    // The SDK writes the answer to the socket itself.
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  // Stateless: no server-sent stream to open and no session to end (the transport's own answer).
  const notAllowed = async () => {
    throw new AppError('method_not_allowed', 'the MCP server is stateless: POST JSON-RPC requests to /mcp');
  };
  app.get('/mcp', mcpRoute, notAllowed);
  app.delete('/mcp', mcpRoute, notAllowed);
}
