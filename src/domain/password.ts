/**
 * Passwords: the rules a new one must meet (NIST SP 800-63B: 8 to 256 characters, not one of the
 * most common, no composition rules), hashing with argon2id, verifying against the hashes we make
 * and those brought from another system (bcrypt, older argon2), and telling when a verified hash
 * should be made again with today's parameters. Readers and staff use the same module.
 *
 * Every password is normalised to NFC before it is hashed or verified, so the same password
 * typed on a keyboard that composes characters differently still matches.
 *
 * Hashes run on libuv's thread pool, so that a hash never blocks the event loop, and one fewer at
 * a time than there are cores (at least one): a hash is pure CPU, and four of them at once on a
 * two-core machine starved the reads a paywall is waiting for. Creates and sign-ins queue a little
 * longer instead, but never past their deadline: a request that would start its hash after it
 * gives up, having written nothing (see HashDeadlineExceeded). A check anyone may ask for without
 * a credential (the console's sign-in) queues behind every credentialed one, so that a flood of
 * them cannot hold up the readers signing in through the publisher's website.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { hash, parseOptions as argon2Parameters, verify, type Options } from '@node-rs/argon2';
import bcrypt from 'bcrypt';
import { dictionary } from '@zxcvbn-ts/language-common';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

/**
 * The argon2id parameters of every hash made here: OWASP's minimum (19 MiB, 2 passes, 1 lane).
 * Written out rather than left to the library's defaults, so that a library upgrade cannot change
 * them behind `needsRehash`'s back.
 */
const CURRENT = {
  algorithm: 2 as Options['algorithm'], // Argon2id (the enum is declared only in types)
  version: 1 as Options['version'], // 0x13, the current version of the algorithm
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
  outputLen: 32,
};

/**
 * The most an imported hash may cost to verify, each bound on its own: argon2 up to 64 MiB, 10
 * passes and 16 lanes, bcrypt up to cost 14. Anything dearer would let one import make every
 * sign-in of that reader a denial of service; a bound on memory × passes alone let 768 MiB × 1
 * through, which took many times a current hash's time and memory a sign-in.
 */
const MAX_ARGON2_MEMORY_KIB = 65_536;
const MAX_ARGON2_PASSES = 10;
const MAX_ARGON2_PARALLELISM = 16;
const MAX_BCRYPT_COST = 14;

// Stryker disable next-line Regex: no hash argon2 reads holds $2a$ (no part of two characters), and none past the start verifies or is taken as bcrypt
const BCRYPT = /^\$2[aby]\$/;
/** A whole bcrypt hash: the cost, then 22 characters of salt and 31 of hash in bcrypt's base64. */
const BCRYPT_HASH = /^\$2[aby]\$(\d\d)\$[./A-Za-z0-9]{53}$/;
// Stryker disable next-line Regex: argon2Parameters throws on what does not start with $argon2, which is malformed either way
const ARGON2 = /^\$argon2(?:id|i|d)\$/;

/** The 10,000 most common passwords, from zxcvbn's list (ordered by frequency, all lower case). */
const COMMON_PASSWORDS = new Set(dictionary['passwords-common'].slice(0, 10_000));

export const MAX_CONCURRENT_HASHES = Math.max(1, availableParallelism() - 1);
let running = 0;
/** Who waits for a slot: credentialed work first, then the public, each in order of arrival. */
const waiting = { credentialed: [] as (() => void)[], public: [] as (() => void)[] };

/** Whose turn a hash takes: a credential's request (the default), or one anyone may send. */
export type HashQueue = keyof typeof waiting;

/** When a hash gives up rather than start (epoch ms), and which queue it waits in. */
export interface HashTurn {
  deadline?: number;
  queue?: HashQueue;
}

/** A hash that could not start before its deadline: nothing was hashed, and nothing may be written. */
export class HashDeadlineExceeded extends Error {
  constructor() {
    super('too many passwords are being hashed to start this one before its deadline');
    this.name = 'HashDeadlineExceeded';
  }
}

/** Runs `work` when a slot is free, if one is before the deadline; a finishing hash hands its slot straight to the next in line. */
async function limited<T>(
  work: () => Promise<T>,
  { deadline = Infinity, queue = 'credentialed' }: HashTurn,
): Promise<T> {
  if (running < MAX_CONCURRENT_HASHES) running += 1;
  else await slotBefore(deadline, waiting[queue]);
  try {
    return await work();
  } finally {
    const next = waiting.credentialed.shift() ?? waiting.public.shift();
    if (next) next();
    else running -= 1;
  }
}

/** Waits in `line` for a slot to be handed over, or rejects when the deadline comes first. */
function slotBefore(deadline: number, line: (() => void)[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const handOver = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer =
      deadline === Infinity
        ? undefined
        : setTimeout(
            () => {
              line.splice(line.indexOf(handOver), 1);
              reject(new HashDeadlineExceeded());
            },
            Math.max(0, deadline - Date.now()),
          );
    line.push(handOver);
  });
}

/** The hash of a password; refused with HashDeadlineExceeded if it cannot start by the turn's deadline. */
export function hashPassword(password: string, turn: HashTurn = {}): Promise<string> {
  return limited(() => hash(password.normalize('NFC'), CURRENT), turn);
}

let dummy: Promise<string> | undefined;

/**
 * Whether `password` matches the stored hash (argon2 or bcrypt). With no hash at all (no such
 * reader, or one without a password) it verifies against a dummy hash of the same cost and
 * answers false, so that the answer takes as long whether or not the reader exists. A hash that
 * cannot be read never matches. Refused with HashDeadlineExceeded if it cannot start by the
 * turn's deadline.
 */
export async function verifyPassword(stored: string | null, password: string, turn: HashTurn = {}): Promise<boolean> {
  const normalised = password.normalize('NFC');
  if (stored === null) {
    dummy ??= hashPassword(randomBytes(16).toString('base64url'));
    const against = await dummy;
    // Stryker disable next-line ArrowFunction,BooleanLiteral: a dummy's answer is never read
    await limited(() => verify(against, normalised).catch(() => false), turn);
    return false;
  }
  return limited(
    () => (BCRYPT.test(stored) ? verifyBcrypt(stored, normalised) : verify(stored, normalised).catch(() => false)),
    turn,
  );
}

/**
 * PHP writes bcrypt as $2y$, which is $2b$ by another name; the library reads only $2a$ and $2b$.
 * A hash it cannot read never matches.
 */
function verifyBcrypt(stored: string, password: string): Promise<boolean> {
  // Stryker disable next-line Regex,ArrowFunction,BooleanLiteral: $2y$ can only lead (no $ after the cost); undefined is no match too; compare answers false to any text, never rejecting
  return bcrypt.compare(password, stored.replace(/^\$2y\$/, '$2b$')).catch(() => false);
}

/** Whether a verified hash should be made again: anything but argon2id with today's parameters. */
export function needsRehash(stored: string): boolean {
  // Stryker disable next-line ConditionalExpression,StringLiteral: a shortcut; argon2Parameters throws on the rest
  if (!stored.startsWith('$argon2id$')) return true;
  try {
    const p = argon2Parameters(stored);
    return (
      // Stryker disable next-line ConditionalExpression: the $argon2id$ prefix checked above fixes the algorithm
      p.algorithm !== CURRENT.algorithm ||
      p.version !== CURRENT.version ||
      p.memoryCost !== CURRENT.memoryCost ||
      p.timeCost !== CURRENT.timeCost ||
      p.parallelism !== CURRENT.parallelism ||
      p.outputLen !== CURRENT.outputLen
    );
  } catch {
    return true;
  }
}

/** Why a hash brought from another system cannot be taken, or undefined when it can. */
export function passwordHashProblem(stored: string): string | undefined {
  const malformed = 'must be a bcrypt ($2a$, $2b$, $2y$) or argon2 (PHC string) hash';
  try {
    if (BCRYPT.test(stored)) {
      // Stryker disable next-line OptionalChaining: no match throws instead, and the catch says malformed too
      const cost = Number(BCRYPT_HASH.exec(stored)?.[1] ?? NaN);
      if (!(cost >= 4 && cost <= 31)) return malformed;
      return cost > MAX_BCRYPT_COST ? `has a bcrypt cost above ${MAX_BCRYPT_COST}` : undefined;
    }
    // Stryker disable next-line ConditionalExpression: argon2Parameters throws on what is no argon2 hash
    if (ARGON2.test(stored)) {
      const p = argon2Parameters(stored);
      if (
        p.memoryCost > MAX_ARGON2_MEMORY_KIB ||
        p.timeCost > MAX_ARGON2_PASSES ||
        p.parallelism > MAX_ARGON2_PARALLELISM
      ) {
        return 'has argon2 parameters above 64 MiB, 10 passes or 16 lanes';
      }
      return undefined;
    }
  } catch {
    // The library could not read it: malformed.
  }
  return malformed;
}

/**
 * Resolves once `floorMs` have passed since `startedAt` (a `performance.now()`), at once if they
 * have. A failed sign-in waits for it before it answers: verifying costs what the stored hash
 * costs (a bcrypt hash of cost 12 many times today's argon2id, which an unknown email is verified
 * against), so without a floor the clock would tell which emails name a reader with an imported
 * hash. Waiting is no work: the hash's slot is free by then. A timer may fire a little early by
 * the clock it is measured with, hence the loop.
 */
export async function notBeforeFloor(startedAt: number, floorMs: number): Promise<void> {
  for (let left = startedAt + floorMs - performance.now(); left > 0; left = startedAt + floorMs - performance.now()) {
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
  }
}

/** Whether a password is among the most common ones (compared in lower case, as the list is). */
export function isCommonPassword(password: string): boolean {
  return COMMON_PASSWORDS.has(password.normalize('NFC').toLowerCase());
}
