/**
 * Password reset tokens on SQLite.
 */
import type { AuditContext } from '../../domain/audit.js';
import type { NewPasswordResetToken, PasswordResetStore } from '../port.js';
import { RESET_TOKEN_COLUMNS, toPasswordResetToken } from '../sql/password-resets.js';
import type { Row } from '../sql/rows.js';
import type { SqliteDatabase } from './database.js';

export function sqlitePasswordResets(database: SqliteDatabase): PasswordResetStore {
  const { db } = database;

  const insert = db.prepare(`
    INSERT INTO password_reset_tokens (user_id, token_hash, created_at, expires_at)
    SELECT @userId, @tokenHash, @createdAt, @expiresAt WHERE EXISTS (SELECT 1 FROM users WHERE id = @userId)
    RETURNING ${RESET_TOKEN_COLUMNS}`);

  async function createPasswordResetToken(token: NewPasswordResetToken, audit: AuditContext) {
    return db.transaction(() => {
      const row = insert.get(token) as Row | undefined;
      if (!row) return undefined;
      const created = toPasswordResetToken(row);
      database.record(audit, {
        action: 'create',
        resourceType: 'password-reset-tokens',
        resourceId: created.id,
        userId: created.userId,
      });
      return created;
    })();
  }

  const voidOne = db.prepare('DELETE FROM password_reset_tokens WHERE user_id = ? AND id = ?');

  async function voidPasswordResetToken(userId: string, id: string, audit: AuditContext): Promise<boolean> {
    return db.transaction(() => {
      if (voidOne.run(userId, id).changes === 0) return false;
      database.record(audit, { action: 'delete', resourceType: 'password-reset-tokens', resourceId: id, userId });
      return true;
    })();
  }

  const live = db.prepare(
    'SELECT 1 FROM password_reset_tokens WHERE user_id = ? AND token_hash = ? AND expires_at > ?',
  );

  async function hasPasswordResetToken(userId: string, tokenHash: Buffer, now: number): Promise<boolean> {
    return live.get(userId, tokenHash, now) !== undefined;
  }

  const voidAll = db.prepare('DELETE FROM password_reset_tokens WHERE user_id = ?');
  const setPassword = db.prepare(
    'UPDATE users SET password_hash = ?, version = version + 1, updated_at = unixepoch() WHERE id = ?',
  );
  const forgetAttempts = db.prepare(
    'DELETE FROM sign_in_attempts WHERE email_lower = (SELECT email_lower FROM users WHERE id = ?)',
  );

  async function resetPassword(
    userId: string,
    tokenHash: Buffer,
    passwordHash: string,
    now: number,
    audit: AuditContext,
  ) {
    return db
      .transaction(() => {
        if (live.get(userId, tokenHash, now) === undefined) return false;
        voidAll.run(userId);
        setPassword.run(passwordHash, userId);
        forgetAttempts.run(userId);
        database.record(audit, { action: 'update', resourceType: 'users', resourceId: userId, userId });
        return true;
      })
      .immediate();
  }

  const forgetExpired = db.prepare('DELETE FROM password_reset_tokens WHERE expires_at <= ?');

  async function forgetExpiredPasswordResetTokens(now: number): Promise<number> {
    return forgetExpired.run(now).changes;
  }

  return {
    createToken: createPasswordResetToken,
    voidToken: voidPasswordResetToken,
    hasToken: hasPasswordResetToken,
    resetPassword,
    forgetExpiredTokens: forgetExpiredPasswordResetTokens,
  };
}
