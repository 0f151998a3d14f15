/**
 * A message for the next screen, said once: what a finished action did where its own screen is
 * gone (a reader erased is no longer there to say so). The console is one page, so it lives in
 * memory until the next screen takes it.
 */
let pending: string | undefined;

export function flash(message: string): void {
  pending = message;
}

/** The message left for this screen, if any; taken, so a later screen does not say it again. */
export function takeFlash(): string | undefined {
  const message = pending;
  pending = undefined;
  return message;
}
