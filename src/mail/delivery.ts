/**
 * Sending a message while someone waits for the answer: a few attempts, each on a new
 * connection, a short pause between them, and never past the request's deadline. A failure no
 * retry mends (a 5xx reply, bad credentials) ends it at once. What is not sent by then is the
 * caller's to undo: a message is never kept to be sent later, as it may hold a secret.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MailNotSent, type MailFailure, type Mailer, type MailMessage } from './port.js';

export interface MailRetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** The pause after the first failed attempt; it doubles after each further one. */
  backoffMs: number;
}

export const DEFAULT_MAIL_RETRY: MailRetryPolicy = { attempts: 3, backoffMs: 500 };

/** The message could not be sent in the attempts and the time there were. */
export class MailUndelivered extends Error {
  constructor(
    readonly attempts: number,
    readonly last: MailFailure | undefined,
  ) {
    super(`mail not sent after ${attempts} attempt(s)`);
    this.name = 'MailUndelivered';
  }
}

export interface DeliveryOptions {
  /** Epoch milliseconds after which no attempt runs on (the request's deadline). */
  deadline: number;
  policy?: MailRetryPolicy;
  /** Told of each failed attempt, for the log. */
  onFailure?: (failure: MailFailure, attempt: number) => void;
}

/** Sends the message, retrying as the policy says; rejects with MailUndelivered when it could not. */
export async function deliver(mailer: Mailer, message: MailMessage, options: DeliveryOptions): Promise<void> {
  const { deadline, policy = DEFAULT_MAIL_RETRY, onFailure } = options;
  let last: MailFailure | undefined;
  for (let attempt = 1; attempt <= policy.attempts; attempt += 1) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new MailUndelivered(attempt - 1, last);
    try {
      await mailer.send(message, AbortSignal.timeout(remaining));
      return;
    } catch (error) {
      // Anything else is a fault of ours, not the server's: no retry hides it.
      if (!(error instanceof MailNotSent)) throw error;
      last = error.failure;
      onFailure?.(last, attempt);
      if (last.permanent || attempt === policy.attempts) throw new MailUndelivered(attempt, last);
      const pause = policy.backoffMs * 2 ** (attempt - 1);
      if (Date.now() + pause >= deadline) throw new MailUndelivered(attempt, last);
      await sleep(pause);
    }
  }
  throw new MailUndelivered(policy.attempts, last);
}
