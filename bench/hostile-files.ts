// Hostile files (issue 24): for each class, the limit that ends it, how its job ended, the time
// from upload to the end of the job, and the peak resident set of the reader process (the child process
// that read the file) and of the API process (`tributary serve`, API and workers, in a process of
// its own; embedded storage, or PostgreSQL with DATABASE_URL). Files are the suite's generators (test/helpers/hostile-files.ts),
// made in this process; the service runs with its default settings. Peaks are sampled from /proc
// every 25 ms (Linux).
//
//   node bench/hostile-files.ts    (BENCH_HOSTILE_BACKSTOP=off skips the row that lifts a reading
//                                   limit to show what the reader process's own limits allow)
import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  childEnvironment,
  runCli,
  startService,
  type RunningService,
} from '../test/helpers/child-service.ts';
import {
  deepNesting,
  flateBombPdf,
  hugeAttribute,
  hugePagePdf,
  hugePng,
  manyChildren,
  millionTextOperationsPdf,
  writeStreamedZip,
} from '../test/helpers/hostile-files.ts';
import { multipart } from '../test/helpers/lab-reports.ts';

type Json = Record<string, unknown>;

function rssOf(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Child processes of a process (any thread's), from /proc. */
function children(pid: number): number[] {
  const pids: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`))
    try {
      const list = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (list) pids.push(...list.split(/\s+/).map(Number));
    } catch {
      // a thread that ended meanwhile
    }
  return pids;
}

/** Peak resident sets of the API process and of any reader process it starts, until stopped. */
function sampler(api: number) {
  const peaks = { api: rssOf(api), reader: 0 };
  const timer = setInterval(() => {
    peaks.api = Math.max(peaks.api, rssOf(api));
    for (const pid of children(api)) peaks.reader = Math.max(peaks.reader, rssOf(pid));
  }, 25);
  return { peaks, stop: () => clearInterval(timer) };
}

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
const size = (bytes: number) => (bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : mb(bytes));

async function until<T>(poll: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await poll();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

type Row = {
  class: string;
  file: string;
  limit: string;
  outcome: string;
  seconds: string;
  reader: string;
  api: string;
};
const rows: Row[] = [];

async function measure(
  api: RunningService,
  label: string,
  limit: string,
  file: { bytes: number },
  run: () => Promise<string>,
): Promise<void> {
  const { peaks, stop } = sampler(api.process.pid!);
  const started = performance.now();
  const outcome = await run();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  stop();
  rows.push({
    class: label,
    file: size(file.bytes),
    limit,
    outcome,
    seconds,
    reader: mb(peaks.reader),
    api: mb(peaks.api),
  });
  console.error(`${label}: ${outcome} (${seconds} s)`);
}

/** The service as an operator runs it (`tributary serve`: API and workers), and a developer. */
async function serve(extra: Record<string, string>) {
  const environment = await childEnvironment({ SANDBOX_ARRIVAL_MINUTES: 'off', ...extra });
  const service = await startService(environment.env);
  const created = await runCli(
    ['developers', 'create', '--name', 'Bench', '--environment', 'sandbox', '--json'],
    environment.env,
  );
  const developer = JSON.parse(created.stdout) as { dev_id: string; api_key: string };
  const headers = { 'dev-id': developer.dev_id, 'x-api-key': developer.api_key };
  const get = async (path: string) =>
    (await (await fetch(`${service.url}${path}`, { headers })).json()) as Json;
  return {
    service,
    headers,
    get,
    async close() {
      await service.stop();
      await environment.cleanup();
    },
  };
}

async function labClasses(env: Record<string, string>, backstop: boolean) {
  const { service, headers, get, close } = await serve(env);
  const upload = async (file: Buffer, filename: string): Promise<string> => {
    const body = multipart(file, { filename });
    const posted = await fetch(`${service.url}/v2/lab-reports`, {
      method: 'POST',
      headers: { ...headers, 'content-type': body.contentType },
      body: new Uint8Array(body.payload),
    });
    const uploadId = ((await posted.json()) as Json).upload_id as string;
    const session = await until(async () => {
      const [found] = (await get(`/v2/lab-reports?upload_id=${uploadId}`)).sessions as Json[];
      return found && found.current_status !== 'processing' ? found : undefined;
    });
    const history = session.status_history as { status: string; note?: string }[];
    return `${session.current_status as string}: ${history.at(-1)?.note ?? ''}`;
  };
  const cases: [string, string, () => Promise<Buffer> | Buffer, string][] = backstop
    ? [
        [
          'PDF, a million text operations, operation limit lifted',
          'reader process: 1536 MB, 240 s CPU',
          () => millionTextOperationsPdf(),
          'ops.pdf',
        ],
      ]
    : [
        [
          'PDF, a million text operations',
          'LAB_REPORT_MAX_TEXT_OPERATIONS 50 000',
          () => millionTextOperationsPdf(),
          'ops.pdf',
        ],
        ['PDF, a 5000-inch page', 'LAB_REPORT_MAX_PAGE_INCHES 50', () => hugePagePdf(), 'page.pdf'],
        ['PDF, flate bomb (512 MB)', 'LAB_REPORT_MAX_INFLATED_MB 256', () => flateBombPdf(512), 'bomb.pdf'],
        ['PNG, 30k × 30k', 'LAB_REPORT_MAX_IMAGE_PIXELS 40 M', () => hugePng(30_000), 'huge.png'],
      ];
  for (const [label, limit, make, filename] of cases) {
    const file = await make();
    await measure(service, label, limit, { bytes: file.length }, () => upload(file, filename));
  }
  await close();
}

async function importClasses() {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-hostile-bench-'));
  const { service, headers, get, close } = await serve({});
  const cases: [string, () => Iterable<string>][] = [
    ['export, two million nested elements', () => deepNesting(2_000_000)],
    ['export, one 400 MB attribute', () => hugeAttribute(400)],
    ['export, 32 million children of one record', () => manyChildren(32_000_000)],
  ];
  for (const [index, [label, chunks]] of cases.entries()) {
    const path = join(dir, `hostile-${index}.zip`);
    const written = await writeStreamedZip(path, 'apple_health_export/export.xml', chunks());
    await measure(service, label, 'MOBILE_IMPORT_READER_MEMORY_MB 512', written, async () => {
      const posted = await fetch(`${service.url}/v2/import/apple-health?reference_id=hostile-${index}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/zip' },
        body: Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>,
        duplex: 'half',
      } as RequestInit);
      const importId = ((await posted.json()) as Json).import_id as string;
      const view = await until(async () => {
        const current = await get(`/v2/import/${importId}`);
        return current.status === 'completed' || current.status === 'failed' ? current : undefined;
      });
      return `${view.status as string}: ${(view.error as string | undefined) ?? ''}`;
    });
  }
  await close();
  rmSync(dir, { recursive: true, force: true });
}

await labClasses({}, false);
if (process.env.BENCH_HOSTILE_BACKSTOP !== 'off')
  await labClasses({ LAB_REPORT_MAX_TEXT_OPERATIONS: '1e12' }, true);
await importClasses();

console.log('| class | file | limit | outcome | time (s) | reader process peak RSS | API process peak RSS |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const row of rows)
  console.log(
    `| ${row.class} | ${row.file} | ${row.limit} | ${row.outcome} | ${row.seconds} | ${row.reader} | ${row.api} |`,
  );
