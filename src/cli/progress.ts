/**
 * Progress of a long command: a bar with rate and time left on a terminal, a plain line every
 * few seconds otherwise (a log, a pipe, CI).
 */
export interface Progress {
  /** `done` units so far, `fraction` of the whole when it is known. */
  update(done: number, fraction?: number): void;
  finish(done: number): void;
}

export function progress(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  const started = performance.now();
  let lastLine = 0;
  const rate = (done: number) => Math.round(done / Math.max(0.001, (performance.now() - started) / 1000));
  return {
    update(done, fraction) {
      const now = performance.now();
      if (stream.isTTY) {
        if (now - lastLine < 100) return;
        lastLine = now;
        const width = 30;
        const filled = fraction === undefined ? 0 : Math.round(fraction * width);
        const eta = fraction && fraction > 0 ? ` ETA ${clock(((now - started) / 1000) * (1 / fraction - 1))}` : '';
        const bar =
          fraction === undefined
            ? ''
            : `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.round(fraction * 100)}% `;
        stream.write(
          `\r${label} ${bar}${done.toLocaleString('en')} rows ${rate(done).toLocaleString('en')}/s${eta}   `,
        );
      } else if (now - lastLine >= 5000) {
        lastLine = now;
        stream.write(
          `${label}: ${done} rows, ${rate(done)}/s${fraction === undefined ? '' : `, ${Math.round(fraction * 100)}%`}\n`,
        );
      }
    },
    finish(done) {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      stream.write(
        `${stream.isTTY ? '\r' : ''}${label}: ${done} rows in ${seconds} s (${rate(done)}/s)${' '.repeat(20)}\n`,
      );
    },
  };
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
