/**
 * New and ended subscriptions per week as a bar chart drawn in inline SVG: a pair of bars a week,
 * scaled to the largest count. Colours come from classes, as the console's CSP allows no inline
 * style; the chart is one image to assistive technology, whose numbers the table beside it gives.
 */
import type { ReportWeek } from '../api/reports';

const WIDTH = 480;
const HEIGHT = 240;
const AXIS = 24; // room under the bars for the week's name
const TOP = 16; // room over the tallest bar for its count
const BAR = 14;

export function WeekChart({ weeks, labelledBy }: { weeks: readonly ReportWeek[]; labelledBy: string }) {
  const largest = Math.max(1, ...weeks.flatMap((w) => [w.started, w.ended]));
  const slot = WIDTH / Math.max(1, weeks.length);
  const plot = HEIGHT - AXIS - TOP;
  const bar = (count: number, x: number, kind: 'started' | 'ended', week: string) => {
    const height = Math.round((count / largest) * plot);
    const y = HEIGHT - AXIS - height;
    return (
      <g class={`chart-${kind}`}>
        <rect x={x} y={y} width={BAR} height={height}>
          <title>{`${week}: ${count} ${kind === 'started' ? 'new' : 'ended'}`}</title>
        </rect>
        <text x={x + BAR / 2} y={y - 3} text-anchor="middle" class="chart-count">
          {count}
        </text>
      </g>
    );
  };
  return (
    <svg class="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={labelledBy}>
      <line x1={0} x2={WIDTH} y1={HEIGHT - AXIS} y2={HEIGHT - AXIS} class="chart-axis" />
      {weeks.map((week, i) => {
        const middle = i * slot + slot / 2;
        return (
          <g key={week.week}>
            {bar(week.started, middle - BAR - 1, 'started', week.week)}
            {bar(week.ended, middle + 1, 'ended', week.week)}
            <text x={middle} y={HEIGHT - 6} text-anchor="middle" class="chart-week">
              {week.week.slice(5)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
