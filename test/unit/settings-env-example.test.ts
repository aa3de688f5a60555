// `.env.example` is generated from the settings schema; a stale committed copy fails here (and so
// in CI). Fix: npm run settings:env-example.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { envExample } from '../../src/runtime/settings.ts';

test('.env.example is what the settings schema generates (npm run settings:env-example)', () => {
  const committed = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
  assert.equal(committed, envExample(), '.env.example is stale: run npm run settings:env-example');
});

test('.env.example documents every declared setting with a comment', () => {
  const lines = envExample().split('\n');
  lines.forEach((line, index) => {
    const assignment = /^(?:# )?([A-Z<][A-Z0-9_<>]*)=/.exec(line);
    if (!assignment) return;
    assert.match(lines[index - 1] ?? '', /^# /, `${assignment[1]} has a comment`);
  });
  for (const name of ['PORT', 'WEBHOOK_TIMEOUT', '<PROVIDER>_REQUEST_BUDGET', 'SUUNTO_SUBSCRIPTION_KEY'])
    assert.ok(
      lines.some((line) => line.replace(/^# /, '').startsWith(`${name}=`)),
      name,
    );
});
