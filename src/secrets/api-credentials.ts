/**
 * Issuing credentials, for the API, the CLI and the first start alike: a fresh secret, only
 * its hash stored, the whole secret handed back once.
 */
import { formatSecret, newSecret, type ApiKey, type Scope } from '../domain/api-key.js';
import type { AuditContext } from '../domain/audit.js';
import type { Store } from '../store/port.js';

export interface CredentialRequest {
  name: string;
  scopes: readonly Scope[];
  rateLimit: number | null;
}

export interface IssuedCredential {
  key: ApiKey;
  /** Shown once; only its hash is kept. */
  secret: string;
}

export async function issueCredential(
  store: Store,
  request: CredentialRequest,
  audit: AuditContext,
): Promise<IssuedCredential> {
  const { random, hash } = newSecret();
  const key = await store.credentials.create({ ...request, secretHash: hash }, audit);
  return { key, secret: formatSecret(key.id, random) };
}

/** An admin credential when there is no credential at all yet (the first start), else nothing. */
export async function issueFirstAdminCredential(store: Store): Promise<IssuedCredential | undefined> {
  const { random, hash } = newSecret();
  const key = await store.credentials.createFirst({
    name: 'first admin',
    scopes: ['admin'],
    rateLimit: null,
    secretHash: hash,
  });
  return key && { key, secret: formatSecret(key.id, random) };
}
