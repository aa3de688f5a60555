// `tributary listen` driven from a test: its command run in a session of its own (what it prints
// collected), against a Tributary listening on a real socket, and the developer's REST calls to
// that same socket. Shared by the listen tests (cli-listen*.test.ts).
import type { Config } from '../../src/core/config.ts';
import { listenCommand } from '../../src/runtime/cli/listen.ts';
import { runInSession } from '../../src/runtime/cli/session.ts';
import type { TestDeveloper } from './app.ts';
import { until } from './until.ts';

/** A REST call as the developer, over the socket at `api` (JSON body when given). */
export function callApi(api: string, developer: TestDeveloper, method: string, path: string, body?: unknown) {
  return fetch(`${api}${path}`, {
    method,
    headers: {
      ...developer.headers,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

export type ListenSession = {
  /** What the command printed so far. */
  output: { stdout: string; stderr: string };
  /** The command's exit status, once it stops. */
  exit: Promise<number>;
  /** The address it listens on, as it printed it. */
  listenerUrl: string;
};

/**
 * Runs `tributary listen` as `developer` against the Tributary at `api`, with `extra` options;
 * resolves once it says it is ready (or rejects with the command's own error if it stops first).
 */
export async function startListen(
  config: Config,
  api: string,
  developer: TestDeveloper,
  extra: string[],
): Promise<ListenSession> {
  const output = { stdout: '', stderr: '' };
  const exit = runInSession(
    {
      stdout: (text) => {
        output.stdout += text;
      },
      stderr: (text) => {
        output.stderr += text;
      },
    },
    () =>
      listenCommand(config, [
        '--api-url',
        api,
        '--dev-id',
        developer.devId,
        '--api-key',
        developer.apiKey,
        '--secret',
        developer.webhookSecret,
        ...extra,
      ]),
  );
  let failed: unknown;
  exit.catch((error: unknown) => {
    failed = error;
  });
  const listenerUrl = await until(
    'the listener to say it is ready',
    () => {
      if (failed) throw failed as Error;
      return /now go to (http:\/\/\S+\/)/.exec(output.stderr)?.[1];
    },
    { intervalMs: 20, show: () => output.stderr },
  );
  return { output, exit, listenerUrl: listenerUrl! };
}
