// Tasks for test/integration/isolation.test.ts: each misbehaves in one way a hostile file makes a parser
// misbehave (heap growth, memory outside the heap, a CPU loop, a crash), or behaves (echo, chat).
import type { IsolationChannel } from '../../src/core/isolation-host.ts';

export type TaskInput =
  | { kind: 'echo'; value: unknown }
  | { kind: 'heap' }
  | { kind: 'buffers' }
  | { kind: 'spin' }
  | { kind: 'exit'; code: number }
  | { kind: 'throw'; message: string }
  | { kind: 'chat'; count: number }
  | { kind: 'sleep' }
  | { kind: 'pid' };

/** What `prepare` was given, when the child was forked ahead (isolation.ts prepareIsolated). */
let preparedWith: unknown;

export async function prepare(hint: unknown): Promise<void> {
  preparedWith = hint;
}

export async function run(input: TaskInput, channel: IsolationChannel<number, number>): Promise<unknown> {
  switch (input.kind) {
    case 'echo':
      return input.value;
    case 'heap': {
      const kept: unknown[] = [];
      for (;;) kept.push({ index: kept.length, text: `${kept.length}`.repeat(8) });
    }
    case 'buffers': {
      // Off-heap memory, touched so it is resident: what --max-old-space-size never sees.
      const kept: Buffer[] = [];
      for (;;) {
        kept.push(Buffer.alloc(16 * 1024 * 1024, 1));
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    case 'spin':
      for (;;);
    case 'exit':
      process.exit(input.code);
      break;
    case 'throw': {
      const error = new Error(input.message);
      error.name = 'PlantedError';
      throw error;
    }
    case 'chat': {
      let sum = 0;
      for (let index = 1; index <= input.count; index++) sum += await channel.send(index);
      return sum;
    }
    case 'sleep':
      await new Promise((resolve) => setTimeout(resolve, 600_000));
      return null;
    case 'pid':
      return { pid: process.pid, preparedWith };
  }
}
