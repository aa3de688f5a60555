/**
 * How a CLI reaches the server that owns embedded storage: a Unix socket in the data directory
 * (mode 0600, in a 0700 directory), or 127.0.0.1 and a port when the socket path would be too
 * long for the platform. Either way every request carries the random token published, 0600, in
 * the data directory's lock file.
 */
export type AdminEndpoint = { socket?: string; host?: string; port?: number; token: string };

export type CommandRequest = { argv: string[] };
export type CommandResult = { exit_code: number; stdout: string; stderr: string };

export const COMMANDS_PATH = '/commands';
