// Tributary's mobile upload client. What a React Native or Capacitor app calls after reading
// HealthKit or Health Connect: connect once with the single-use token the developer's backend got
// from POST /v2/auth/generateAuthToken, then queue the platform's records as they are read and
// upload them in batches. The queue and the upload token live in a storage the app provides
// (AsyncStorage, Capacitor Preferences, a file), so a killed app resumes where it stopped.
// Uploads are idempotent on the server (by record id), so sending a batch twice is harmless:
// the client removes a batch from its queue only after the server accepted it (at least once).
// No runtime dependencies: it needs `fetch` (global, or passed in) and nothing else.

export type Platform = 'APPLE' | 'HEALTH_CONNECT' | 'SAMSUNG';

/** Where the client keeps its state; every method may be async. */
export interface KeyValueStorage {
  getItem(key: string): Promise<string | null> | string | null;
  setItem(key: string, value: string): Promise<void> | void;
  removeItem(key: string): Promise<void> | void;
}

/** In-memory storage (tests, or apps that do not need to survive a restart). */
export class MemoryStorage implements KeyValueStorage {
  private readonly values = new Map<string, string>();
  getItem(key: string): string | null {
    return this.values.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.values.set(key, value);
  }
  removeItem(key: string): void {
    this.values.delete(key);
  }
}

/** A platform record as the upload takes it (HealthKit export attributes, Health Connect record JSON). */
export type PlatformRecord = Record<string, unknown>;

/** What an upload carries: the platform's own records, named as the platform names them. */
export type UploadItems = {
  records?: PlatformRecord[];
  workouts?: PlatformRecord[];
  activity_summaries?: PlatformRecord[];
  /** Ids of records the platform reports deleted. */
  deletions?: string[];
};

type Field = keyof UploadItems;
type QueuedItem = { field: Field; value: unknown };

export type RetryOptions = {
  /** Tries per batch before flush gives up (the batch stays queued). Default 6. */
  attempts: number;
  /** First backoff; doubled per retry, with full jitter. Default 500 ms. */
  baseDelayMs: number;
  maxDelayMs: number;
};

export type ClientOptions = {
  /** Tributary's public URL, e.g. https://health.example.com */
  baseUrl: string;
  platform: Platform;
  storage?: KeyValueStorage;
  /** Namespaces the storage keys (several users or platforms in one app). Default `tributary`. */
  storageKey?: string;
  fetch?: typeof fetch;
  /** Largest upload body the client builds (the server refuses larger ones with 413). Default 1 MB. */
  maxBatchBytes?: number;
  /** Most items per upload. Default 1000. */
  maxBatchItems?: number;
  retry?: Partial<RetryOptions>;
  /** For tests: how the client waits between retries. */
  sleep?: (ms: number) => Promise<void>;
  /** For tests: 0 <= random() < 1, for the backoff jitter. */
  random?: () => number;
};

/** The upload token is missing or was revoked (the user was deauthenticated): connect again. */
export class NotConnectedError extends Error {
  override name = 'NotConnectedError';
}

/** The server refused a request for good (4xx); `problem` is its application/problem+json body. */
export class RequestRejectedError extends Error {
  override name = 'RequestRejectedError';
  readonly status: number;
  readonly problem: { detail?: string; [key: string]: unknown } | null;
  constructor(status: number, problem: { detail?: string; [key: string]: unknown } | null) {
    super(`Tributary answered ${status}: ${problem?.detail ?? 'no detail'}`);
    this.status = status;
    this.problem = problem;
  }
}

/** Every retry of a batch failed (network, 5xx, 429); the batch is still queued. */
export class RetriesExhaustedError extends Error {
  override name = 'RetriesExhaustedError';
}

type State = { userId: string | null; uploadToken: string | null };

export type FlushResult = { batches: number; items: number; pending: number };

const encoder = new TextEncoder();
const byteLength = (text: string) => encoder.encode(text).length;

export class TributaryClient {
  private state: State = { userId: null, uploadToken: null };
  private queue: QueuedItem[] = [];
  private flushing: Promise<FlushResult> | null = null;
  private readonly options: Required<Omit<ClientOptions, 'retry' | 'fetch'>> & {
    retry: RetryOptions;
    fetch: typeof fetch;
  };

  private constructor(options: ClientOptions) {
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (!fetchImpl) throw new Error('no fetch available: pass options.fetch');
    this.options = {
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      platform: options.platform,
      storage: options.storage ?? new MemoryStorage(),
      storageKey: options.storageKey ?? 'tributary',
      fetch: fetchImpl,
      maxBatchBytes: options.maxBatchBytes ?? 1024 * 1024,
      maxBatchItems: options.maxBatchItems ?? 1000,
      retry: { attempts: 6, baseDelayMs: 500, maxDelayMs: 60_000, ...options.retry },
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      random: options.random ?? Math.random,
    };
  }

  /** A client with the state (connection and queue) its storage holds: call on every app start. */
  static async create(options: ClientOptions): Promise<TributaryClient> {
    const client = new TributaryClient(options);
    await client.load();
    return client;
  }

  get userId(): string | null {
    return this.state.userId;
  }

  get connected(): boolean {
    return this.state.uploadToken !== null;
  }

  /** Items waiting to be uploaded. */
  get pending(): number {
    return this.queue.length;
  }

  private key(name: string) {
    return `${this.options.storageKey}.${this.options.platform}.${name}`;
  }

  private async load() {
    const { storage } = this.options;
    const state = await storage.getItem(this.key('state'));
    const queue = await storage.getItem(this.key('queue'));
    if (state) this.state = JSON.parse(state) as State;
    if (queue) this.queue = JSON.parse(queue) as QueuedItem[];
  }

  private async saveState() {
    await this.options.storage.setItem(this.key('state'), JSON.stringify(this.state));
  }

  private async saveQueue() {
    await this.options.storage.setItem(this.key('queue'), JSON.stringify(this.queue));
  }

  /**
   * Spends the single-use token (from your backend's POST /v2/auth/generateAuthToken) and keeps
   * the connection's upload token. Returns the Tributary user id.
   */
  async connect(token: string, options: { referenceId?: string; device?: Record<string, unknown> } = {}) {
    const response = await this.send('/v2/sdk/connect', {
      token,
      resource: this.options.platform,
      ...(options.referenceId ? { reference_id: options.referenceId } : {}),
      ...(options.device ? { device: options.device } : {}),
    });
    const body = (await response.json()) as { user_id: string; upload_token: string };
    this.state = { userId: body.user_id, uploadToken: body.upload_token };
    await this.saveState();
    return body.user_id;
  }

  /** Forgets the connection (the queue stays, for a later connection). */
  async disconnect(): Promise<void> {
    this.state = { userId: null, uploadToken: null };
    await this.options.storage.removeItem(this.key('state'));
  }

  /** Queues records (persisted at once); `flush` uploads them. */
  async enqueue(items: UploadItems): Promise<number> {
    for (const field of ['records', 'workouts', 'activity_summaries', 'deletions'] as const) {
      for (const value of items[field] ?? []) this.queue.push({ field, value });
    }
    await this.saveQueue();
    return this.queue.length;
  }

  /**
   * Uploads everything queued, batch by batch, each retried with exponential backoff on network
   * errors, 5xx and 429 (honouring Retry-After). A batch the server finds too large (413) is
   * split. One flush runs at a time; a second call joins the running one.
   */
  flush(): Promise<FlushResult> {
    this.flushing ??= this.flushAll().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async flushAll(): Promise<FlushResult> {
    let batches = 0;
    let items = 0;
    let size = this.options.maxBatchItems;
    while (this.queue.length > 0) {
      if (!this.state.uploadToken)
        throw new NotConnectedError('not connected: call connect() with a new token');
      const count = this.batchLength(size);
      const batch = this.queue.slice(0, count);
      const outcome = await this.upload(batch);
      if (outcome === 'too_large') {
        if (count === 1)
          throw new RequestRejectedError(413, { detail: 'one item is larger than the server accepts' });
        size = Math.max(1, Math.floor(count / 2));
        continue;
      }
      this.queue.splice(0, count);
      await this.saveQueue();
      batches++;
      items += count;
    }
    return { batches, items, pending: this.queue.length };
  }

  /** How many items from the head of the queue fit one batch (by count and by body size). */
  private batchLength(limit: number): number {
    let bytes = 64;
    let count = 0;
    for (const item of this.queue) {
      if (count >= limit) break;
      const next = byteLength(JSON.stringify(item.value)) + 1;
      if (count > 0 && bytes + next > this.options.maxBatchBytes) break;
      bytes += next;
      count++;
    }
    return Math.max(1, count);
  }

  private body(batch: QueuedItem[]) {
    const body: Record<string, unknown> = { platform: this.options.platform };
    for (const item of batch) ((body[item.field] ??= []) as unknown[]).push(item.value);
    return body;
  }

  private async upload(batch: QueuedItem[]): Promise<'accepted' | 'too_large'> {
    try {
      await this.send('/v2/sdk/upload', this.body(batch), this.state.uploadToken!);
      return 'accepted';
    } catch (error) {
      if (error instanceof RequestRejectedError && error.status === 413) return 'too_large';
      if (error instanceof RequestRejectedError && error.status === 401) {
        await this.disconnect();
        throw new NotConnectedError(`the upload token was refused: ${error.problem?.detail ?? ''}`);
      }
      throw error;
    }
  }

  /** POSTs JSON with retries; resolves with a 2xx response, or throws. */
  private async send(path: string, body: unknown, bearer?: string): Promise<Response> {
    const { retry, fetch: fetchImpl } = this.options;
    let lastProblem = '';
    for (let attempt = 0; attempt < retry.attempts; attempt++) {
      if (attempt > 0) await this.options.sleep(this.delay(attempt, lastProblem));
      let response: Response;
      try {
        response = await fetchImpl(`${this.options.baseUrl}${path}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
          },
          body: JSON.stringify(body),
        });
      } catch (error) {
        lastProblem = `network: ${(error as Error).message}`;
        continue;
      }
      if (response.ok) return response;
      const problem = (await response.json().catch(() => null)) as { detail?: string } | null;
      if (response.status === 429 || response.status >= 500) {
        const retryAfter = Number(response.headers.get('retry-after'));
        lastProblem =
          Number.isFinite(retryAfter) && retryAfter > 0 ? `retry-after:${retryAfter}` : `${response.status}`;
        continue;
      }
      throw new RequestRejectedError(response.status, problem);
    }
    throw new RetriesExhaustedError(`gave up after ${retry.attempts} attempts (last: ${lastProblem})`);
  }

  /** Full-jitter exponential backoff; a server's Retry-After is a floor. */
  private delay(attempt: number, lastProblem: string): number {
    const { baseDelayMs, maxDelayMs } = this.options.retry;
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    const jittered = Math.round(ceiling / 2 + (this.options.random() * ceiling) / 2);
    const retryAfter = /^retry-after:(\d+)/.exec(lastProblem);
    return Math.max(jittered, retryAfter ? Number(retryAfter[1]) * 1000 : 0);
  }
}
