/** The console's session: signing in and out through /staff-sessions, and finding a live one. */
import { api, errorsOf, useCsrfToken, type ApiError, type paths } from './client';

/** What the service is set up to do beyond the API: mail a reader, make a reset link. */
export type Offers = SessionDocument['meta'];

export interface SignedIn {
  name: string;
  email: string;
  role: string;
  offers: Offers;
}

type SessionDocument =
  paths['/staff-sessions/{session}']['get']['responses'][200]['content']['application/vnd.api+json'];

function signedIn(document: SessionDocument): SignedIn {
  useCsrfToken(document.data.attributes.csrfToken);
  const staff = document.included[0]?.attributes;
  return { name: staff?.name ?? '', email: staff?.email ?? '', role: staff?.role ?? '', offers: document.meta };
}

/** The session the browser's cookie names, or null when there is none (or it has ended). */
export async function currentSession(): Promise<SignedIn | null> {
  const { data } = await api.GET('/staff-sessions/{session}', { params: { path: { session: 'current' } } });
  return data ? signedIn(data) : null;
}

export async function signIn(email: string, password: string): Promise<SignedIn | ApiError[]> {
  const { data, error } = await api.POST('/staff-sessions', {
    body: { data: { type: 'staff-sessions', attributes: { email, password } } },
  });
  return data ? signedIn(data) : errorsOf(error);
}

export async function signOut(): Promise<void> {
  await api.DELETE('/staff-sessions/{session}', { params: { path: { session: 'current' } } });
  useCsrfToken(undefined);
}
