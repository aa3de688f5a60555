#!/usr/bin/env node
// Runs the TypeScript sources directly (Node 24 strips types); no build step. The compile
// cache keeps V8's compiled code between runs, which shortens every later start.
import module from 'node:module';

module.enableCompileCache?.();
const { main } = await import('../src/runtime/main.ts');

main(process.argv.slice(2)).then(
  (code) => {
    // `serve` keeps running; every other command ends here.
    if (process.argv[2] !== 'serve' || code !== 0) process.exit(code);
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
