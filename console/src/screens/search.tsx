/**
 * Find a reader: one box, searched a moment after typing stops, for a name as a caller says it;
 * each reader found with where they live and whether they have an active subscription. A text
 * that is an email domain (`uni.example`, `@uni.example`) also finds the site licences for it,
 * listed first. The text lives in the address (`#/?q=…`), replaced as it is typed, so that Back
 * from a reader, and a reload, find it again.
 */
import { useEffect, useState } from 'preact/hooks';
import { domainOf, findLicences, type FoundLicence } from '../api/licences';
import { searchReaders, type ReaderSummary, type SearchResult } from '../api/readers';
import { takeFlash } from '../parts/flash';

const DEBOUNCE_MS = 300;

/** The search text the address holds, if any. */
const queryOf = (hash: string) => new URLSearchParams(hash.split('?')[1] ?? '').get('q') ?? '';

function keepInAddress(text: string) {
  history.replaceState(null, '', text.trim() === '' ? '#/' : `#/?q=${encodeURIComponent(text)}`);
}

/** Where the reader lives, as an agent checks it with a caller: postal code and town. */
function placeOf(reader: ReaderSummary): string {
  const address = reader.attributes.address;
  return [address?.postalCode, address?.addressLocality].filter(Boolean).join(' ');
}

export function SearchPage() {
  const [text, setText] = useState(() => queryOf(location.hash));
  const [found, setFound] = useState<SearchResult | undefined>();
  const [licences, setLicences] = useState<FoundLicence[]>([]);
  const [notice] = useState(takeFlash);
  useEffect(() => {
    if (text.trim() === '') {
      setFound(undefined);
      setLicences([]);
      return;
    }
    let current = true;
    const domain = domainOf(text);
    const timer = setTimeout(() => {
      searchReaders(text).then((result) => current && setFound(result));
      if (domain === undefined) setLicences([]);
      else findLicences(domain).then((result) => current && setLicences('licences' in result ? result.licences : []));
    }, DEBOUNCE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [text]);
  return (
    <>
      <h1>Find a reader</h1>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <form role="search" onSubmit={(e) => e.preventDefault()}>
        <label for="search">Name, email, circulation number or reader id</label>
        <input
          id="search"
          type="search"
          value={text}
          onInput={(e) => {
            setText(e.currentTarget.value);
            keepInAddress(e.currentTarget.value);
          }}
          aria-describedby={found && 'refused' in found ? 'search-error search-hint' : 'search-hint'}
          autoFocus
        />
        <p id="search-hint" class="muted">
          Type a name as the caller says it: given and family name in either order, without accents or apostrophes
          (obrien, odegaard). A name one letter off is offered after the readers it matches. An email domain
          (uni.example) also finds the site licences for it.
        </p>
      </form>
      <div aria-live="polite">
        {licences.length > 0 && (
          <section aria-labelledby="licences-found-heading">
            <h2 id="licences-found-heading">Site licences for {domainOf(text)}</h2>
            <ul class="results">
              {licences.map(({ owner, licence }) => (
                <li key={licence.id}>
                  <a href={`#/readers/${encodeURIComponent(owner.id)}/licences/${encodeURIComponent(licence.id)}`}>
                    Site licence {licence.id} of{' '}
                    {[owner.attributes.givenName, owner.attributes.familyName].filter(Boolean).join(' ') ||
                      owner.attributes.email}
                  </a>{' '}
                  <span>{(licence.attributes.emailDomains ?? []).join(', ')}</span>{' '}
                  <span class={`status status-${licence.attributes.status}`}>{licence.attributes.status}</span>
                </li>
              ))}
            </ul>
          </section>
        )}
        {found && 'refused' in found && (
          <p class="error" id="search-error">
            {found.refused}
          </p>
        )}
        {found && 'readers' in found && found.readers.length === 0 && <p>No reader found.</p>}
        {found && 'readers' in found && found.readers.length > 0 && (
          <ul class="results">
            {found.readers.map((reader) => (
              <li key={reader.id}>
                <a href={`#/readers/${encodeURIComponent(reader.id)}`}>
                  {[reader.attributes.givenName, reader.attributes.familyName].filter(Boolean).join(' ')}
                </a>{' '}
                <span>{reader.attributes.email}</span>
                {reader.attributes.circulationNumber && <span> · {reader.attributes.circulationNumber}</span>}
                {placeOf(reader) && <span class="place"> · {placeOf(reader)}</span>}
                {reader.meta?.active && (
                  <>
                    {' '}
                    <span class="status status-active">active</span>
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
    </>
  );
}
