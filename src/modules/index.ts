import type { App } from '../http/app-type.ts';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';

/**
 * A feature area. `jobs` declares its queues (before the queue starts); `routes` registers
 * its HTTP routes. Each module owns its files; this list is the only place they meet.
 */
export type Module = {
  name: string;
  jobs?(ctx: AppContext): void;
  routes?(app: App, ctx: AppContext): void | Promise<void>;
};

export const modules: Module[] = [];
