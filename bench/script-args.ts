/** `--key=value` / `--flag` arguments of the bench's hand-run scripts (jdbc-ab.ts, jdbc-put-cost.ts). */
export interface ScriptArgs {
  /** Every value given for a key (`--set a=1 --set b=2`), in order. */
  readonly all: ReadonlyMap<string, readonly string[]>;
  /** The first value given for a key, or the default. */
  arg(key: string, fallback: string): string;
}

export function scriptArgs(argv: readonly string[] = process.argv.slice(2)): ScriptArgs {
  const all = new Map<string, string[]>();
  for (const a of argv) {
    const m = /^--([^=]+)(?:=(.*))?$/.exec(a);
    if (m) all.set(m[1]!, [...(all.get(m[1]!) ?? []), m[2] ?? 'true']);
  }
  return { all, arg: (key, fallback) => all.get(key)?.[0] ?? fallback };
}
