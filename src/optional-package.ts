/**
 * Packages only some features need (the live view's layout, compression codecs, database drivers) are
 * optional dependencies of sharesink: a library user who does not use the feature neither loads them nor,
 * for optional peer dependencies, installs them (ADR 0016). These helpers load such a package when the
 * feature first needs it and turn "not installed" into a {@link MissingPackageError} naming the package,
 * the feature and the `npm install` command; any other failure to load it (a native binary that does not
 * load on this platform) is rethrown as it is.
 *
 * The version in the install command is the one sharesink's package.json pins for the package (in
 * `optionalDependencies`, `peerDependencies` or `dependencies`), so listing a package there is all a new
 * optional package needs.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { SharesinkError } from './errors.js';

const require = createRequire(import.meta.url);

/** A feature needs a package that is not installed; the message says which and how to install it. */
export class MissingPackageError extends SharesinkError {
  /** The npm package that is not installed, e.g. `elkjs`. */
  readonly packageName: string;
  /** What needs it, e.g. `the live view of the machines (GET /machines)`. */
  readonly feature: string;
  /** The command that installs it, e.g. `npm install elkjs@0.12.1`. */
  readonly installCommand: string;

  constructor(packageName: string, feature: string, options: { cause?: unknown } = {}) {
    const installCommand = `npm install ${packageName}${versionSuffix(packageName)}`;
    super(
      'SHARESINK_MISSING_PACKAGE',
      `${feature} needs the optional package ${packageName}, which is not installed: run \`${installCommand}\` ` +
        'in the project that depends on sharesink',
      options,
    );
    this.packageName = packageName;
    this.feature = feature;
    this.installCommand = installCommand;
  }
}

/**
 * Imports the optional package `name` (ESM `import()`, so it works for ESM-only packages too), or its
 * entry `specifier` (e.g. `mysql2/promise`); rejects with a {@link MissingPackageError} for `feature`
 * when the package is not installed.
 */
export async function importOptional<T>(name: string, feature: string, specifier = name): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (err) {
    throw asMissing(err, name, feature);
  }
}

/**
 * `require()`s the optional CommonJS package `name` synchronously, for code that cannot await (a codec on
 * the decode path); throws a {@link MissingPackageError} for `feature` when it is not installed.
 */
export function requireOptional<T>(name: string, feature: string): T {
  try {
    return require(name) as T;
  } catch (err) {
    throw asMissing(err, name, feature);
  }
}

/** The absolute path of `specifier` (e.g. `elkjs/lib/elk.bundled.js`) of the optional package `name`. */
export function resolveOptional(name: string, specifier: string, feature: string): string {
  try {
    return require.resolve(specifier);
  } catch (err) {
    throw asMissing(err, name, feature);
  }
}

/** True when `err` says that package `name` itself (not something it imports) cannot be found. */
export function isPackageNotFound(err: unknown, name: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return typeof message === 'string' && (message.includes(`'${name}'`) || message.includes(`'${name}/`));
}

function asMissing(err: unknown, name: string, feature: string): unknown {
  return isPackageNotFound(err, name) ? new MissingPackageError(name, feature, { cause: err }) : err;
}

let pins: Record<string, string> | undefined;

function versionSuffix(name: string): string {
  try {
    pins ??= readPins();
  } catch {
    pins = {};
  }
  const pin = pins[name];
  return pin === undefined ? '' : `@${pin}`;
}

function readPins(): Record<string, string> {
  // src/optional-package.ts and dist/optional-package.js both sit one level below package.json
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as Record<
    string,
    Record<string, string> | undefined
  >;
  return { ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies };
}
