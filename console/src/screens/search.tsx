/** Find a reader: one box, searched a moment after typing stops. */
import { useEffect, useState } from 'preact/hooks';
import { searchReaders, type ReaderSummary } from '../api/readers';

const DEBOUNCE_MS = 300;

export function SearchPage() {
  const [text, setText] = useState('');
  const [found, setFound] = useState<ReaderSummary[] | undefined>();
  useEffect(() => {
    if (text.trim() === '') {
      setFound(undefined);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      searchReaders(text).then((readers) => current && setFound(readers));
    }, DEBOUNCE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [text]);
  return (
    <>
      <h1>Find a reader</h1>
      <form role="search" onSubmit={(e) => e.preventDefault()}>
        <label for="search">Email, circulation number or reader id</label>
        <input id="search" type="search" value={text} onInput={(e) => setText(e.currentTarget.value)} autoFocus />
      </form>
      <div aria-live="polite">
        {found?.length === 0 && <p>No reader found.</p>}
        {found && found.length > 0 && (
          <ul class="results">
            {found.map((reader) => (
              <li key={reader.id}>
                <a href={`#/readers/${encodeURIComponent(reader.id)}`}>
                  {[reader.attributes.givenName, reader.attributes.familyName].filter(Boolean).join(' ')}
                </a>{' '}
                <span>{reader.attributes.email}</span>
                {reader.attributes.circulationNumber && <span> · {reader.attributes.circulationNumber}</span>}
              </li>
            ))}
          </ul>
        )}
      </div>
    </>
  );
}
