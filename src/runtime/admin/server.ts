import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { AppContext } from '../../features/context.ts';
import { executeCommand, STORE_COMMANDS } from '../cli/commands.ts';
import { runInSession } from '../cli/session.ts';
import { type AdminEndpoint, COMMANDS_PATH, type CommandRequest, type CommandResult } from './endpoint.ts';

/** Unix socket paths longer than this do not fit `sockaddr_un` on every platform. */
const MAX_SOCKET_PATH_BYTES = 100;
const MAX_REQUEST_BYTES = 64 * 1024;

export type AdminServer = { endpoint: AdminEndpoint; close(): Promise<void> };

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

async function readRequest(request: IncomingMessage): Promise<CommandRequest | undefined> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as CommandRequest;
    return Array.isArray(parsed.argv) && parsed.argv.every((arg) => typeof arg === 'string')
      ? parsed
      : undefined;
  } catch {
    return undefined;
  }
}

/** Runs one CLI command inside this process, on its own context, and collects what it prints. */
async function runForCli(ctx: AppContext, log: Logger, argv: string[]): Promise<CommandResult> {
  const result: CommandResult = { exit_code: 0, stdout: '', stderr: '' };
  const [name, ...args] = argv;
  if (!name || !STORE_COMMANDS[name]) {
    return {
      ...result,
      exit_code: 2,
      stderr: `tributary: "${name ?? ''}" cannot be sent to a running server\n`,
    };
  }
  const session = {
    context: ctx,
    stdout: (text: string) => {
      result.stdout += text;
    },
    stderr: (text: string) => {
      result.stderr += text;
    },
  };
  try {
    result.exit_code = await runInSession(session, () => executeCommand(name, ctx.config, args));
  } catch (error) {
    log.error({ err: error, command: name }, 'command from the CLI failed');
    result.exit_code = 1;
    result.stderr += `tributary: ${name} failed in the running server: ${(error as Error).message} (details in the server log)\n`;
  }
  log.info({ command: name, exitCode: result.exit_code }, 'ran a command from the CLI');
  return result;
}

/**
 * The running server's admin interface: CLI commands run here, in the process that owns the
 * embedded store, so they take effect at once and nothing writes to the files behind its back.
 */
export async function startAdminServer(options: {
  dataDir: string;
  ctx: AppContext;
  log: Logger;
}): Promise<AdminServer> {
  const { ctx, log } = options;
  const token = randomBytes(32).toString('base64url');
  const answer = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server = createServer((request, response) => {
    void (async () => {
      const given = (request.headers.authorization ?? '').replace(/^Bearer /, '');
      if (!sameToken(given, token)) return answer(response, 401, { error: 'unauthorized' });
      if (request.method !== 'POST' || request.url !== COMMANDS_PATH)
        return answer(response, 404, { error: 'not found' });
      const body = await readRequest(request);
      if (!body) return answer(response, 400, { error: 'expected {"argv": [string, …]}' });
      answer(response, 200, await runForCli(ctx, log, body.argv));
    })().catch((error: unknown) => {
      log.error({ err: error }, 'admin request failed');
      if (!response.headersSent) answer(response, 500, { error: 'internal error' });
    });
  });

  const socket = join(options.dataDir, 'admin.sock');
  let endpoint: AdminEndpoint;
  if (Buffer.byteLength(socket) <= MAX_SOCKET_PATH_BYTES) {
    // A socket file left by a process that died is ours to replace: we hold the data dir's lock.
    rmSync(socket, { force: true });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socket, resolve));
    chmodSync(socket, 0o600);
    endpoint = { socket, token };
  } else {
    await new Promise<void>((resolve, reject) =>
      server.once('error', reject).listen(0, '127.0.0.1', resolve),
    );
    endpoint = { host: '127.0.0.1', port: (server.address() as AddressInfo).port, token };
  }

  return {
    endpoint,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
