// A restart with another ENCRYPTION_KEY fails at start with one line saying so and what to do
// (issue 40, row 10: it used to serve, accept events and leave deliveries pending with nothing
// logged). Over the real process start (`bin/tributary.js serve` as a child process); PostgreSQL
// with DATABASE_URL, embedded storage otherwise (where ENCRYPTION_KEY wins over the key file).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { childEnvironment, runCli, startService } from '../helpers/child-service.ts';

const storage = process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded storage';
const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

describe(`the encryption key is checked at start (${storage})`, () => {
  it(
    'another key exits non-zero with one line naming it; the right key starts',
    { timeout: 240_000 },
    async () => {
      const original = randomBytes(32).toString('hex');
      const environment = await childEnvironment({ ENCRYPTION_KEY: original });
      cleanups.push(() => environment.cleanup());

      const first = await startService(environment.env, ['serve'], 180_000);
      cleanups.push(() => first.stop('SIGKILL'));
      assert.equal(await first.stop(), 0, first.output());

      const wrong = { ...environment.env, ENCRYPTION_KEY: randomBytes(32).toString('hex') };
      const refused = await runCli(['serve'], wrong);
      assert.notEqual(
        refused.code,
        0,
        `serve with another key kept running:\n${refused.stdout}${refused.stderr}`,
      );
      const lines = refused.stderr.split('\n').filter((line) => line.includes('ENCRYPTION_KEY'));
      assert.equal(lines.length, 1, refused.stderr);
      assert.match(
        lines[0]!,
        /^tributary: ENCRYPTION_KEY does not match the key this database's secrets are sealed with/,
      );
      assert.match(lines[0]!, /start with the original key/);
      assert.ok(
        !lines[0]!.includes(wrong.ENCRYPTION_KEY) && !lines[0]!.includes(original),
        'no key in the message',
      );

      // A command that opens the store refuses the same way, before it can seal anything.
      const command = await runCli(
        ['developers', 'create', '--name', 'x', '--environment', 'sandbox'],
        wrong,
      );
      assert.notEqual(command.code, 0);
      assert.match(command.stderr, /ENCRYPTION_KEY does not match/);

      const again = await startService(environment.env, ['serve'], 180_000);
      cleanups.push(() => again.stop('SIGKILL'));
      assert.equal((await fetch(`${again.url}/ready`)).status, 200);
      assert.equal(await again.stop(), 0, again.output());
    },
  );
});
