/**
 * The privacy requests still open (#/privacy-requests), the soonest due first, those past their
 * due date marked overdue in words as well as colour; each marked completed in one click, which
 * takes it off the list. A request is opened from its reader's page.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { describe } from '../api/client';
import {
  completePrivacyRequest,
  listOpenPrivacyRequests,
  readerOf,
  type PrivacyRequest,
} from '../api/privacy-requests';
import { readerNames } from '../api/readers';
import { when } from '../parts/history';
import { KIND } from '../parts/privacy-request-form';

export function PrivacyRequestsPage() {
  const [requests, setRequests] = useState<PrivacyRequest[] | undefined>();
  const [names, setNames] = useState(new Map<string, string>());
  const [unread, setUnread] = useState(false);
  const [done, setDone] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const load = useCallback(async () => {
    const { records, complete } = await listOpenPrivacyRequests();
    setRequests(records);
    setUnread(!complete);
    setNames(await readerNames(records.flatMap((r) => readerOf(r) ?? [])));
  }, []);
  useEffect(() => {
    load();
  }, [load]);
  const complete = async (request: PrivacyRequest) => {
    setDone(undefined);
    const { response, error } = await completePrivacyRequest(request);
    if (response.ok) {
      setProblem(undefined);
      setDone(`Request ${request.id} marked completed.`);
    } else setProblem(describe(error, response.status));
    await load();
  };
  const now = Date.now();
  return (
    <>
      <h1>Privacy requests</h1>
      <p class="muted">
        What readers asked under data protection law, due one calendar month after it came. Open a request from the
        reader's page.
      </p>
      {unread && (
        <p class="error" role="alert">
          The privacy requests could not all be read.
        </p>
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {done && (
        <p class="notice" role="status">
          {done}
        </p>
      )}
      {requests === undefined && <p role="status">Loading…</p>}
      {requests?.length === 0 && !unread && <p>No privacy request is open.</p>}
      {requests && requests.length > 0 && (
        <ol class="records" aria-label="Open privacy requests, the soonest due first">
          {requests.map((request) => {
            const a = request.attributes;
            const reader = readerOf(request);
            return (
              <li key={request.id}>
                <strong>
                  Due <time dateTime={a.dueAt}>{a.dueAt.slice(0, 10)}</time>
                </strong>
                {Date.parse(a.dueAt) < now && <span class="overdue"> overdue</span>}: {KIND[a.kind]}, for{' '}
                {reader === undefined ? (
                  'an erased reader'
                ) : (
                  <a href={`#/readers/${encodeURIComponent(reader)}`}>{names.get(reader) ?? `reader ${reader}`}</a>
                )}
                <br />
                <span class="muted">
                  Request {request.id}, received <time dateTime={a.receivedAt}>{when(a.receivedAt)}</time>
                  {a.notes && ` · ${a.notes}`}
                </span>{' '}
                <span class="actions">
                  <button
                    type="button"
                    aria-label={`Mark request ${request.id} completed`}
                    onClick={() => complete(request)}
                  >
                    Mark completed
                  </button>
                </span>
              </li>
            );
          })}
        </ol>
      )}
    </>
  );
}
