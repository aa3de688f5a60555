/* global process, fetch, AbortSignal */
// The image's HEALTHCHECK: the API answers /health on its port. A worker has no listener; it
// is healthy while it runs (it exits on a fatal error), so the check passes for it.
import { readFileSync } from 'node:fs';

const command = readFileSync('/proc/1/cmdline', 'utf8').split('\0');
const role = command[command.indexOf('--role') + 1];
if (command.includes('--role') && role === 'worker') process.exit(0);

const port = process.env.PORT ?? '8080';
const path = process.argv[2] ?? '/health';
try {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(3000) });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
