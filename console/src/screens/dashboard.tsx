/**
 * The dashboard: active subscriptions now by what they give and by product, and a chart of the
 * subscriptions started and ended in each of the last 12 weeks, with the same numbers as a table.
 */
import { useEffect, useState } from 'preact/hooks';
import { subscriptionReport, type SubscriptionReport } from '../api/reports';
import { listProducts } from '../api/subscriptions';
import { WeekChart } from '../parts/week-chart';

export function DashboardPage() {
  const [report, setReport] = useState<SubscriptionReport | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [productNames, setProductNames] = useState(new Map<string, string>());
  useEffect(() => {
    subscriptionReport().then((answer) => ('report' in answer ? setReport(answer.report) : setProblem(answer.refused)));
    listProducts().then((products) => setProductNames(new Map(products.map((p) => [p.id, p.attributes.name ?? p.id]))));
  }, []);
  return (
    <>
      <h1>Dashboard</h1>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {!report && !problem && <p role="status">Loading…</p>}
      {report && (
        <>
          <p class="muted">
            Active subscriptions at <time dateTime={report.at}>{report.at.slice(0, 16).replace('T', ' ')} UTC</time>
          </p>
          <div class="columns">
            <section aria-labelledby="by-resource-heading">
              <h2 id="by-resource-heading">Active by resource</h2>
              <CountTable label="Resource" rows={report.activeByResource.map((r) => [r.resource ?? 'none', r.count])} />
            </section>
            <section aria-labelledby="by-product-heading">
              <h2 id="by-product-heading">Active by product</h2>
              <CountTable
                label="Product"
                rows={report.activeByProduct.map((p) => [
                  p.product === null ? 'no product' : (productNames.get(p.product) ?? p.product),
                  p.count,
                ])}
              />
            </section>
          </div>
          <section aria-labelledby="weeks-heading">
            <h2 id="weeks-heading">New and ended subscriptions per week</h2>
            <p id="weeks-chart-label" class="muted">
              The last {report.weeks.length} ISO weeks, oldest first: new subscriptions{' '}
              <span class="swatch chart-started" aria-hidden="true" /> and ended ones{' '}
              <span class="swatch chart-ended" aria-hidden="true" /> (the table below gives each count).
            </p>
            <WeekChart weeks={report.weeks} labelledBy="weeks-heading weeks-chart-label" />
            <table class="weeks">
              <caption>Subscriptions per week</caption>
              <thead>
                <tr>
                  <th scope="col">Week</th>
                  <th scope="col" class="number">
                    New
                  </th>
                  <th scope="col" class="number">
                    Ended
                  </th>
                </tr>
              </thead>
              <tbody>
                {report.weeks.map((week) => (
                  <tr key={week.week}>
                    <th scope="row">{week.week}</th>
                    <td class="number">{week.started}</td>
                    <td class="number">{week.ended}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </>
      )}
    </>
  );
}

function CountTable({ label, rows }: { label: string; rows: [string, number][] }) {
  if (rows.length === 0) return <p>No active subscriptions.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">{label}</th>
          <th scope="col" class="number">
            Active
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([name, count]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td class="number">{count}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
