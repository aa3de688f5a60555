// The child side of isolation.ts: started by `runIsolated` with its limits on the command line, it
// loads the task module, runs it on the input and reports the result or the error. It exits when
// its parent goes away (an isolated task never outlives the process that watches it).
import module from 'node:module';
import type { FromChild, ToChild } from './isolation.ts';

// Each task starts a fresh process: V8's cache of compiled code (pdfjs is megabytes) shortens that.
module.enableCompileCache?.();

export type IsolationChannel<Message, Answer> = {
  /** Hands the parent a message; resolves with the parent's answer (so the task waits for it). */
  send(message: Message): Promise<Answer>;
};

/** What a task module exports. */
export type IsolatedTaskModule<Input, Result, Message = never, Answer = void> = {
  run(input: Input, channel: IsolationChannel<Message, Answer>): Promise<Result>;
  /**
   * Optional: called when the child was forked ahead of its input (isolation.ts `prepareIsolated`),
   * with the caller's hint, to load what `run` will need while the caller gets the input ready.
   */
  prepare?(hint: unknown): Promise<void>;
};

const USAGE_INTERVAL_MS = 250;
const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
let nextId = 1;

const post = (message: FromChild) =>
  new Promise<void>((resolve) => {
    if (!process.connected) return resolve();
    process.send!(message, undefined, {}, () => resolve());
  });

const channel: IsolationChannel<unknown, unknown> = {
  send(value) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      void post({ type: 'message', id, value });
    });
  },
};

/** The task module loading ahead of its input (a `prepare` message), if it was prepared. */
let preparing: Promise<unknown> | undefined;

async function prepare(task: string, hint: unknown) {
  const module = (await import(task)) as IsolatedTaskModule<unknown, unknown, unknown, unknown>;
  await module.prepare?.(hint);
}

async function start(task: string, input: unknown) {
  // What preparing failed to load, the run below loads again and reports.
  await preparing?.catch(() => {});
  const usage = setInterval(() => {
    void post({
      type: 'usage',
      rssBytes: process.memoryUsage.rss(),
      cpuMs: Math.round((process.cpuUsage().user + process.cpuUsage().system) / 1000),
    });
  }, USAGE_INTERVAL_MS);
  usage.unref();
  try {
    const module = (await import(task)) as IsolatedTaskModule<unknown, unknown, unknown, unknown>;
    const value = await module.run(input, channel);
    await post({ type: 'result', value });
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    await post({ type: 'error', name: failure.name, message: failure.message });
  }
  process.exit(0);
}

process.on('message', (raw) => {
  const message = raw as ToChild;
  if (message.type === 'prepare') preparing = prepare(message.task, message.hint);
  else if (message.type === 'start') void start(message.task, message.input);
  else if (message.type === 'answer') {
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) waiting?.reject(new Error(message.error));
    else waiting?.resolve(message.value);
  }
});
process.on('disconnect', () => process.exit(1));
