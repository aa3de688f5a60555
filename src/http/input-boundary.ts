// The one input boundary: every request passes it before authentication, parsing results or
// a handler are trusted. Strings from outside (URL, headers, body) carry no NUL or control
// characters, are well-formed and within length; bodies are bounded in depth and array size;
// numbers are finite and, through the route schemas, range checked. A violation is a 400
// problem naming the parameter, never a database error turned 500.
import { invalidParameter } from '../core/errors.ts';
import type { App } from './app-type.ts';
import { bodyProblem, headerProblem, urlProblem } from './input-limits.ts';
import { boundRouteSchema } from './schema-bounds.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A route whose documented body holds longer lists (a route's 10,000 waypoints) raises the
     * array bound here; its schema still bounds each list exactly.
     */
    maxArrayItems?: number;
  }
}

export function registerInputBoundary(app: App) {
  // Before any route registers: each gets default bounds on what its schema left open.
  app.addHook('onRoute', (route) => {
    if (route.schema) route.schema = boundRouteSchema(route.schema);
  });

  // Registered before authentication, so hostile credentials are refused as input, not looked up.
  app.addHook('onRequest', (request, _reply, done) => {
    const problem = urlProblem(request.url) ?? headerProblem(request.headers);
    if (problem) throw invalidParameter(problem.name, problem.problem);
    done();
  });

  // Whatever parser produced the body (JSON, a hosted form), it is walked before validation.
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body === undefined) return done();
    const problem = bodyProblem(request.body, request.routeOptions.config.maxArrayItems);
    if (problem) throw invalidParameter(problem.name, problem.problem);
    done();
  });
}
