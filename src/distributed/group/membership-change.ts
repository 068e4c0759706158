/** Who came and went between two rounds of the worker group: what an operator reading the log after a failover looks for. */
export function membershipChange(
  before: ReadonlyArray<{ readonly workerId: string }>,
  after: ReadonlyArray<{ readonly workerId: string }>,
): { left: string[]; joined: string[]; said: string } {
  // the first round has nothing to compare with
  if (before.length === 0) return { left: [], joined: [], said: '' };
  const was = new Set(before.map((m) => m.workerId));
  const is = new Set(after.map((m) => m.workerId));
  const left = [...was].filter((w) => !is.has(w));
  const joined = [...is].filter((w) => !was.has(w));
  const parts = [
    ...(left.length > 0 ? [`${left.join(', ')} left`] : []),
    ...(joined.length > 0 ? [`${joined.join(', ')} joined`] : []),
  ];
  return { left, joined, said: parts.map((p) => `${p}; `).join('') };
}
