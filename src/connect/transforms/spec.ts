/**
 * The compiled `transforms` / `predicates` settings as plain data: checked on the main thread when the
 * connector config is compiled, then sent to every worker thread, which builds the chain from it.
 */

/** A transform or predicate: a built-in one (by its canonical name) or a module to import. */
export interface PluginSpec {
  /** The alias from `transforms=` / `predicates=`. */
  readonly alias: string;
  /** `type` as written, for messages and the DLQ's executing-class header. */
  readonly type: string;
  /** The built-in's canonical name, or undefined for a module. */
  readonly builtin: string | undefined;
  /** What `import()` takes in any thread, for a module; undefined for a built-in. */
  readonly module: string | undefined;
  /** The settings, prefix removed. */
  readonly props: Readonly<Record<string, string>>;
}

export interface TransformSpec extends PluginSpec {
  /** `transforms.<alias>.predicate`: the guarding predicate's alias. */
  readonly predicate: string | undefined;
  /** `transforms.<alias>.negate`. */
  readonly negate: boolean;
}

export interface TransformsConfig {
  /** In chain order. */
  readonly transforms: readonly TransformSpec[];
  /** Only those some transform refers to. */
  readonly predicates: readonly PluginSpec[];
}

export const NO_TRANSFORMS: TransformsConfig = Object.freeze({ transforms: [], predicates: [] });
