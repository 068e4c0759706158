/**
 * A small SVG line chart for the bench results (the rebalance scenario's records per interval): one
 * polyline per series, vertical dashed markers at labelled moments, axes with round ticks and a legend.
 * No dependency; the output is a complete standalone SVG document.
 */

export interface PlotSeries {
  readonly name: string;
  /** Stroke colour; default: the palette's, in series order. */
  readonly colour?: string;
  /** [x, y] points, x ascending. */
  readonly points: ReadonlyArray<readonly [number, number]>;
}

export interface PlotMarker {
  readonly x: number;
  readonly label: string;
}

export interface PlotOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly PlotSeries[];
  readonly markers?: readonly PlotMarker[];
  readonly width?: number;
  readonly height?: number;
  /** The top of the y axis (values above are drawn at it); default: the data's maximum. */
  readonly yMax?: number;
  /** The x range; default: the data's and the markers'. */
  readonly xRange?: readonly [number, number];
}

/** Colour-blind-safe palette (Okabe–Ito), in series order. */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Round tick values covering [min, max]: steps of 1, 2 or 5 × 10^k, about `count` of them. */
export function niceTicks(min: number, max: number, count = 6): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [0];
  if (max <= min) return [min];
  const raw = (max - min) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const ticks: number[] = [];
  // from the last tick at or below min to the first at or above max
  const last = Math.ceil(max / step - 1e-9) * step;
  for (let v = Math.floor(min / step + 1e-9) * step; v <= last + step * 1e-9; v += step)
    ticks.push(Number(v.toFixed(10)));
  return ticks;
}

const fmt = (v: number) => (Math.abs(v) >= 1000 ? v.toLocaleString('en-US') : String(Number(v.toFixed(3))));

/** One chart as a standalone SVG document. */
export function lineChartSvg(o: PlotOptions): string {
  const width = o.width ?? 960;
  const height = o.height ?? 420;
  return document(width, height, chartBody(o, width, height));
}

/**
 * Charts stacked top to bottom in one SVG document (small multiples: one panel per side), each
 * `panelHeight` high, every panel on the same x range (the union of theirs).
 */
export function stackedChartsSvg(charts: readonly PlotOptions[], width = 960, panelHeight = 260): string {
  const xs = charts.flatMap((c) => c.series.flatMap((s) => s.points.map((p) => p[0])));
  const range: [number, number] = xs.length > 0 ? [Math.min(...xs), Math.max(...xs)] : [0, 1];
  const body = charts.map(
    (c, i) =>
      `<g transform="translate(0 ${i * panelHeight})">\n${chartBody({ xRange: range, ...c }, width, panelHeight)}\n</g>`,
  );
  return document(width, panelHeight * charts.length, body.join('\n'));
}

function document(width: number, height: number, body: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">\n` +
    `<rect width="${width}" height="${height}" fill="#ffffff"/>\n${body}\n</svg>\n`
  );
}

function chartBody(o: PlotOptions, width: number, height: number): string {
  const m = { left: 64, right: 16, top: 36, bottom: 70 };
  const pw = width - m.left - m.right;
  const ph = height - m.top - m.bottom;
  const xs = o.series.flatMap((s) => s.points.map((p) => p[0])).concat((o.markers ?? []).map((k) => k.x));
  const ys = o.series.flatMap((s) => s.points.map((p) => p[1]));
  const xMin = o.xRange?.[0] ?? (xs.length > 0 ? Math.min(...xs) : 0);
  const xMax = o.xRange?.[1] ?? (xs.length > 0 ? Math.max(...xs) : 1);
  const yTicks = niceTicks(0, Math.max(1, o.yMax ?? Math.max(0, ...ys)));
  const yMax = Math.max(yTicks[yTicks.length - 1]!, 1);
  const xSpan = xMax > xMin ? xMax - xMin : 1;
  const sx = (x: number) => m.left + ((x - xMin) / xSpan) * pw;
  const sy = (y: number) => m.top + ph - (Math.min(y, yMax) / yMax) * ph;
  const r = (v: number) => Number(v.toFixed(1));
  const out: string[] = [];
  out.push(`<text x="${width / 2}" y="20" text-anchor="middle" font-size="14">${escapeXml(o.title)}</text>`);
  for (const y of yTicks) {
    out.push(
      `<line x1="${m.left}" x2="${m.left + pw}" y1="${r(sy(y))}" y2="${r(sy(y))}" stroke="#e5e5e5"/>`,
      `<text x="${m.left - 6}" y="${r(sy(y)) + 4}" text-anchor="end">${fmt(y)}</text>`,
    );
  }
  for (const x of niceTicks(xMin, xMax, 10)) {
    out.push(
      `<line x1="${r(sx(x))}" x2="${r(sx(x))}" y1="${m.top + ph}" y2="${m.top + ph + 4}" stroke="#333"/>`,
      `<text x="${r(sx(x))}" y="${m.top + ph + 16}" text-anchor="middle">${fmt(x)}</text>`,
    );
  }
  out.push(
    `<line x1="${m.left}" x2="${m.left + pw}" y1="${m.top + ph}" y2="${m.top + ph}" stroke="#333"/>`,
    `<line x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${m.top + ph}" stroke="#333"/>`,
    `<text x="${m.left + pw / 2}" y="${m.top + ph + 32}" text-anchor="middle">${escapeXml(o.xLabel)}</text>`,
    `<text transform="translate(14 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">${escapeXml(o.yLabel)}</text>`,
  );
  for (const k of o.markers ?? []) {
    const x = r(sx(k.x));
    out.push(
      `<line x1="${x}" x2="${x}" y1="${m.top}" y2="${m.top + ph}" stroke="#555" stroke-dasharray="4 3"/>`,
      `<text x="${x + 3}" y="${m.top + 10}" font-size="10" fill="#555">${escapeXml(k.label)}</text>`,
    );
  }
  o.series.forEach((s, i) => {
    const colour = s.colour ?? PALETTE[i % PALETTE.length]!;
    if (s.points.length > 0) {
      const pts = s.points.map(([x, y]) => `${r(sx(x))},${r(sy(y))}`).join(' ');
      out.push(`<polyline fill="none" stroke="${colour}" stroke-width="1.2" points="${pts}"/>`);
    }
    const lx = m.left + (i % 4) * (pw / 4);
    const ly = m.top + ph + 48 + Math.floor(i / 4) * 14;
    out.push(
      `<line x1="${lx}" x2="${lx + 18}" y1="${ly - 4}" y2="${ly - 4}" stroke="${colour}" stroke-width="2"/>`,
      `<text x="${lx + 22}" y="${ly}">${escapeXml(s.name)}</text>`,
    );
  });
  return out.join('\n');
}
