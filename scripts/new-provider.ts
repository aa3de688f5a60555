// Adds a provider, or regenerates the provider registry (docs/adding-a-provider.md):
//
//   npm run new-provider -- <ID> <folder>   e.g. npm run new-provider -- ACME_HEALTH acme_health
//   npm run new-provider -- --index         rewrite src/providers/index.ts from the folders
//
// (or node_modules/.bin/node scripts/new-provider.ts …). Works on the repository this file is in.
import { fileURLToPath } from 'node:url';
import { INDEX_FILE, writeIndex } from './provider-scaffold/index-file.ts';
import { scaffoldProvider } from './provider-scaffold/scaffold.ts';

const USAGE = `usage: new-provider <ID> <folder>   scaffold a provider (ID: ACME_HEALTH, folder: acme_health)
       new-provider --index          regenerate ${INDEX_FILE} from the provider folders`;

const root = fileURLToPath(new URL('..', import.meta.url));

async function main(args: string[]): Promise<number> {
  if (args.length === 1 && args[0] === '--index') {
    const changed = await writeIndex(root);
    console.log(changed ? `wrote ${INDEX_FILE}` : `${INDEX_FILE} is up to date`);
    return 0;
  }
  const [id, folder, ...rest] = args;
  if (!id || !folder || rest.length > 0 || id.startsWith('-')) {
    console.error(USAGE);
    return 2;
  }
  const written = await scaffoldProvider(root, id, folder);
  console.log(`wrote\n${written.map((path) => `  ${path}`).join('\n')}

next (docs/adding-a-provider.md):
  node_modules/.bin/node --test test/integration/connector-${folder}.test.ts   runs now, marked todo
  then replace the placeholder API in src/providers/${folder}/ and test/fakes/${folder}.ts with the real one`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`new-provider: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
