/** Edit distance, for "did you mean" hints on misspelt setting names. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitute));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The known name closest to `name` and at most `maxDistance` edits away, if any. */
export function closestName(name: string, known: Iterable<string>, maxDistance = 3): string | undefined {
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const candidate of known) {
    const d = distance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** The closest known name within a few edits, as ` (did you mean x?)`, or an empty string. */
export function didYouMean(name: string, known: Iterable<string>, maxDistance = 3): string {
  const best = closestName(name, known, maxDistance);
  return best === undefined ? '' : ` (did you mean ${best}?)`;
}
