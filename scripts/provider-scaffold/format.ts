// Generated files are written already formatted with the repository's Prettier settings, so
// `prettier --check` passes and the index freshness test compares like with like.
import { format, resolveConfig } from 'prettier';

export async function formatSource(filePath: string, source: string): Promise<string> {
  const options = (await resolveConfig(filePath)) ?? {};
  return format(source, { ...options, filepath: filePath });
}
