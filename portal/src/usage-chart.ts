/**
 * A key's requests per UTC day as a bar chart (uPlot, drawn on a canvas): admitted and refused
 * side by side, oldest day on the left. The canvas is hidden from assistive technology; the
 * table beside it (key-page.ts) holds the same numbers, and the figure's caption says today's.
 */
import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { count } from './format.ts';

/** One UTC day of a key's usage, as getPortalKeyUsage answers it. */
export interface UsageDay {
  readonly day: string;
  readonly admitted: number;
  readonly refused: number;
}

const SECONDS_PER_DAY = 86_400;

/** The chart; `days` newest first, as the API answers them. */
export function UsageChart({ days }: { readonly days: readonly UsageDay[] }) {
  const target = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = target.current;
    if (!element) return;
    const oldestFirst = [...days].reverse();
    // Admitted left of the day's middle, refused right of it.
    const bars = (align: -1 | 1) => uPlot.paths.bars?.({ size: [0.35, 12], align });
    const chart = new uPlot(
      {
        width: Math.max(320, element.clientWidth),
        height: 220,
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1e3), 'Etc/UTC'),
        series: [
          {},
          {
            label: 'Admitted',
            fill: '#2f6f4e',
            stroke: '#2f6f4e',
            paths: bars(-1),
            points: { show: false },
          },
          {
            label: 'Refused (429)',
            fill: '#b3261e',
            stroke: '#b3261e',
            paths: bars(1),
            points: { show: false },
          },
        ],
        scales: { x: { time: true }, y: { range: (_, __, max) => [0, Math.max(1, max)] } },
        axes: [{ space: 60 }, { size: 60 }],
        legend: { live: false },
      },
      [
        oldestFirst.map(({ day }) => Date.parse(`${day}T00:00:00Z`) / 1e3 + SECONDS_PER_DAY / 2),
        oldestFirst.map(({ admitted }) => admitted),
        oldestFirst.map(({ refused }) => refused),
      ],
      element,
    );
    return () => chart.destroy();
  }, [days]);
  const [today] = days;
  return html`<figure class="chart">
    <div ref=${target} aria-hidden="true"></div>
    <figcaption>
      Requests per UTC day, last 30 days.
      ${today ? ` Today (${today.day}): ${count(today.admitted)} admitted, ${count(today.refused)} refused.` : ''}
    </figcaption>
  </figure>`;
}
