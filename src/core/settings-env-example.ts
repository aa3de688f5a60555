// `.env.example`, written from the settings schema (npm run settings:env-example): one block per
// group, a comment per setting (its description and, from its TypeBox type, its bounds), the value
// shown being the default or an example. A test fails when the committed file is stale.
import type { TSchema } from 'typebox';
import type { AnySettingsGroup, Setting } from './settings.ts';

const WIDTH = 100;

/** `text` as `# ` comment lines of at most WIDTH characters. */
function comment(text: string): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/).filter((part) => part !== '')) {
    if (line.length + 1 + word.length > WIDTH && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  if (line !== '#') lines.push(line);
  return lines;
}

/** The bounds a number's TypeBox type carries, in words (empty for other types). */
function bounds(schema: TSchema): string {
  const s = schema as Record<string, unknown>;
  const parts: string[] = [];
  if (s.type === 'integer') parts.push('whole number');
  if (typeof s.minimum === 'number') parts.push(`≥ ${s.minimum}`);
  if (typeof s.exclusiveMinimum === 'number') parts.push(`> ${s.exclusiveMinimum}`);
  if (typeof s.maximum === 'number') parts.push(`≤ ${s.maximum}`);
  return parts.length > 0 ? ` [${parts.join(', ')}]` : '';
}

function entry(name: string, setting: Setting<unknown>): string[] {
  return [
    ...comment(`${name}: ${setting.description}${bounds(setting.schema)}`),
    `${setting.active ? '' : '# '}${name}=${setting.example}`,
  ];
}

export function renderEnvExample(
  groups: readonly AnySettingsGroup[],
  providerIds: readonly string[],
): string {
  const blocks: string[][] = [];
  let providersNamed = false;
  for (const group of groups) {
    const block = [...group.intro.flatMap(comment)];
    if (group.kind === 'group') {
      for (const [name, setting] of Object.entries(group.settings)) block.push(...entry(name, setting));
    } else {
      // The ids are not listed, so that a new provider does not make the file stale.
      if (!providersNamed) block.push(...comment('<PROVIDER>: a provider id (tributary providers list).'));
      providersNamed = true;
      for (const [key, setting] of Object.entries(group.templates))
        block.push(...entry(`<PROVIDER>_${key}`, setting));
      for (const providerId of providerIds) {
        for (const key of group.extra(providerId)) {
          block.push(
            ...comment(
              `${providerId}_${key}: a value ${providerId}'s API asks for with every request (a header).`,
            ),
            `# ${providerId}_${key}=`,
          );
        }
      }
    }
    blocks.push(block);
  }
  return `${blocks.map((block) => block.join('\n')).join('\n\n')}\n`;
}
