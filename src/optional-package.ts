/**
 * Importing a package that only some features need (a database driver, a format library), so that a
 * user who never names the feature never installs the package, and one who does is told how.
 */
import { SharesinkError } from './errors.js';

/** A package a feature needs is not installed. */
export class OptionalPackageMissingError extends SharesinkError {
  readonly packageName: string;

  constructor(packageName: string, feature: string, version: string, cause: unknown) {
    super(
      'SHARESINK_OPTIONAL_PACKAGE_MISSING',
      `${feature} needs the npm package ${packageName}, which is not installed: run \`npm install ${packageName}@${version}\` next to sharesink, then restart`,
      { cause },
    );
    this.packageName = packageName;
  }
}

/**
 * `import(specifier)`, or an OptionalPackageMissingError naming the package and the install command when
 * the package itself cannot be found. Any other failure (the package is there but broken) is thrown as
 * it is. `load` is injectable for tests.
 */
export async function importOptional<T>(
  specifier: string,
  feature: string,
  version: string,
  load: (name: string) => Promise<unknown> = (name) => import(name),
): Promise<T> {
  // `mysql2/promise` is installed as `mysql2`
  const parts = specifier.split('/');
  const packageName = parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
  try {
    return (await load(specifier)) as T;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const missing =
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      String((error as Error).message).includes(packageName);
    if (missing) throw new OptionalPackageMissingError(packageName, feature, version, error);
    throw error;
  }
}
