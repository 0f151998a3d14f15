/**
 * The session cookie: `HttpOnly; SameSite=Strict; Path=/`, and `Secure` with the `__Host-` name
 * prefix when the service is reached over https (a browser then refuses it from any other origin).
 */
import type { ConsoleSettings } from './sessions.js';

const NAME = 'circulation_session';

export function sessionCookieName(settings: Pick<ConsoleSettings, 'secure'>): string {
  return settings.secure ? `__Host-${NAME}` : NAME;
}

export function sessionCookie(settings: Pick<ConsoleSettings, 'secure'>, sessionId: string): string {
  return `${sessionCookieName(settings)}=${sessionId}; ${attributes(settings)}`;
}

/** The header that makes a browser forget the cookie. */
export function clearedSessionCookie(settings: Pick<ConsoleSettings, 'secure'>): string {
  return `${sessionCookieName(settings)}=; Max-Age=0; ${attributes(settings)}`;
}

function attributes({ secure }: Pick<ConsoleSettings, 'secure'>): string {
  return `Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** The session id a Cookie header carries, or undefined. Session ids are base64url: anything else is no session. */
export function presentedSessionId(header: string | undefined, settings: Pick<ConsoleSettings, 'secure'>) {
  if (!header) return undefined;
  const name = sessionCookieName(settings);
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}
