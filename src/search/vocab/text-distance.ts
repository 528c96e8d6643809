/** Edit distance and "did you mean" candidates, for hints on misspelled names. */

/** Levenshtein distance, for "did you mean" hints. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

export function closest(word: string, candidates: readonly string[], max = 3): string[] {
  const lower = word.toLowerCase();
  return candidates
    .map((c) => ({ c, d: editDistance(lower, c.toLowerCase()) }))
    .filter(({ c, d }) => d <= Math.max(2, Math.floor(c.length / 3)) || c.toLowerCase().startsWith(lower))
    .sort((x, y) => x.d - y.d)
    .slice(0, max)
    .map(({ c }) => c);
}
