/**
 * How a command fails. A `UsageError` means the arguments were wrong: the message and the
 * command's usage are printed, and the exit code is 2. A `CommandError` means the command could
 * not do what was asked (no such key): only its message, and the exit code is 1.
 */
export class UsageError extends Error {
  override name = 'UsageError';
}

export class CommandError extends Error {
  override name = 'CommandError';
}
