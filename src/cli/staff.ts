/**
 * `circulation staff create|list|disable|reset-password`: staff accounts managed from the machine
 * itself, which needs no credential, only the database (for the first admin of the console, say,
 * or an operator locked out of it).
 */
import { parseArgs } from 'node:util';
import { formatInstant, nowInSeconds } from '../domain/dates.js';
import { isEmail } from '../domain/email.js';
import { DomainFailure } from '../domain/failures.js';
import { ROLES, type Role } from '../domain/staff.js';
import { openStaffAccount } from '../use-cases/staff/accounts.js';
import { resetStaffPassword } from '../use-cases/staff/passwords.js';
import type { Store } from '../store/port.js';
import { COMMAND_LINE, CommandError, onlyId, UsageError, withStore, type Command } from './command.js';
import { didYouMean } from '../domain/suggestion.js';
import { formatTable } from './table.js';

export const staffCommand: Command = {
  summary: 'create, list, disable staff accounts for the console and reset their passwords (circulation staff --help)',
  usage: `Usage:
  circulation staff create --email EMAIL --name NAME --role agent|supervisor|admin
  circulation staff list
  circulation staff disable ID
  circulation staff reset-password --email EMAIL
`,
  run: withStore(async (store, args) => {
    process.stdout.write(await staff(store, args));
  }),
};

const STAFF_ACTIONS = ['create', 'list', 'disable', 'reset-password'];

async function staff(store: Store, args: readonly string[]): Promise<string> {
  const [action, ...rest] = args;
  if (action === 'create') return create(store, rest);
  if (action === 'list') return list(store);
  if (action === 'reset-password') return resetPassword(store, rest);
  if (action === 'disable') {
    const id = onlyId(rest, 'staff disable takes one staff id');
    const member = await store.staff.update(
      id,
      { disabledAt: nowInSeconds() },
      { actor: COMMAND_LINE, attributes: ['disabled'] },
    );
    if (!member) throw new CommandError(`there is no staff member with id ${id}`);
    return `disabled staff member ${id} (${member.email}); their sessions have ended\n`;
  }
  throw new UsageError(`there is no staff action "${action ?? ''}"${didYouMean(action ?? '', STAFF_ACTIONS)}`);
}

async function create(store: Store, args: readonly string[]): Promise<string> {
  const { values } = parseArgs({
    args: [...args],
    options: { email: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' } },
    strict: true,
  });
  const email = values.email?.trim() ?? '';
  if (!isEmail(email)) throw new UsageError('staff create needs --email, a valid email address');
  const name = values.name?.trim();
  if (!name || name.length > 100) throw new UsageError('staff create needs --name (1 to 100 characters)');
  const role = values.role;
  if (!role || !(ROLES as readonly string[]).includes(role)) {
    throw new UsageError(`staff create needs --role, one of ${ROLES.join(', ')}`);
  }
  try {
    const { member, initialPassword } = await openStaffAccount(
      store,
      { email, name, role: role as Role },
      { actor: COMMAND_LINE, attributes: ['email', 'name', 'role'] },
    );
    return (
      `created staff member ${member.id} (${member.email}) with role ${member.role}\n` +
      `their password, shown only this once:\n\n  ${initialPassword}\n\n` +
      `sign in at /console (e.g. http://127.0.0.1:3000/console)\n`
    );
  } catch (error) {
    if (error instanceof DomainFailure && error.code === 'EMAIL_TAKEN') {
      throw new CommandError(`a staff member with the email ${email} already exists`);
    }
    throw error;
  }
}

async function resetPassword(store: Store, args: readonly string[]): Promise<string> {
  const { values } = parseArgs({ args: [...args], options: { email: { type: 'string' } }, strict: true });
  const email = values.email?.trim() ?? '';
  if (!isEmail(email)) throw new UsageError('staff reset-password needs --email, a valid email address');
  const reset = await resetStaffPassword(store, email, { actor: COMMAND_LINE, attributes: ['password'] });
  if (!reset) throw new CommandError(`there is no staff member with the email ${email}`);
  const { member, password } = reset;
  return (
    `reset the password of staff member ${member.id} (${member.email}); every session of theirs has ended\n` +
    `their new password, shown only this once:\n\n  ${password}\n\n` +
    (member.disabledAt === null ? '' : `the account is disabled: enable it to sign in (PATCH /staff/${member.id})\n`)
  );
}

async function list(store: Store): Promise<string> {
  const rows = (await store.staff.list()).map((m) => [
    m.id,
    m.email,
    m.name,
    m.role,
    formatInstant(m.createdAt),
    m.disabledAt === null ? 'active' : `disabled ${formatInstant(m.disabledAt)}`,
  ]);
  return formatTable(['ID', 'EMAIL', 'NAME', 'ROLE', 'CREATED', 'STATE'], rows);
}
