import { html, type SafeHtml } from '../safe-html.ts';

/**
 * Small inline SVG charts: drawn on the server, nothing to load, readable by screen readers
 * through their title and the table that accompanies each one.
 */
export function horizontalBars(title: string, rows: { label: string; value: number }[]): SafeHtml {
  if (rows.length === 0) return html`<p class="muted">Nothing yet.</p>`;
  const max = Math.max(1, ...rows.map((row) => row.value));
  const rowHeight = 22;
  const width = 360;
  const labelWidth = 110;
  const bars = rows.map((row, index) => {
    const y = index * rowHeight;
    const barWidth = Math.round(((width - labelWidth - 40) * row.value) / max);
    return html`<text x="0" y="${y + 15}">${row.label}</text><rect class="bar-ok" x="${labelWidth}" y="${y + 4}" width="${barWidth}" height="14" rx="3"></rect><text x="${labelWidth + barWidth + 6}" y="${y + 15}">${row.value}</text>`;
  });
  return html`<svg class="chart" role="img" viewBox="0 0 ${width} ${rows.length * rowHeight}" width="100%" style="max-width:${width}px"><title>${title}</title>${bars}</svg>`;
}

/** Hourly stacked columns (ok below, failing above), oldest left. */
export function hourlyColumns(title: string, hours: { label: string; ok: number; bad: number }[]): SafeHtml {
  const max = Math.max(1, ...hours.map((hour) => hour.ok + hour.bad));
  const height = 90;
  const column = 14;
  const width = hours.length * column;
  const bars = hours.map((hour, index) => {
    const x = index * column;
    const okHeight = Math.round((height * hour.ok) / max);
    const badHeight = Math.round((height * hour.bad) / max);
    return html`<g><title>${hour.label}: ${hour.ok} delivered, ${hour.bad} failing</title><rect class="bar-ok" x="${x + 1}" y="${height - okHeight}" width="${column - 2}" height="${okHeight}"></rect><rect class="bar-bad" x="${x + 1}" y="${height - okHeight - badHeight}" width="${column - 2}" height="${badHeight}"></rect></g>`;
  });
  return html`<svg class="chart" role="img" viewBox="0 0 ${width} ${height + 14}" width="100%" style="max-width:${width * 2}px"><title>${title}</title><line x1="0" y1="${height}" x2="${width}" y2="${height}" stroke="currentColor" stroke-width=".5"></line>${bars}<text x="0" y="${height + 12}">-24 h</text><text x="${width - 22}" y="${height + 12}">now</text></svg>`;
}
