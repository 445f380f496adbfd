// A progress line for long work on the terminal: count, rate and time left, redrawn in place on a terminal (at most
// a few times a second) or printed as a line every few seconds when stderr is a file or pipe (--progress).
export type ProgressLine = { start(text: string): void; update(done: number, total: number): void; end(): void };

const clock = (s: number): string => (s >= 3600 ? `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min` : s >= 60 ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s` : `${Math.max(1, Math.round(s))} s`);

/**
 * `label` names the work ("embedding"), `unit` its items ("chunks"). `start` says what happens before the first item
 * is done (a model loading); the rate counts from the first update.
 */
export function progressLine(write: (s: string) => void, label: string, unit: string, options: { tty: boolean; now?: () => number }): ProgressLine {
  const now = options.now ?? (() => performance.now());
  const every = options.tty ? 200 : 5000;
  let first: { t: number; done: number } | null = null;
  let shownAt = -Infinity;
  let last = '';
  const show = (text: string) => {
    last = text;
    write(options.tty ? `\r\x1b[K${text}` : `${text}\n`);
  };
  return {
    start(text) {
      if (!last) show(`${label}: ${text}…`);
    },
    update(done, total) {
      const t = now();
      if (!first) first = { t, done };
      if (done < total && t - shownAt < every) return;
      shownAt = t;
      const secs = (t - first.t) / 1000;
      const rate = secs > 0 ? (done - first.done) / secs : 0;
      const left = rate > 0 && done < total ? `, about ${clock((total - done) / rate)} left` : '';
      const pct = total > 0 ? Math.floor((done / total) * 100) : 100;
      show(`${label} ${done}/${total} ${unit} (${pct} %)${rate > 0 ? `, ${rate >= 10 ? Math.round(rate) : rate.toFixed(1)} ${unit}/s` : ''}${left}`);
    },
    end() {
      if (options.tty && last) write('\n');
      last = '';
    },
  };
}
