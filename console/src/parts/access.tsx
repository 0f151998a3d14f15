/**
 * The reader's access now, as the paywall and the print run see it: whether they get online and
 * print and until when, and for what they do not get, why not (the subscriptions that would give
 * it, and that they are scheduled, ended or expired). It answers "why am I paywalled?" and "why
 * didn't I get my paper?" before the agent reads the list below.
 */
import type { LoadedReader } from '../api/readers';
import { dayOf } from '../api/subscriptions';
import { untilOf, whyNot, type CatalogueProduct, type Entitlement } from './entitlements';

const NAMES: Record<Entitlement, string> = { online: 'Online', print: 'Print edition' };

const until = (end: string | null) => (end === null ? 'open-ended' : `until ${dayOf(end)}`);

export function AccessSummary({ loaded, products }: { loaded: LoadedReader; products: CatalogueProduct[] }) {
  const { access, subscriptions } = loaded;
  return (
    <section aria-labelledby="access-heading">
      <h2 id="access-heading">Access</h2>
      {access === undefined ? (
        <p class="error">The reader's access could not be read.</p>
      ) : (
        <dl class="access">
          {(['online', 'print'] as const).map((what) => (
            <div key={what} class={access[what] ? 'granted' : 'refused'}>
              <dt>{NAMES[what]}</dt>
              <dd>
                {access[what] ? (
                  <>
                    <strong>Yes</strong>, {until(untilOf(what, subscriptions, products) ?? access.until)}
                  </>
                ) : (
                  <>
                    <strong>No</strong>: {whyNot(what, subscriptions, products)}
                  </>
                )}
              </dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}
