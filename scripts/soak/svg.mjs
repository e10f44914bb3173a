// Plain SVG line charts of the soak's samples (heap after GC and RSS over time, per process): no
// plotting dependency for two lines per process.

const WIDTH = 760;
const HEIGHT = 380;
const MARGIN = { left: 64, right: 170, top: 40, bottom: 48 };
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

const escape = (text) =>
  String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** Round tick steps (1, 2, 5 × 10^k) giving about `count` ticks over `span`. */
function step(span, count) {
  const raw = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw || 1));
  return [1, 2, 5, 10].map((f) => f * magnitude).find((s) => s >= raw) ?? raw;
}

/**
 * The chart: heap (solid) and RSS (dashed) in MB against minutes since the start, one colour per
 * process. `processes`: `[{ name, samples: [{ t, heapUsed, rss }] }]`.
 */
export function memoryChart(title, processes) {
  const series = processes.flatMap((p, i) => [
    {
      name: `${p.name} heap`,
      colour: COLOURS[i % COLOURS.length],
      dash: '',
      points: p.samples.map((s) => [s.t / 60_000, s.heapUsed / 1_048_576]),
    },
    {
      name: `${p.name} RSS`,
      colour: COLOURS[i % COLOURS.length],
      dash: '6 4',
      points: p.samples.map((s) => [s.t / 60_000, s.rss / 1_048_576]),
    },
  ]);
  const all = series.flatMap((s) => s.points);
  const xMin = Math.min(...all.map(([x]) => x));
  const xMax = Math.max(xMin + 1e-6, ...all.map(([x]) => x));
  const yMax = Math.max(1, ...all.map(([, y]) => y)) * 1.1;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const sx = (x) => MARGIN.left + ((x - xMin) / (xMax - xMin)) * plotW;
  const sy = (y) => MARGIN.top + plotH - (y / yMax) * plotH;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="24" font-size="14">${escape(title)}</text>`,
  ];
  const xs = step(xMax - xMin, 6);
  for (let x = Math.ceil(xMin / xs) * xs; x <= xMax + 1e-9; x += xs) {
    parts.push(
      `<line x1="${sx(x)}" x2="${sx(x)}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#eee"/>`,
    );
    parts.push(
      `<text x="${sx(x)}" y="${MARGIN.top + plotH + 16}" text-anchor="middle">${+x.toFixed(2)}</text>`,
    );
  }
  const ys = step(yMax, 6);
  for (let y = 0; y <= yMax + 1e-9; y += ys) {
    parts.push(
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${sy(y)}" y2="${sy(y)}" stroke="#eee"/>`,
    );
    parts.push(`<text x="${MARGIN.left - 6}" y="${sy(y) + 4}" text-anchor="end">${+y.toFixed(1)}</text>`);
  }
  parts.push(`<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 10}" text-anchor="middle">minutes</text>`);
  parts.push(
    `<text transform="translate(16 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">MB</text>`,
  );
  parts.push(
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`,
  );
  series.forEach((s, i) => {
    const points = s.points.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
    parts.push(
      `<polyline fill="none" stroke="${s.colour}" stroke-width="1.6"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''} points="${points}"/>`,
    );
    const ly = MARGIN.top + 8 + i * 18;
    const lx = MARGIN.left + plotW + 12;
    parts.push(
      `<line x1="${lx}" x2="${lx + 24}" y1="${ly}" y2="${ly}" stroke="${s.colour}" stroke-width="1.6"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
    );
    parts.push(`<text x="${lx + 30}" y="${ly + 4}">${escape(s.name)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
