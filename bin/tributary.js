#!/usr/bin/env node
// Runs the TypeScript sources directly (Node 24 strips types); no build step.
import { main } from '../src/main.ts';

main(process.argv.slice(2)).then(
  (code) => {
    // `serve` keeps running; every other command ends here.
    if (process.argv[2] !== 'serve') process.exit(code);
    else if (code !== 0) process.exit(code);
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
