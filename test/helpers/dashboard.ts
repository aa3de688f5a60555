import assert from 'node:assert/strict';
import type { App } from '../../src/http/app-type.ts';

/**
 * A browser stand-in for the dashboard over `inject`: keeps the cookies the server sets (by
 * name, honouring removals) and sends them back, and reads the form token out of each page.
 */
export type DashboardResponse = { statusCode: number; body: string; headers: Record<string, unknown> };

export function formTokenIn(html: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  assert.ok(match?.[1], 'the page has a form token');
  return match[1];
}

export class DashboardClient {
  readonly cookies = new Map<string, string>();
  lastSetCookies: string[] = [];
  private readonly app: App;
  /** Sent with every request (e.g. x-forwarded-proto behind a trusted proxy). */
  private readonly headers: Record<string, string>;
  constructor(app: App, headers: Record<string, string> = {}) {
    this.app = app;
    this.headers = headers;
  }

  private remember(response: { headers: Record<string, unknown> }) {
    const raw = response.headers['set-cookie'];
    const list = raw === undefined ? [] : Array.isArray(raw) ? (raw as string[]) : [String(raw)];
    this.lastSetCookies = list;
    for (const line of list) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private cookieHeader() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async get(url: string): Promise<DashboardResponse> {
    const response = await this.app.inject({
      method: 'GET',
      url,
      headers: { ...this.headers, cookie: this.cookieHeader() },
    });
    this.remember(response);
    return response;
  }

  async post(url: string, form: Record<string, string | string[]>): Promise<DashboardResponse> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) {
      for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
    }
    const response = await this.app.inject({
      method: 'POST',
      url,
      headers: {
        ...this.headers,
        cookie: this.cookieHeader(),
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: body.toString(),
    });
    this.remember(response);
    return response;
  }

  /** Posts a form from `page` (its form token included). */
  async submit(page: string, url: string, form: Record<string, string | string[]> = {}) {
    const token = formTokenIn((await this.get(page)).body);
    return this.post(url, { csrf: token, ...form });
  }

  async signIn(devId: string, apiKey: string): Promise<DashboardResponse> {
    const page = await this.get('/dashboard');
    return this.post('/dashboard/sign-in', { csrf: formTokenIn(page.body), dev_id: devId, api_key: apiKey });
  }
}
