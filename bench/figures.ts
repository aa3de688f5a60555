// Benches print for people and, through this, one machine-readable line for `npm run bench`
// (bench/run-all.ts), which gathers every figure into bench/RESULTS.md.
export const FIGURES_PREFIX = 'BENCH_FIGURES ';

export function reportFigures(figures: Record<string, number>): void {
  const rounded = Object.fromEntries(
    Object.entries(figures).map(([name, value]) => [name, Math.round(value * 100) / 100]),
  );
  console.log(`${FIGURES_PREFIX}${JSON.stringify(rounded)}`);
}
