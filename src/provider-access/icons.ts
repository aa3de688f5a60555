import type { ProviderDeclaration } from '../provider-kit/types.ts';

/** Relative luminance test: dark backgrounds get white initials, light ones near-black. */
function readableOn(background: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(background.slice(i, i + 2), 16) / 255) as [
    number,
    number,
    number,
  ];
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return luminance > 0.6 ? '#111111' : '#FFFFFF';
}

/**
 * Our own icon for a provider: its initials on a rounded square. Served by Tributary, so hosted
 * pages load nothing from elsewhere and no provider artwork is redistributed.
 */
export function providerIconSvg(declaration: ProviderDeclaration): string {
  const { initials, background } = declaration.icon;
  const foreground = declaration.icon.foreground ?? readableOn(background);
  const size = initials.length > 2 ? 22 : 26;
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img"',
    ` aria-label="${declaration.name.replace(/[<>&"]/g, '')}">`,
    `<rect width="64" height="64" rx="14" fill="${background}"/>`,
    `<text x="32" y="32" dy=".35em" text-anchor="middle" font-family="Helvetica,Arial,sans-serif"`,
    ` font-size="${size}" font-weight="700" fill="${foreground}">${initials}</text>`,
    '</svg>',
  ].join('');
}
