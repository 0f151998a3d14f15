/**
 * A reader's page: what they get now and their subscriptions first (what most calls are about,
 * and first on a phone's narrow screen), their print deliveries (holds, complaints), then
 * newsletters with their consents, the profile to edit and temporary addresses, a privacy request
 * (for an admin), the rarer actions, and the history.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { loadReader, readerName, type LoadedReader } from '../api/readers';
import type { Offers } from '../api/session';
import { listNewsletters, listProducts } from '../api/subscriptions';
import { DangerZone } from '../parts/danger-zone';
import { History } from '../parts/history';
import { Newsletters } from '../parts/newsletters';
import { AccessSummary } from '../parts/access';
import { WEEKDAYS, type CatalogueProduct, type Resource } from '../parts/entitlements';
import { PrintDeliveries } from '../parts/print';
import { PrivacyRequestForm } from '../parts/privacy-request-form';
import { ProfileForm } from '../parts/profile-form';
import { Subscriptions } from '../parts/subscriptions';
import { TemporaryAddresses } from '../parts/temporary-addresses';

type Catalogue = { products: CatalogueProduct[]; newsletters: { id: string; name: string }[] };

export function ReaderPage({
  id,
  offers,
  keepsPrivacyRequests,
}: {
  id: string;
  offers: Offers;
  /** Whether the staff member may open a privacy request (an admin). */
  keepsPrivacyRequests: boolean;
}) {
  const [loaded, setLoaded] = useState<LoadedReader | null | undefined>();
  // Until the catalogue has come, a subscription could only be shown by its product's id as giving
  // nothing: the page waits for it as for the reader.
  const [catalogue, setCatalogue] = useState<Catalogue | undefined>();
  const reload = useCallback(async () => {
    const next = await loadReader(id);
    setLoaded(next ?? null);
    return next;
  }, [id]);
  useEffect(() => {
    reload();
    Promise.all([listProducts(), listNewsletters()])
      .then(([products, newsletters]) =>
        setCatalogue({
          products: products.map((p) => ({
            id: p.id,
            name: p.attributes.name ?? p.id,
            active: p.attributes.active,
            resource: (p.attributes.resource ?? null) as Resource | null,
            deliveryDays: p.attributes.deliveryDays ?? WEEKDAYS,
          })),
          newsletters: newsletters.map((n) => ({ id: n.id, name: n.attributes.name ?? n.id })),
        }),
      )
      .catch(() => setCatalogue({ products: [], newsletters: [] }));
  }, [reload]);

  if (loaded === null)
    return (
      <>
        <h1>No such reader</h1>
        <p>
          <a href="#/">Back to the search</a>
        </p>
      </>
    );
  if (loaded === undefined || catalogue === undefined) return <p role="status">Loading…</p>;
  const { reader } = loaded;
  return (
    <>
      <h1>{readerName(reader)}</h1>
      <p class="muted">
        Reader {reader.id}
        {reader.attributes.circulationNumber && ` · circulation number ${reader.attributes.circulationNumber}`}
      </p>
      <div class="columns">
        <div>
          <AccessSummary loaded={loaded} products={catalogue.products} />
          <Subscriptions loaded={loaded} products={catalogue.products} reload={reload} />
          <PrintDeliveries loaded={loaded} products={catalogue.products} reload={reload} />
          <Newsletters loaded={loaded} newsletters={catalogue.newsletters} reload={reload} />
        </div>
        <div>
          <ProfileForm loaded={loaded} reload={reload} />
          <TemporaryAddresses loaded={loaded} reload={reload} />
          {keepsPrivacyRequests && <PrivacyRequestForm userId={reader.id} />}
          <DangerZone loaded={loaded} offers={offers} />
        </div>
      </div>
      {/* Each change on the page reloads the reader, so a new `loaded` means the history has grown. */}
      <History userId={reader.id} version={loaded} />
    </>
  );
}
