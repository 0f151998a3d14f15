/**
 * Sign-ins on PostgreSQL.
 */
import type { AuditContext } from '../../domain/audit.js';
import { emailKeys } from '../../domain/email.js';
import type { AttemptLimits, SignInAccount, SignInStore, SuccessfulSignIn } from '../port.js';
import { attemptDecision, countAttempt, forgetAttempts, windowStart } from '../sql/sign-ins.js';
import { auditInsert, type PostgresDatabase } from './database.js';

export function postgresSignIns(database: PostgresDatabase): SignInStore {
  async function findSignInAccount(email: string): Promise<SignInAccount | undefined> {
    const [row] = await database.rows('SELECT id, password_hash FROM users WHERE email_lower = $1', [
      emailKeys(email).lower,
    ]);
    return row && { id: String(row.id), passwordHash: row.password_hash as string | null };
  }

  async function countSignInAttempt(email: string, now: number, limits: AttemptLimits) {
    const lower = emailKeys(email).lower;
    const counted = (await database.rows(countAttempt(lower, now, limits))).length > 0;
    // Refused: when the full window ends (it may have passed meanwhile; then retry at once).
    const started = counted ? undefined : (await database.rows(windowStart(lower)))[0]?.window_started_at;
    return attemptDecision(counted, started, now, limits);
  }

  async function recordSignIn(userId: string, signIn: SuccessfulSignIn, audit: AuditContext) {
    const { at, rehash } = signIn;
    const params: unknown[] = [userId, new Date(at * 1000), rehash?.to ?? null, rehash?.from ?? null];
    params.push(emailKeys(signIn.email).lower);
    const record = auditInsert(params, audit, {
      action: 'sign-in',
      resourceType: 'users',
      userIdColumn: 'id',
      from: 'u',
    });
    // One statement: the user's row lock orders it with any concurrent change of the password.
    const rows = await database.rows(
      `WITH u AS (
         UPDATE users SET last_sign_in_at = $2, version = version + 1,
           password_hash = CASE WHEN $3::text IS NOT NULL AND password_hash = $4::text THEN $3::text
             ELSE password_hash END
         WHERE id = $1 RETURNING id
       ), f AS (
         DELETE FROM sign_in_attempts WHERE email_lower = $5 AND EXISTS (SELECT 1 FROM u)
       ), a AS (${record} RETURNING id)
       SELECT id FROM a`,
      params,
    );
    return rows[0] === undefined ? undefined : String(rows[0].id);
  }

  async function forgetSignInAttempts(before: number): Promise<number> {
    return database.changes(forgetAttempts(before));
  }

  return {
    findAccount: findSignInAccount,
    countAttempt: countSignInAttempt,
    record: recordSignIn,
    forgetAttempts: forgetSignInAttempts,
  };
}
