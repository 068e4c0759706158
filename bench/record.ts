/**
 * Which runs become the benchmark record. `bench/results/latest.{json,md}` is only ever written by a
 * full default run (every scenario of its mode, default rates, scale 1, no failed step), so every
 * headline ratio in it comes from one run; any other run writes only its own timestamped files.
 */

export interface RunShape {
  readonly full: boolean;
  /** The `--only` value as given, if any. */
  readonly only: string | undefined;
  readonly scale: number;
  readonly e2eMaxRate: string | undefined;
  readonly steadyMaxRate: string | undefined;
  /** `SHARESINK_BENCH_CHILD=tsx`: sharesink ran from its sources, not as built (bench/built-child.ts). */
  readonly sourcesUnderTsx?: boolean;
}

/** The scenarios a run of this mode makes without `--only`. */
export function defaultScenarios(full: boolean): number[] {
  return full ? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] : [1, 2, 3, 4, 5, 6, 9, 11];
}

/** Why a run with these options is not a full default run (empty when it is). */
export function partialReasons(shape: RunShape): string[] {
  const reasons: string[] = [];
  if (shape.only !== undefined) {
    const only = new Set(shape.only.split(',').map((s) => Number(s.trim())));
    const missing = defaultScenarios(shape.full).filter((n) => !only.has(n));
    if (missing.length > 0) reasons.push(`--only=${shape.only} (scenarios ${missing.join(', ')} not run)`);
  }
  if (shape.scale !== 1) reasons.push(`--scale=${shape.scale}`);
  if (shape.e2eMaxRate !== undefined) reasons.push(`--e2e-max-rate=${shape.e2eMaxRate}`);
  if (shape.steadyMaxRate !== undefined) reasons.push(`--steady-max-rate=${shape.steadyMaxRate}`);
  if (shape.sourcesUnderTsx === true)
    reasons.push('SHARESINK_BENCH_CHILD=tsx (sharesink ran from its sources, not as built)');
  return reasons;
}

/** Why a finished run does not become the record: its options, or the steps that failed. */
export function notTheRecordBecause(shape: RunShape, errors: ReadonlyArray<{ step: string }>): string[] {
  const reasons = partialReasons(shape);
  if (errors.length > 0)
    reasons.push(`${errors.length} step(s) failed (${errors.map((e) => e.step).join('; ')})`);
  return reasons;
}
