// The output-format setting: which format a developer's events are delivered in
// (docs/wire-contract.md#output-formats). Routes and the dashboard stay thin; this decides.
import type { Clock } from '../../core/clock.ts';
import { invalidParameter } from '../../core/errors.ts';
import type { Db } from '../../store/db.ts';
import { isOutputFormat, MEDIA_TYPES, OUTPUT_FORMATS, type OutputFormat } from './formats.ts';
import { findOutputFormat, setOutputFormat } from './repo.ts';

type Owner = { id: string };

const viewOf = (format: OutputFormat) => ({
  output_format: format,
  content_type: MEDIA_TYPES[format],
  formats: [...OUTPUT_FORMATS],
});

export function createOutputFormatsService(deps: { db: Db; clock: Clock }) {
  return {
    async get(owner: Owner) {
      return viewOf(await findOutputFormat(deps.db, owner.id));
    },
    /** Takes what a form or body sent; anything but a known format is a 400 naming `output_format`. */
    async set(owner: Owner, value: unknown) {
      if (!isOutputFormat(value))
        throw invalidParameter(
          'output_format',
          `expected one of ${OUTPUT_FORMATS.join(', ')}, got ${JSON.stringify(value)?.slice(0, 40) ?? 'nothing'}`,
        );
      await setOutputFormat(deps.db, owner.id, value, deps.clock.now());
      return viewOf(value);
    },
  };
}

export type OutputFormatsService = ReturnType<typeof createOutputFormatsService>;
