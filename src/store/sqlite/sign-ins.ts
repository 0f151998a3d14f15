/**
 * Sign-ins on SQLite.
 */
import type { AuditContext } from '../../domain/audit.js';
import { emailKeys } from '../../domain/email.js';
import type { AttemptLimits, SignInAccount, SignInStore, SuccessfulSignIn } from '../port.js';
import { attemptDecision, countAttempt, forgetAttempts, forgetAttemptsOf, windowStart } from '../sql/sign-ins.js';
import type { SqliteDatabase } from './database.js';

export function sqliteSignIns(database: SqliteDatabase): SignInStore {
  const { db } = database;

  const selectAccount = db.prepare('SELECT id, password_hash FROM users WHERE email_lower = ?');

  async function findSignInAccount(email: string): Promise<SignInAccount | undefined> {
    const row = selectAccount.get(emailKeys(email).lower) as { id: number; password_hash: string | null } | undefined;
    return row && { id: String(row.id), passwordHash: row.password_hash };
  }

  async function countSignInAttempt(email: string, now: number, limits: AttemptLimits) {
    const lower = emailKeys(email).lower;
    return db
      .transaction(() => {
        const counted = database.all(countAttempt(lower, now, limits)).length > 0;
        const started = counted ? undefined : database.all(windowStart(lower))[0]?.window_started_at;
        return attemptDecision(counted, started, now, limits);
      })
      .immediate();
  }

  const touch = db.prepare(`
    UPDATE users SET last_sign_in_at = @at, version = version + 1,
      password_hash = CASE WHEN @to IS NOT NULL AND password_hash = @from THEN @to ELSE password_hash END
    WHERE id = @id`);

  async function recordSignIn(userId: string, signIn: SuccessfulSignIn, audit: AuditContext) {
    const { at, rehash } = signIn;
    return db
      .transaction(() => {
        if (touch.run({ id: userId, at, from: rehash?.from ?? null, to: rehash?.to ?? null }).changes === 0) {
          return undefined;
        }
        database.changes(forgetAttemptsOf(emailKeys(signIn.email).lower));
        return database.record(audit, { action: 'sign-in', resourceType: 'users', resourceId: userId, userId });
      })
      .immediate();
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
