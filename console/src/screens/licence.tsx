/**
 * A site licence's page (#/readers/<owner>/licences/<id>), reached from its row on the owner's
 * page and from the search by domain: whose it is and its dates, its networks, domains and seats
 * to edit, who holds its seats, and its usage by month as a chart and a table.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { licenceUsage, loadLicence, type LoadedLicence, type UsageMonth } from '../api/licences';
import { dayOf } from '../api/subscriptions';
import { LicenceSeats } from '../parts/licence-seats';
import { LicenceTerms } from '../parts/licence-terms';
import { LicenceUsage } from '../parts/licence-usage';

export function LicencePage({ ownerId, id }: { ownerId: string; id: string }) {
  const [loaded, setLoaded] = useState<LoadedLicence | null | undefined>();
  const [usage, setUsage] = useState<UsageMonth[] | null | undefined>();
  const reload = useCallback(async () => {
    const next = await loadLicence(ownerId, id);
    setLoaded(next ?? null);
    return next;
  }, [ownerId, id]);
  useEffect(() => {
    reload();
    licenceUsage(ownerId, id).then(setUsage);
  }, [reload, ownerId, id]);

  if (loaded === undefined) return <p role="status">Loading…</p>;
  if (loaded === null || loaded.licence.attributes.license !== 'site')
    return (
      <>
        <h1>No such site licence</h1>
        <p>
          <a href={`#/readers/${encodeURIComponent(ownerId)}`}>Back to the reader</a>
        </p>
      </>
    );
  const { owner, licence } = loaded;
  const a = licence.attributes;
  const ownerName = [owner.attributes.givenName, owner.attributes.familyName].filter(Boolean).join(' ');
  return (
    <>
      <h1>Site licence {licence.id}</h1>
      <p>
        Of <a href={`#/readers/${encodeURIComponent(owner.id)}`}>{ownerName || owner.attributes.email}</a>
        {' · '}
        <span class={`status status-${a.status}`}>{a.status}</span> {dayOf(a.dateStarted)} →{' '}
        {dayOf(a.dateEnded) || 'open-ended'}
      </p>
      <div class="columns">
        <div>
          <LicenceTerms loaded={loaded} reload={reload} />
        </div>
        <div>
          <LicenceSeats loaded={loaded} />
        </div>
      </div>
      {usage === undefined ? <p role="status">Loading usage…</p> : <LicenceUsage months={usage} />}
    </>
  );
}
