import type { FastifyRequest } from 'fastify';
import { AppError, forbidden } from '../core/errors.ts';
import type { Developer, DevelopersService } from '../features/developers/service.ts';
import type { App } from './app-type.ts';

/**
 * Every route under the API prefixes must say how it is authenticated; a route that forgets
 * fails the boot instead of going out public.
 * - `developer`: `dev-id` (or `dev_id`, header or query) plus `x-api-key`.
 * - `developer-or-basic`: the same, or `Authorization: Basic base64(dev-id:api-key)` (order API).
 * - `none`: public (integrations list, hosted pages, provider callbacks).
 */
export type AuthMode = 'none' | 'developer' | 'developer-or-basic';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
  }
  interface FastifyRequest {
    developer: Developer;
  }
  interface FastifyInstance {
    authenticatedRoutes: { method: string; url: string; auth: Exclude<AuthMode, 'none'> }[];
  }
}

const API_PREFIXES = ['/v2/', '/v3/', '/api/'];

type Credentials = { devId: string; apiKey: string };

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function queryValue(request: FastifyRequest, name: string): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function basicCredentials(request: FastifyRequest): Credentials | undefined {
  const header = headerValue(request, 'authorization');
  const match = header?.match(/^Basic\s+([A-Za-z0-9+/=]+)$/i);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { devId: decoded.slice(0, colon), apiKey: decoded.slice(colon + 1) };
}

function extractCredentials(request: FastifyRequest, mode: AuthMode): Credentials | undefined {
  const devId =
    headerValue(request, 'dev-id') ??
    headerValue(request, 'dev_id') ??
    queryValue(request, 'dev-id') ??
    queryValue(request, 'dev_id');
  const apiKey = headerValue(request, 'x-api-key');
  if (devId && apiKey) return { devId, apiKey };
  if (mode === 'developer-or-basic') return basicCredentials(request);
  return undefined;
}

export function registerAuthentication(app: App, developers: DevelopersService) {
  app.decorate('authenticatedRoutes', []);
  app.decorateRequest('developer', null as unknown as Developer);

  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (auth === undefined && API_PREFIXES.some((prefix) => route.url.startsWith(prefix))) {
      throw new Error(`route ${methods.join(',')} ${route.url} must declare config.auth`);
    }
    if (auth && auth !== 'none') {
      for (const method of methods) {
        if (method !== 'HEAD') app.authenticatedRoutes.push({ method, url: route.url, auth });
      }
    }
  });

  app.addHook('onRequest', async (request) => {
    const mode = request.routeOptions.config.auth ?? 'none';
    if (mode === 'none') return;
    const credentials = extractCredentials(request, mode);
    if (!credentials) {
      throw new AppError(
        'unauthorized',
        mode === 'developer-or-basic'
          ? 'dev-id and x-api-key headers (or Basic authorization) are missing'
          : 'dev-id or x-api-key headers are missing',
      );
    }
    const result = await developers.authenticate(credentials.devId, credentials.apiKey);
    if (!result.ok) {
      throw result.kind === 'forbidden'
        ? forbidden(result.detail)
        : new AppError('unauthorized', result.detail);
    }
    request.developer = result.developer;
  });
}
