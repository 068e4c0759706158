/**
 * How Java prints and parses primitives, where a transform's output is text a Java Connect would have
 * written (Cast to string): `1.0` not `1`, `1.0E10` not `10000000000`.
 */

/** Java's Double.toString. */
export function javaDouble(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (!Number.isFinite(d)) return d > 0 ? 'Infinity' : '-Infinity';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(d);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(d);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mantissa, exponent] = d.toExponential().split('e') as [string, string];
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}

/** Java's Float.toString: the shortest digits that read back as the same float32. */
export function javaFloat(f: number): string {
  const x = Math.fround(f);
  if (!Number.isFinite(x) || x === 0) return javaDouble(x);
  for (let p = 1; p <= 9; p++) {
    const candidate = Number(x.toPrecision(p));
    if (Math.fround(candidate) === x) return javaDouble(candidate);
  }
  return javaDouble(x);
}

const INTEGER = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)$/;

/** Java's Long.parseLong (and Integer/Short/Byte within `bits`): strict, or undefined. */
export function parseJavaInteger(text: string, bits: 8 | 16 | 32 | 64): number | undefined {
  if (!INTEGER.test(text)) return undefined;
  const n = BigInt(text);
  if (BigInt.asIntN(bits, n) !== n) return undefined;
  const value = Number(n);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** Java's Double.parseDouble for decimal text: surrounding whitespace and a d/f suffix allowed. */
export function parseJavaFloat(text: string): number | undefined {
  const trimmed = text.trim();
  if (!FLOAT.test(trimmed)) return undefined;
  return Number(trimmed.replace(/^([+-]?)Infinity$/, '$1Infinity').replace(/[fFdD]$/, ''));
}

/** A Java narrowing cast of a number to an integer type: (int) truncates and saturates, then wraps. */
export function javaIntCast(n: number, bits: 8 | 16 | 32 | 64): number {
  if (Number.isNaN(n)) return 0;
  let t = Math.trunc(n);
  if (bits === 64) t = Math.max(Number.MIN_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, t));
  else if (!Number.isSafeInteger(t) || Math.abs(t) > 2 ** 31) t = t > 0 ? 2 ** 31 - 1 : -(2 ** 31);
  return Number(BigInt.asIntN(bits, BigInt(t)));
}
