/**
 * Regular expressions in transform settings are written for Java's Pattern. JavaScript reads the usual
 * ones alike, and refuses most Java-only syntax itself (possessive quantifiers, atomic groups, inline
 * flags); but some Java escapes compile in JavaScript to something else entirely (`\A` matches the
 * letter A), so those are refused here by name.
 */
const JAVA_ONLY_ESCAPES = new Set(['A', 'Z', 'z', 'G', 'Q', 'E', 'h', 'H', 'R', 'X', 'e', 'a', 'p', 'P']);

/** A problem with `source` as a Java pattern read by JavaScript, or undefined when it is fine. */
export function regexProblem(source: string): string | undefined {
  for (let i = 0; i < source.length; i++) {
    if (source[i] !== '\\') continue;
    const next = source[i + 1] ?? '';
    if (JAVA_ONLY_ESCAPES.has(next))
      return `uses \\${next}, which Java and JavaScript read differently; write it another way`;
    i++;
  }
  try {
    new RegExp(source);
    return undefined;
  } catch (error) {
    return `is not a valid regular expression (${(error as Error).message})`;
  }
}
