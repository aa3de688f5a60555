#!/usr/bin/env node
// Runs the TypeScript sources directly (Node 24 strips types); no build step. The compile
// cache keeps V8's compiled code between runs, which shortens every later start.
import module from 'node:module';

module.enableCompileCache?.();

// `serve` (and `import`) size their own memory (src/runtime/memory-limits.ts): V8 and malloc settings can only be
// given to a process image as it starts, so it re-executes itself once with them (same pid).
if (typeof process.execve === 'function') {
  const { tunedLaunch } = await import('../src/runtime/memory-limits.ts');
  const launch = tunedLaunch(process.argv.slice(2), process.env, process.execArgv);
  if (launch) {
    const script = process.argv[1];
    try {
      process.execve(
        process.execPath,
        [process.execPath, ...launch.execArgv, script, ...process.argv.slice(2)],
        launch.env,
      );
    } catch (error) {
      // Not fatal: the service runs with Node's default sizing instead.
      console.error(
        `tributary: could not apply its memory settings (${error.message}); running without them`,
      );
    }
  }
}

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
