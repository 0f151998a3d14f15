/**
 * A licence's usage: the access checks it granted in each of the last 12 calendar months (UTC),
 * as bars stacked by how it reached the one checking (network, email domain, seat), drawn in
 * inline SVG as the dashboard's chart is, and the same numbers as a table. The service lists only
 * months with a check, so the months between are filled in with none.
 */
import type { UsageMonth } from '../api/licences';

export const USAGE_MONTHS = 12;

const VIAS = [
  { key: 'ip', name: 'By network' },
  { key: 'email-domain', name: 'By email domain' },
  { key: 'seat', name: 'By seat' },
] as const;

const WIDTH = 480;
const HEIGHT = 200;
const AXIS = 20;
const TOP = 16;

/** `YYYY-MM`, `offset` months after `month`. */
function monthAfter(month: string, offset: number): string {
  const [year, number] = month.split('-').map(Number) as [number, number];
  const date = new Date(Date.UTC(year, number - 1 + offset, 1));
  return date.toISOString().slice(0, 7);
}

/** The last USAGE_MONTHS months up to this one (or the latest counted, if later), each with its counts. */
export function lastMonths(months: readonly UsageMonth[], now = new Date()): UsageMonth[] {
  const current = now.toISOString().slice(0, 7);
  const latest = months.at(-1)?.month;
  const end = latest !== undefined && latest > current ? latest : current;
  const byMonth = new Map(months.map((m) => [m.month, m]));
  return Array.from({ length: USAGE_MONTHS }, (_, i) => {
    const month = monthAfter(end, i - USAGE_MONTHS + 1);
    return byMonth.get(month) ?? { month, counts: { ip: 0, 'email-domain': 0, seat: 0 }, total: 0 };
  });
}

function UsageChart({ months, labelledBy }: { months: readonly UsageMonth[]; labelledBy: string }) {
  const largest = Math.max(1, ...months.map((m) => m.total));
  const slot = WIDTH / months.length;
  const bar = slot * 0.6;
  const plot = HEIGHT - AXIS - TOP;
  return (
    <svg class="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={labelledBy}>
      <line x1={0} x2={WIDTH} y1={HEIGHT - AXIS} y2={HEIGHT - AXIS} class="chart-axis" />
      {months.map((m, i) => {
        const x = i * slot + (slot - bar) / 2;
        let base = HEIGHT - AXIS;
        return (
          <g key={m.month}>
            {VIAS.map(({ key, name }) => {
              const height = (m.counts[key] / largest) * plot;
              base -= height;
              return (
                <rect key={key} class={`chart-${key}`} x={x} y={base} width={bar} height={height}>
                  <title>{`${m.month}: ${m.counts[key]} ${name.toLowerCase()}`}</title>
                </rect>
              );
            })}
            <text x={x + bar / 2} y={base - 3} text-anchor="middle">
              {m.total}
            </text>
            <text x={x + bar / 2} y={HEIGHT - 5} text-anchor="middle">
              {m.month.slice(2)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

export function LicenceUsage({ months }: { months: readonly UsageMonth[] | null }) {
  if (months === null) {
    return (
      <section aria-labelledby="usage-heading">
        <h2 id="usage-heading">Usage by month</h2>
        <p class="error">The licence's usage could not be read.</p>
      </section>
    );
  }
  const shown = lastMonths(months);
  return (
    <section aria-labelledby="usage-heading">
      <h2 id="usage-heading">Usage by month</h2>
      <p id="usage-chart-label" class="muted">
        Access checks the licence granted in each of the last {USAGE_MONTHS} months (UTC), oldest first: by network{' '}
        <span class="swatch chart-ip" aria-hidden="true" />, by email domain{' '}
        <span class="swatch chart-email-domain" aria-hidden="true" /> and by seat{' '}
        <span class="swatch chart-seat" aria-hidden="true" /> (the table below gives each count). The last seconds'
        checks show a little later.
      </p>
      <UsageChart months={shown} labelledBy="usage-heading usage-chart-label" />
      <table class="usage">
        <caption>Access checks granted per month</caption>
        <thead>
          <tr>
            <th scope="col">Month</th>
            {VIAS.map(({ key, name }) => (
              <th key={key} scope="col" class="number">
                {name}
              </th>
            ))}
            <th scope="col" class="number">
              Total
            </th>
          </tr>
        </thead>
        <tbody>
          {shown.map((m) => (
            <tr key={m.month}>
              <th scope="row">{m.month}</th>
              {VIAS.map(({ key }) => (
                <td key={key} class="number">
                  {m.counts[key]}
                </td>
              ))}
              <td class="number">{m.total}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
