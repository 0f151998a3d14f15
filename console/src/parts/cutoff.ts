/**
 * The cut-off as an agent on the phone says it, from what the service states (the `meta` of the
 * holds' and temporary addresses' lists): "Tomorrow (Fri 27 Nov) can still be stopped until 19:00
 * today", or "Tomorrow (Fri 27 Nov) is past its cut-off; the first date that can be stopped is Sat 28 Nov,
 * until 19:00 tomorrow". Dates and times are the publisher's (its PUBLICATION_TIME_ZONE), named
 * when the agent's browser is in another zone. The rule itself stays in the service.
 */

/** Where the cut-off stands, as the service states it (the lists' `meta`; api/print.ts's ChangesOpen). */
export interface ChangesOpen {
  today: string;
  firstOpenDate: string;
  firstOpenCutoff: string;
  timeZone: string;
}

const DAY_MS = 86_400_000;

/** Days from `from` to `to`, both YYYY-MM-DD. */
function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/** "Fri 27 Nov" of a YYYY-MM-DD date. */
export function shortDate(date: string): string {
  return new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' })
    .format(new Date(`${date}T00:00:00Z`))
    .replace(',', '');
}

/** "Tomorrow (Fri 27 Nov)", "Today (Thu 26 Nov)", or "Sat 28 Nov" further on. */
function dateNamed(date: string, today: string): string {
  const offset = daysBetween(today, date);
  if (offset === 0) return `Today (${shortDate(date)})`;
  if (offset === 1) return `Tomorrow (${shortDate(date)})`;
  return shortDate(date);
}

/** "today", "tomorrow", or "on Sat 28 Nov": a day as said after a time. */
function dayAfterTime(date: string, today: string): string {
  const offset = daysBetween(today, date);
  if (offset === 0) return 'today';
  if (offset === 1) return 'tomorrow';
  return `on ${shortDate(date)}`;
}

/** The date (YYYY-MM-DD) and time (HH:MM) of an instant in `zone`. */
function wallClock(instant: string, zone: string): { date: string; time: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

/**
 * What the cut-off allows now, for a change described by `verb` ("stopped", "sent elsewhere"),
 * `agentZone` being the browser's own (the publisher's is named when it differs).
 */
export function cutoffText(open: ChangesOpen, verb: string, agentZone?: string): string {
  const { today, firstOpenDate, firstOpenCutoff, timeZone } = open;
  const closes = wallClock(firstOpenCutoff, timeZone);
  const zone = agentZone === undefined || agentZone === timeZone ? '' : ` (${timeZone} time)`;
  const until = `until ${closes.time} ${dayAfterTime(closes.date, today)}${zone}`;
  const tomorrow = daysBetween(today, firstOpenDate) > 1 ? shortDate(offsetDate(today, 1)) : undefined;
  if (tomorrow === undefined) return `${dateNamed(firstOpenDate, today)} can still be ${verb} ${until}.`;
  return `Tomorrow (${tomorrow}) is past its cut-off; the first date that can be ${verb} is ${dateNamed(firstOpenDate, today)}, ${until}.`;
}

function offsetDate(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The browser's own time zone. */
export function agentZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
