// bench/svg-plot.ts: the dependency-free SVG line chart of the bench results.
import { describe, expect, it } from 'vitest';
import { escapeXml, lineChartSvg, niceTicks, PALETTE, stackedChartsSvg } from '../../bench/svg-plot.js';

describe('niceTicks', () => {
  it('steps by 1, 2 or 5 × 10^k and covers the range', () => {
    expect(niceTicks(0, 1000, 5)).toEqual([0, 200, 400, 600, 800, 1000]);
    expect(niceTicks(0, 7, 6)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(3, 1190, 6)).toEqual([0, 200, 400, 600, 800, 1000, 1200]);
    expect(niceTicks(-3, 3, 6)).toEqual([-3, -2, -1, 0, 1, 2, 3]);
    expect(niceTicks(0, 0.5, 5)).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5]);
  });
  it('gives one tick for an empty or invalid range', () => {
    expect(niceTicks(4, 4)).toEqual([4]);
    expect(niceTicks(0, Number.NaN)).toEqual([0]);
  });
});

describe('lineChartSvg', () => {
  const svg = lineChartSvg({
    title: 'a & b <c>',
    xLabel: 's',
    yLabel: 'records',
    width: 400,
    height: 200,
    series: [
      {
        name: 'share',
        points: [
          [0, 0],
          [1, 10],
          [2, 5],
        ],
      },
      {
        name: 'classic "c"',
        points: [
          [0, 2],
          [2, 8],
        ],
      },
    ],
    markers: [{ x: 1, label: 'tasks 3→6' }],
  });

  it('is one SVG document with a polyline and a legend entry per series, in palette order', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200"')).toBe(true);
    expect(svg.trim().endsWith('</svg>')).toBe(true);
    const lines = [...svg.matchAll(/<polyline fill="none" stroke="([^"]+)"[^>]* points="([^"]+)"/g)];
    expect(lines.map((m) => m[1])).toEqual([PALETTE[0], PALETTE[1]]);
    expect(lines[0]![2]!.split(' ')).toHaveLength(3);
    expect(svg).toContain('>share</text>');
    expect(svg).toContain('>classic &quot;c&quot;</text>');
  });

  it('maps the data into the plot area: x from left to right, y up from the axis', () => {
    const pts = /points="([^"]+)"/
      .exec(svg)![1]!
      .split(' ')
      .map((p) => p.split(',').map(Number));
    const [[x0, y0], [x1, y1], [x2]] = pts as [[number, number], [number, number], [number]];
    expect(x0).toBe(64); // left margin
    expect(x2).toBe(400 - 16); // right edge of the plot
    expect(x1).toBeCloseTo((x0 + x2) / 2, 1);
    expect(y1).toBeLessThan(y0); // 10 is above 0
    expect(y0).toBe(200 - 70); // the x axis
  });

  it('draws the markers as dashed vertical lines with their labels, and escapes text', () => {
    expect(svg).toMatch(/<line x1="224" x2="224" [^>]*stroke-dasharray/);
    expect(svg).toContain('>tasks 3→6</text>');
    expect(svg).toContain('>a &amp; b &lt;c&gt;</text>');
    expect(escapeXml(`<'&">`)).toBe('&lt;&apos;&amp;&quot;&gt;');
  });
});

describe('stackedChartsSvg', () => {
  it('stacks panels in one document on one x range', () => {
    const panel = (name: string, xs: number[]) => ({
      title: name,
      xLabel: 's',
      yLabel: 'n',
      series: [{ name, colour: '#123456', points: xs.map((x) => [x, 1] as const) }],
    });
    const svg = stackedChartsSvg([panel('a', [0, 5]), panel('b', [2, 10])], 400, 200);
    expect(svg).toMatch(/^<svg [^>]*width="400" height="400"/);
    expect(svg.match(/<svg /g)).toHaveLength(1);
    expect(svg).toContain('<g transform="translate(0 200)">');
    const lines = [...svg.matchAll(/stroke="#123456"[^>]* points="([^"]+)"/g)].map((m) =>
      m[1]!.split(' ').map((p) => Number(p.split(',')[0])),
    );
    // both on 0–10: a's 5 is in the middle of the plot width, b's 10 at its right edge
    expect(lines[0]![1]).toBeCloseTo(64 + (400 - 64 - 16) / 2, 1);
    expect(lines[1]![1]).toBe(400 - 16);
  });
});

describe('yMax', () => {
  it('sets the top of the y axis and draws a larger value at it', () => {
    const svg = lineChartSvg({
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      width: 400,
      height: 200,
      yMax: 10,
      series: [
        {
          name: 's',
          points: [
            [0, 5],
            [1, 100],
          ],
        },
      ],
    });
    const ys = /points="([^"]+)"/
      .exec(svg)![1]!
      .split(' ')
      .map((p) => Number(p.split(',')[1]));
    expect(ys[1]).toBe(36); // the top margin: clamped
    expect(ys[0]).toBeCloseTo(36 + (200 - 36 - 70) / 2, 1);
    expect(svg).toContain('>10</text>');
    expect(svg).not.toContain('>100</text>');
  });
});
