/**
 * Password reset tokens on PostgreSQL.
 */
import type { AuditContext } from '../../domain/audit.js';
import type { NewPasswordResetToken, PasswordResetStore } from '../port.js';
import { RESET_TOKEN_COLUMNS, toPasswordResetToken } from '../sql/password-resets.js';
import { auditInsert, type PostgresDatabase } from './database.js';

export function postgresPasswordResets(database: PostgresDatabase): PasswordResetStore {
  async function createPasswordResetToken(token: NewPasswordResetToken, audit: AuditContext) {
    const params: unknown[] = [token.userId, token.tokenHash, token.createdAt, token.expiresAt];
    const record = auditInsert(params, audit, {
      action: 'create',
      resourceType: 'password-reset-tokens',
      userIdColumn: 'user_id',
      from: 't',
    });
    try {
      const [row] = await database.rows(
        `WITH t AS (
           INSERT INTO password_reset_tokens (user_id, token_hash, created_at, expires_at)
           SELECT $1::bigint, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM users WHERE id = $1::bigint)
           RETURNING ${RESET_TOKEN_COLUMNS}
         ), a AS (${record})
         SELECT * FROM t`,
        params,
      );
      return row && toPasswordResetToken(row);
    } catch (error) {
      // The user was erased between the check and the insert.
      if ((error as { code?: string }).code === '23503') return undefined;
      throw error;
    }
  }

  async function voidPasswordResetToken(userId: string, id: string, audit: AuditContext): Promise<boolean> {
    const params: unknown[] = [userId, id];
    const record = auditInsert(params, audit, {
      action: 'delete',
      resourceType: 'password-reset-tokens',
      userIdColumn: 'user_id',
      from: 't',
    });
    const rows = await database.rows(
      `WITH t AS (
         DELETE FROM password_reset_tokens WHERE user_id = $1 AND id = $2 RETURNING id, user_id
       ), a AS (${record})
       SELECT count(*)::int AS n FROM t`,
      params,
    );
    return rows[0]?.n === 1;
  }

  async function hasPasswordResetToken(userId: string, tokenHash: Buffer, now: number): Promise<boolean> {
    const rows = await database.rows(
      'SELECT 1 FROM password_reset_tokens WHERE user_id = $1 AND token_hash = $2 AND expires_at > $3',
      [userId, tokenHash, now],
    );
    return rows.length > 0;
  }

  async function resetPassword(
    userId: string,
    tokenHash: Buffer,
    passwordHash: string,
    now: number,
    audit: AuditContext,
  ) {
    const params: unknown[] = [userId, tokenHash, now, passwordHash];
    const record = auditInsert(params, audit, {
      action: 'update',
      resourceType: 'users',
      userIdColumn: 'id',
      from: 'u',
    });
    // The token's row lock makes a second use at the same moment wait, then find it gone.
    const rows = await database.rows(
      `WITH t AS (
         SELECT user_id FROM password_reset_tokens
         WHERE user_id = $1 AND token_hash = $2 AND expires_at > $3 FOR UPDATE
       ), u AS (
         UPDATE users SET password_hash = $4, version = version + 1, updated_at = now()
         WHERE id IN (SELECT user_id FROM t) RETURNING id, email_lower
       ), voided AS (
         DELETE FROM password_reset_tokens WHERE user_id IN (SELECT id FROM u)
       ), forgotten AS (
         DELETE FROM sign_in_attempts WHERE email_lower IN (SELECT email_lower FROM u)
       ), a AS (${record})
       SELECT count(*)::int AS n FROM u`,
      params,
    );
    return rows[0]?.n === 1;
  }

  async function forgetExpiredPasswordResetTokens(now: number): Promise<number> {
    return database.changes('DELETE FROM password_reset_tokens WHERE expires_at <= $1', [now]);
  }

  return {
    createToken: createPasswordResetToken,
    voidToken: voidPasswordResetToken,
    hasToken: hasPasswordResetToken,
    resetPassword,
    forgetExpiredTokens: forgetExpiredPasswordResetTokens,
  };
}
