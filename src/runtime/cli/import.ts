import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { Config } from '../../core/config.ts';
import { AppError } from '../../core/errors.ts';
import type { ImportView } from '../../features/mobile/service.ts';
import { atTerminal, currentSession, openContext } from './session.ts';
import { printJson, UsageError } from './output.ts';

export const USAGE = `usage:
  tributary import apple-health <file> --dev-id D (--user-id U | --reference-id R) [--json]

Imports an Apple Health export (export.zip, or the export.xml inside it) for a user, streaming
it, with a progress bar on stderr. With --reference-id and no such user, an APPLE user is
created. Importing the same export again stores nothing twice. The command runs the import
itself, beside a running server or not.`;

/** `[#######-------------]  35%  120.4/343.0 MB  812345 records` */
export function progressLine(view: ImportView): string {
  const total = view.total_bytes ?? 0;
  const fraction = total > 0 ? Math.min(1, view.bytes_read / total) : 0;
  const width = 30;
  const filled = Math.round(fraction * width);
  const mb = (bytes: number) => (bytes / 1_048_576).toFixed(1);
  return (
    `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.round(fraction * 100)).padStart(3)}%  ` +
    `${mb(view.bytes_read)}/${mb(total)} MB  ${view.records_read} records  ${view.status}`
  );
}

/** Redraws one line on a terminal; elsewhere (pipes, a collecting session) prints every tenth. */
function progressBar() {
  const session = currentSession();
  const tty = atTerminal() && process.stderr.isTTY;
  let lastDecile = -1;
  return {
    update(view: ImportView) {
      if (tty) return session.stderr(`\r${progressLine(view)}`);
      const decile = view.total_bytes ? Math.floor((view.bytes_read / view.total_bytes) * 10) : 0;
      if (decile === lastDecile && view.status === 'running') return;
      lastDecile = decile;
      session.stderr(`${progressLine(view)}\n`);
    },
    done(view: ImportView) {
      session.stderr(tty ? `\r${progressLine(view)}\n` : `${progressLine(view)}\n`);
    },
  };
}

export async function importCommand(config: Config, args: string[]) {
  const [format, ...rest] = args;
  if (format !== 'apple-health') throw new UsageError(USAGE);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      'dev-id': { type: 'string' },
      'user-id': { type: 'string' },
      'reference-id': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new UsageError(`one export file is required\n${USAGE}`);
  if (!values['dev-id']) throw new UsageError(`--dev-id is required\n${USAGE}`);
  if (Boolean(values['user-id']) === Boolean(values['reference-id']))
    throw new UsageError(`give exactly one of --user-id and --reference-id\n${USAGE}`);
  const size = await stat(file).then(
    (found) => (found.isFile() ? found.size : null),
    () => null,
  );
  if (size === null) throw new UsageError(`${file} is not a readable file`);

  const { ctx, close } = await openContext(config);
  try {
    const developer = await ctx.developers.get(values['dev-id']);
    const bar = progressBar();
    const started = await ctx.mobile.startImport({
      developerId: developer.id,
      format,
      userId: values['user-id'],
      referenceId: values['reference-id'],
      body: createReadStream(file),
      // The command runs the import itself, in this process, beside a running server or not.
      enqueue: false,
    });
    const final: ImportView | undefined = await ctx.mobile.runImport(started.import_id, (view) =>
      bar.update(view),
    );
    if (!final) throw new UsageError(`the import ${started.import_id} disappeared (was the user deleted?)`);
    bar.done(final);
    if (values.json) printJson(final);
    else
      currentSession().stdout(
        `import ${final.import_id} for user ${final.user_id}: ${final.status}${final.error ? ` (${final.error})` : ''}\n`,
      );
    if (final.status === 'failed')
      throw new AppError('unprocessable', `the import failed: ${final.error ?? 'unknown error'}`);
  } finally {
    await close();
  }
}
