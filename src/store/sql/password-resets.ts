/**
 * Password reset tokens as every adapter keeps them: their columns and how a row reads back.
 */
import type { PasswordResetToken } from '../port.js';
import type { Row } from './rows.js';

export const RESET_TOKEN_COLUMNS = 'id, user_id, created_at, expires_at';

export function toPasswordResetToken(row: Row): PasswordResetToken {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}
