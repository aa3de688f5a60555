// Writes `.env.example` from the settings schema (src/runtime/settings.ts):
//
//   npm run settings:env-example            rewrite .env.example
//   npm run settings:env-example -- --check exit 1 when it is stale
//
// test/unit/settings-env-example.test.ts fails when the committed file is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { envExample } from '../src/runtime/settings.ts';

const file = fileURLToPath(new URL('../.env.example', import.meta.url));
const expected = envExample();
let current = '';
try {
  current = readFileSync(file, 'utf8');
} catch {
  // A missing file is stale.
}
if (process.argv.includes('--check')) {
  if (current !== expected) {
    console.error('.env.example is stale: run npm run settings:env-example');
    process.exit(1);
  }
  console.log('.env.example is up to date');
} else if (current === expected) {
  console.log('.env.example is up to date');
} else {
  writeFileSync(file, expected);
  console.log('wrote .env.example');
}
