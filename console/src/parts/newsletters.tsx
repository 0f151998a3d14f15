/** The newsletters a reader receives: one removed, or one added, with the reader's ETag as If-Match. */
import { useState } from 'preact/hooks';
import { errorsOf } from '../api/client';
import { updateReader, type LoadedReader } from '../api/readers';

type Named = { id: string; name: string };

export function Newsletters({
  loaded,
  newsletters,
  reload,
}: {
  loaded: LoadedReader;
  newsletters: Named[];
  reload: () => Promise<unknown>;
}) {
  const current = loaded.reader.attributes.newsletters ?? [];
  const [adding, setAdding] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const nameOf = (id: string) => newsletters.find((n) => n.id === id)?.name ?? id;
  const change = async (newsletters: { add: string[] } | { remove: string[] }) => {
    const { response, error } = await updateReader(loaded.reader.id, loaded.etag, { newsletters });
    setProblem(
      response.ok
        ? undefined
        : response.status === 412
          ? 'Someone else changed this reader meanwhile: the list now shows their newsletters.'
          : errorsOf(error)
              .map((e) => e.detail ?? e.title)
              .join(' '),
    );
    setAdding('');
    await reload();
  };
  return (
    <section aria-labelledby="newsletters-heading">
      <h2 id="newsletters-heading">Newsletters</h2>
      {current.length === 0 ? (
        <p>No newsletters.</p>
      ) : (
        <ul>
          {current.map((id) => (
            <li key={id}>
              {nameOf(id)}{' '}
              <button type="button" aria-label={`Remove ${nameOf(id)}`} onClick={() => change({ remove: [id] })}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (adding) change({ add: [adding] });
        }}
      >
        <label for="add-newsletter">Add a newsletter</label>
        <select id="add-newsletter" value={adding} onChange={(e) => setAdding(e.currentTarget.value)}>
          <option value="">Choose a newsletter</option>
          {newsletters
            .filter((n) => !current.includes(n.id))
            .map((n) => (
              <option key={n.id} value={n.id}>
                {n.name}
              </option>
            ))}
        </select>{' '}
        <button type="submit">Add newsletter</button>
      </form>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
