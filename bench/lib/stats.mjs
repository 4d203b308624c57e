// Percentiles over samples, and medians with spread over runs.

/**
 * Nearest-rank percentile (p in 0..100) of an array of numbers.
 * @param {ArrayLike<number>} values
 * @param {number} p
 */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** @param {number[]} values */
export function median(values) {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return NaN;
  const sorted = [...finite].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * {median, min, max, n} of per-run values.
 * @param {number[]} values
 */
export function spread(values) {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return { median: NaN, min: NaN, max: NaN, n: 0 };
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite), n: finite.length };
}

/**
 * A number with sensible precision for the table.
 * @param {number | null | undefined} value
 */
export function fmt(value, unit = '') {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  const abs = Math.abs(value);
  let text;
  if (abs >= 1000) text = Math.round(value).toLocaleString('en-US');
  else if (abs >= 100) text = value.toFixed(0);
  else if (abs >= 10) text = value.toFixed(1);
  else text = value.toFixed(2);
  return unit ? `${text} ${unit}` : text;
}

/**
 * "median (min–max)" of per-run values; only the median when there was one run.
 * @param {number[]} values
 */
export function fmtSpread(values, unit = '') {
  const s = spread(values);
  if (s.n === 0) return '–';
  if (s.n === 1) return fmt(s.median, unit);
  return `${fmt(s.median, unit)} (${fmt(s.min)}–${fmt(s.max)})`;
}
