/**
 * Validators for ConfigDef keys, named after Connect's (Range.atLeast, ValidString.in, ...).
 * `check` returns why a value is wrong, or undefined; `describe` says what is accepted, for the
 * error message and the generated documentation.
 */
export interface Validator<V> {
  check(value: V): string | undefined;
  describe(): string;
}

export function atLeast(min: number): Validator<number | null> {
  return {
    check: (v) => (v !== null && v < min ? `is less than ${min}` : undefined),
    describe: () => `[${min},...]`,
  };
}

export function between(min: number, max: number): Validator<number | null> {
  return {
    check: (v) => (v !== null && (v < min || v > max) ? `is outside ${min}..${max}` : undefined),
    describe: () => `[${min},...,${max}]`,
  };
}

/** One of a fixed set of strings; `caseInsensitive` matches Connect's CaseInsensitiveValidString. */
export function oneOf(
  values: readonly string[],
  options: { caseInsensitive?: boolean } = {},
): Validator<string | null> {
  const accepted = options.caseInsensitive ? values.map((v) => v.toLowerCase()) : values;
  return {
    check: (v) => {
      if (v === null) return undefined;
      const probe = options.caseInsensitive ? v.toLowerCase() : v;
      return accepted.includes(probe) ? undefined : 'is not one of the accepted values';
    },
    describe: () => `one of ${values.join(', ')}`,
  };
}

export function nonEmptyString(): Validator<string | null> {
  return {
    check: (v) => (v !== null && v.length === 0 ? 'is empty' : undefined),
    describe: () => 'a non-empty string',
  };
}

/** A list with at least one element; `accepted` says what its elements are. */
export function nonEmptyList(
  accepted = 'a non-empty comma-separated list',
): Validator<readonly string[] | null> {
  return {
    check: (v) => (v !== null && v.length === 0 ? 'is empty' : undefined),
    describe: () => accepted,
  };
}

/** Every list element is one of `values` (Connect's ValidList.in). */
export function listOf(values: readonly string[]): Validator<readonly string[] | null> {
  return {
    check: (v) => {
      const bad = v?.filter((item) => !values.includes(item)) ?? [];
      return bad.length === 0 ? undefined : `contains ${bad.map((b) => JSON.stringify(b)).join(', ')}`;
    },
    describe: () => `a comma-separated list of ${values.join(', ')}`,
  };
}

/** All validators must pass; the first problem is reported. */
export function all<V>(...validators: readonly Validator<V>[]): Validator<V> {
  return {
    check: (v) => {
      for (const validator of validators) {
        const problem = validator.check(v);
        if (problem !== undefined) return problem;
      }
      return undefined;
    },
    describe: () => validators.map((validator) => validator.describe()).join(' and '),
  };
}
