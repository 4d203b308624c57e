/** The text of each minute a timestamp was formatted in lately, up to its seconds: `2026-12-03T10:00:`. */
const minutes = new Map<number, string>();
/** Enough for the minutes a few calls' timestamps fall in; past it the map starts over. */
const MAX_MINUTES = 64;

/**
 * `date.toISOString()`, the same text (an invalid date throws the same RangeError), at about a tenth of its cost:
 * V8 formats each date in its runtime, 0.9-1.3 µs here (this: 0.08-0.11), and an instant call formats nine (its
 * body, its row, its attempt). The text up to the minute is made once per minute; only the seconds and
 * milliseconds are written each time.
 */
export function isoTimestamp(date: Date): string {
  const ms = date.getTime();
  const minute = Math.floor(ms / 60_000);
  let head = minutes.get(minute);
  if (head === undefined) {
    head = new Date(minute * 60_000).toISOString().slice(0, -'00.000Z'.length);
    if (minutes.size >= MAX_MINUTES) minutes.clear();
    minutes.set(minute, head);
  }
  const inMinute = ms - minute * 60_000;
  const seconds = Math.floor(inMinute / 1000);
  const millis = inMinute - seconds * 1000;
  return `${head}${seconds < 10 ? '0' : ''}${seconds}.${millis < 100 ? (millis < 10 ? '00' : '0') : ''}${millis}Z`;
}
