/**
 * `transforms=` and `predicates=` in a connector file, as Connect reads them: checked here, on the main
 * thread, before anything starts, so an unknown type, a missing setting or an undefined predicate is a
 * ConfigError listing every problem, never a silently ignored line.
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../errors.js';
import {
  BUILTIN_PREDICATE_LIST,
  BUILTIN_PREDICATES,
  BUILTIN_TRANSFORM_LIST,
  BUILTIN_TRANSFORMS,
  SIDED_FAMILIES,
} from '../connect/transforms/builtins.js';
import type { PluginSpec, TransformSpec, TransformsConfig } from '../connect/transforms/spec.js';
import { didYouMean } from './did-you-mean.js';
import { javaClassProblem } from './java-classes.js';
import { isJavaClassName } from './validators.js';

export interface TransformsCheck {
  readonly config: TransformsConfig;
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

type Kind = 'transforms' | 'predicates';
const RESERVED: Readonly<Record<Kind, readonly string[]>> = {
  transforms: ['type', 'predicate', 'negate'],
  predicates: ['type'],
};

const TRANSFORM_NAMES = BUILTIN_TRANSFORM_LIST.map((t) => t.name);
const PREDICATE_NAMES = BUILTIN_PREDICATE_LIST.map((p) => p.name);

/** What `type` accepts, for the `accepted:` part of a problem. */
function acceptedTypes(kind: Kind): string {
  const names = kind === 'transforms' ? TRANSFORM_NAMES : PREDICATE_NAMES;
  const pkg =
    kind === 'transforms'
      ? 'org.apache.kafka.connect.transforms.'
      : 'org.apache.kafka.connect.transforms.predicates.';
  return `one of ${names.join(', ')} (or with Connect's ${pkg} prefix), or a module path (./x.js, /abs/x.js, file:...) or npm package whose default export is the ${kind === 'transforms' ? 'Transformation' : 'Predicate'} class`;
}

/**
 * `predicates.<alias>.negate`: Connect has no such setting (negate belongs to the transform) and ignores
 * it, so the transforms run on the records the predicate matches: the opposite of what was meant.
 */
function misplacedNegate(props: Readonly<Record<string, string>>, alias: string): string {
  const users = Object.entries(props)
    .filter(([key, value]) => /^transforms\..+\.predicate$/.test(key) && value.trim() === alias)
    .map(([key]) => key.slice(0, -'.predicate'.length));
  const where =
    users.length === 0 ? 'transforms.<alias>.negate=true' : users.map((t) => `${t}.negate=true`).join(', ');
  return `predicates.${alias}.negate: predicates have no negate setting; ignored, so the transforms that use ${alias} run on the records it matches. To invert it, set ${where}`;
}

/**
 * Why a type that can only be a Java class is refused: a near miss of Kafka's own (a typo, a missing
 * `$Key`/`$Value`), or a class from elsewhere that sharesink cannot run, with what to write instead.
 */
function unknownType(kind: Kind, type: string): string {
  const what = kind === 'transforms' ? 'transform' : 'predicate';
  const short = type.slice(type.lastIndexOf('.') + 1);
  const names = kind === 'transforms' ? TRANSFORM_NAMES : PREDICATE_NAMES;
  if (kind === 'transforms' && SIDED_FAMILIES.has(short))
    return `is not a transform sharesink has (Connect has ${short}$Key and ${short}$Value: say which side it works on)`;
  const hint = didYouMean(short, names);
  if (hint !== '' || type.startsWith('org.apache.kafka.')) return `is not a ${what} sharesink has${hint}`;
  return javaClassProblem(what, type, names);
}

function resolveModule(name: string, cwd: string): string {
  if (name.startsWith('file:')) return name;
  if (isAbsolute(name) || name.startsWith('./') || name.startsWith('../'))
    return pathToFileURL(resolve(cwd, name)).href;
  return name;
}

/** The settings of one alias: `<kind>.<alias>.<setting>` with the prefix removed, reserved keys left out. */
function settingsOf(
  props: Readonly<Record<string, string>>,
  kind: Kind,
  alias: string,
): Record<string, string> {
  const prefix = `${kind}.${alias}.`;
  const settings: Record<string, string> = {};
  for (const [key, value] of Object.entries(props)) {
    if (!key.startsWith(prefix)) continue;
    const name = key.slice(prefix.length);
    if (!RESERVED[kind].includes(name)) settings[name] = value;
  }
  return settings;
}

/** A list of aliases: empty entries and duplicates are problems, as in Connect's ConnectorConfig. */
function aliases(list: readonly string[], kind: Kind, raw: string | undefined, problems: string[]): string[] {
  const seen = new Set<string>();
  for (const alias of list) {
    if (alias === '')
      problems.push(
        `${kind}: ${JSON.stringify(raw)} has an empty alias; accepted: a comma-separated list of distinct aliases`,
      );
    else if (seen.has(alias))
      problems.push(
        `${kind}: ${JSON.stringify(raw)} lists ${alias} twice; accepted: a comma-separated list of distinct aliases`,
      );
    seen.add(alias);
  }
  return [...seen].filter((a) => a !== '');
}

/**
 * Checks one transform or predicate and returns its spec. A built-in is created and configured right
 * here (they are pure), so its setting problems come out with their full keys.
 */
function pluginSpec(
  props: Readonly<Record<string, string>>,
  kind: Kind,
  alias: string,
  cwd: string,
  problems: string[],
  warnings: string[],
): PluginSpec | undefined {
  const prefix = `${kind}.${alias}.`;
  const typeKey = `${prefix}type`;
  const type = props[typeKey]?.trim();
  const settings = settingsOf(props, kind, alias);
  if (type === undefined || type === '') {
    problems.push(`${typeKey}: is required and has no value; accepted: ${acceptedTypes(kind)}`);
    return undefined;
  }
  const builtin = kind === 'transforms' ? BUILTIN_TRANSFORMS.get(type) : BUILTIN_PREDICATES.get(type);
  if (builtin !== undefined) {
    try {
      builtin.create().configure(settings);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems.map((p) => prefix + p));
    }
    const known = builtin.def.configKeys().map((k) => k.name);
    for (const name of Object.keys(settings))
      if (kind === 'predicates' && name === 'negate') warnings.push(misplacedNegate(props, alias));
      else if (
        !known.includes(name) &&
        !(builtin.name.startsWith('ReplaceField') && (name === 'blacklist' || name === 'whitelist'))
      )
        warnings.push(
          `${prefix}${name}: not a setting of ${builtin.name}; ignored${didYouMean(name, known)}`,
        );
    if (
      builtin.name.startsWith('InsertField') &&
      settings['static.field'] !== undefined &&
      settings['static.value'] === undefined
    )
      warnings.push(
        `${prefix}static.field: set without ${prefix}static.value, so no static field is inserted (as in Connect); set ${prefix}static.value`,
      );
    return { alias, type, builtin: builtin.name, module: undefined, props: settings };
  }
  if (isJavaClassName(type)) {
    problems.push(
      `${typeKey}: ${JSON.stringify(type)} ${unknownType(kind, type)}; accepted: ${acceptedTypes(kind)}`,
    );
    return undefined;
  }
  return { alias, type, builtin: undefined, module: resolveModule(type, cwd), props: settings };
}

/** Compiles `transforms` / `predicates` (already parsed as lists) and everything under their prefixes. */
export function compileTransforms(
  props: Readonly<Record<string, string>>,
  transformList: readonly string[],
  predicateList: readonly string[],
  cwd: string = process.cwd(),
): TransformsCheck {
  const problems: string[] = [];
  const warnings: string[] = [];
  const transformAliases = aliases(transformList, 'transforms', props['transforms'], problems);
  const predicateAliases = aliases(predicateList, 'predicates', props['predicates'], problems);

  const predicates = new Map<string, PluginSpec>();
  for (const alias of predicateAliases) {
    const spec = pluginSpec(props, 'predicates', alias, cwd, problems, warnings);
    if (spec !== undefined) predicates.set(alias, spec);
  }

  const transforms: TransformSpec[] = [];
  const used = new Set<string>();
  for (const alias of transformAliases) {
    const prefix = `transforms.${alias}.`;
    const predicateText = props[`${prefix}predicate`]?.trim();
    const predicate = predicateText === undefined || predicateText === '' ? undefined : predicateText;
    if (predicate !== undefined) {
      used.add(predicate);
      if (!predicateAliases.includes(predicate))
        problems.push(
          `${prefix}predicate: ${JSON.stringify(predicate)} is not defined in predicates${didYouMean(predicate, predicateAliases)}; accepted: ${predicateAliases.length === 0 ? 'an alias listed in predicates (predicates is empty)' : `one of ${predicateAliases.join(', ')}`}`,
        );
    }
    const negateText = props[`${prefix}negate`]?.trim().toLowerCase();
    if (negateText !== undefined && negateText !== 'true' && negateText !== 'false')
      problems.push(
        `${prefix}negate: ${JSON.stringify(props[`${prefix}negate`])} is not true or false; accepted: true or false`,
      );
    const negate = negateText === 'true';
    // Connect refuses negate without predicate, whatever its value
    if (negateText !== undefined && predicate === undefined)
      problems.push(
        `${prefix}negate: ${JSON.stringify(props[`${prefix}negate`])} is set but ${prefix}predicate is not, so there is no predicate to negate; accepted: negate together with ${prefix}predicate`,
      );
    const spec = pluginSpec(props, 'transforms', alias, cwd, problems, warnings);
    if (spec !== undefined) transforms.push({ ...spec, predicate, negate });
  }

  for (const alias of predicateAliases)
    if (!used.has(alias))
      warnings.push(`predicates: ${alias} is defined but no transform refers to it; ignored`);

  // settings under an alias that is not listed are ignored by Connect; usually a misspelt alias
  for (const kind of ['transforms', 'predicates'] as const) {
    const listed = kind === 'transforms' ? transformAliases : predicateAliases;
    const orphans = new Set<string>();
    for (const key of Object.keys(props)) {
      if (!key.startsWith(`${kind}.`)) continue;
      const alias = aliasOf(key.slice(kind.length + 1), listed);
      if (alias === undefined) orphans.add(key);
    }
    for (const key of orphans) {
      const rest = key.slice(kind.length + 1);
      const guess = rest.slice(0, rest.indexOf('.') === -1 ? rest.length : rest.indexOf('.'));
      warnings.push(`${key}: ${guess} is not listed in ${kind}; ignored${didYouMean(guess, listed)}`);
    }
  }

  return {
    config: { transforms, predicates: [...predicates.values()].filter((p) => used.has(p.alias)) },
    problems,
    warnings,
  };
}

/** The listed alias a `<alias>.<setting>` rest belongs to (aliases may contain dots, so try each). */
function aliasOf(rest: string, listed: readonly string[]): string | undefined {
  return listed.find((alias) => rest.startsWith(`${alias}.`));
}
