import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  missingFlags,
  roleOf,
  TUNED_MARKER,
  tunedLaunch,
  v8FlagsFor,
} from '../../src/runtime/memory-limits.js';

describe('the memory sizing tributary serve gives itself', () => {
  it('sizes V8 by role: an old-space ceiling where HTTP reads stream, and never --expose-gc (it voids the code caches)', () => {
    const reading = ['--max-semi-space-size=2', '--max-old-space-size=384'];
    assert.deepEqual(v8FlagsFor('all'), reading);
    assert.deepEqual(v8FlagsFor('api'), reading);
    assert.deepEqual(v8FlagsFor('worker'), ['--max-semi-space-size=2']);
  });

  it('reads the role from serve’s arguments', () => {
    assert.equal(roleOf([]), 'all');
    assert.equal(roleOf(['--role', 'api']), 'api');
    assert.equal(roleOf(['--role', 'worker']), 'worker');
    assert.equal(roleOf(['--role']), 'all');
  });

  it('leaves out a flag the operator gave, by name, in either spelling or negated', () => {
    assert.deepEqual(
      missingFlags(['--max-semi-space-size=2', '--max-old-space-size=384'], ['--max_semi_space_size=16']),
      ['--max-old-space-size=384'],
    );
    assert.deepEqual(missingFlags(['--liftoff-only'], ['--no-liftoff-only']), []);
  });

  it('re-executes serve once, marking the new image, keeping the operator’s GLIBC_TUNABLES', () => {
    const launch = tunedLaunch(['serve', '--role', 'api'], { DATABASE_URL: 'postgres://x/y' }, ['--inspect']);
    assert.ok(launch);
    assert.deepEqual(launch.execArgv, ['--max-semi-space-size=2', '--max-old-space-size=384', '--inspect']);
    assert.equal(launch.env[TUNED_MARKER], '1');
    assert.match(launch.env.GLIBC_TUNABLES ?? '', /glibc\.malloc\.arena_max=2/);

    const own = tunedLaunch(['serve'], { GLIBC_TUNABLES: 'glibc.malloc.arena_max=8' }, []);
    assert.equal(own?.env.GLIBC_TUNABLES, 'glibc.malloc.arena_max=8');
    assert.deepEqual(own?.execArgv, ['--max-semi-space-size=2', '--max-old-space-size=384']);

    const viaNodeOptions = tunedLaunch(['serve'], { NODE_OPTIONS: '--max-old-space-size=1024' }, []);
    assert.ok(!viaNodeOptions?.execArgv.some((flag) => flag.startsWith('--max-old-space-size')));
  });

  it('does nothing for other commands, an already tuned image, or when turned off', () => {
    assert.equal(tunedLaunch(['migrate'], {}, []), null);
    // An embedded export import runs in the CLI process: it gets the service's settings.
    assert.deepEqual(tunedLaunch(['import', 'apple-health', 'export.zip'], {}, [])?.execArgv, [
      '--max-semi-space-size=2',
      '--max-old-space-size=384',
    ]);
    assert.equal(tunedLaunch(['serve'], { [TUNED_MARKER]: '1' }, []), null);
    assert.equal(tunedLaunch(['serve'], { TRIBUTARY_MEMORY_TUNING: 'off' }, []), null);
  });

  it('does not re-execute a process started with every setting already', () => {
    const everything = ['--max-semi-space-size=2', '--max-old-space-size=512'];
    assert.equal(tunedLaunch(['serve'], { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }, everything), null);
    assert.equal(
      tunedLaunch(['serve'], { GLIBC_TUNABLES: '', NODE_OPTIONS: everything.join(' ') }, []),
      null,
    );
    // One setting missing (malloc's, or a flag) is still applied by the re-exec.
    assert.ok(tunedLaunch(['serve'], {}, everything));
    assert.ok(tunedLaunch(['serve'], { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }, everything.slice(1)));
  });
});
