import { request } from 'node:http';
import { type AdminEndpoint, COMMANDS_PATH, type CommandResult } from './endpoint.ts';

export class AdminUnreachable extends Error {
  override name = 'AdminUnreachable';
}

/** Sends a CLI command to the running server and returns what it printed and its exit status. */
export function sendCommand(endpoint: AdminEndpoint, argv: string[]): Promise<CommandResult> {
  const body = JSON.stringify({ argv });
  const target = endpoint.socket
    ? { socketPath: endpoint.socket }
    : { host: endpoint.host ?? '127.0.0.1', port: endpoint.port };
  return new Promise((resolve, reject) => {
    let sent = false;
    const outgoing = request(
      {
        ...target,
        method: 'POST',
        path: COMMANDS_PATH,
        headers: {
          authorization: `Bearer ${endpoint.token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode !== 200) {
            reject(new Error(`the running server refused the command (${response.statusCode}): ${text}`));
            return;
          }
          try {
            resolve(JSON.parse(text) as CommandResult);
          } catch {
            reject(new Error(`the running server answered something unreadable: ${text.slice(0, 200)}`));
          }
        });
      },
    );
    outgoing.on('error', (error) =>
      reject(
        sent
          ? new Error(
              `lost the connection to the running server before it answered (${error.message}); ` +
                'the command may or may not have taken effect',
            )
          : new AdminUnreachable(error.message),
      ),
    );
    outgoing.on('finish', () => {
      sent = true;
    });
    outgoing.end(body);
  });
}
