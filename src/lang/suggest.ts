// "Did you mean" suggestions for misspelt names.

/** Enough for any real scope or type; bounds the work on generated input. */
const MAX_CANDIDATES = 2000;

/** `; did you mean "x"?` for the closest candidate within a small edit distance, or ''. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  let examined = 0;
  for (const candidate of candidates) {
    if (++examined > MAX_CANDIDATES) break;
    if (candidate === name) continue;
    const distance = candidate.toLowerCase() === name.toLowerCase() ? 0 : editDistance(name, candidate, limit);
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best === undefined ? '' : `; did you mean "${best}"?`;
}

/** Edit distance counting a swap of two neighbours as one edit (optimal string alignment). */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, d[i - 2]![j - 2]! + 1);
      d[i]![j] = value;
    }
    // Every later row is at least the minimum of the two rows before it.
    if (i > 1 && rowMinimum(d[i]!) > limit && rowMinimum(d[i - 1]!) > limit) return limit + 1;
  }
  return d[a.length]![b.length]!;
}

function rowMinimum(row: number[]): number {
  let minimum = Infinity;
  for (const value of row) if (value < minimum) minimum = value;
  return minimum;
}
