import { describe, expect, it } from 'vitest';
import { isSharesinkError } from '../../src/errors.js';
import {
  MissingPackageError,
  importOptional,
  isPackageNotFound,
  requireOptional,
  resolveOptional,
} from '../../src/optional-package.js';

describe('optional packages', () => {
  it('loads an installed package with import(), require() and resolve', async () => {
    const zod = await importOptional<{ z: unknown }>('zod', 'a test');
    expect(zod.z).toBeDefined();
    expect(requireOptional<{ z: unknown }>('zod', 'a test').z).toBeDefined();
    expect(resolveOptional('pino', 'pino/package.json', 'a test')).toMatch(
      /node_modules[/\\]pino[/\\]package\.json$/,
    );
  });

  it('names the package, the feature and the install command when it is not installed', async () => {
    const err = await importOptional('sharesink-no-such-package', 'the test feature').catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MissingPackageError);
    expect(isSharesinkError(err)).toBe(true);
    expect(err).toMatchObject({
      code: 'SHARESINK_MISSING_PACKAGE',
      packageName: 'sharesink-no-such-package',
      feature: 'the test feature',
      installCommand: 'npm install sharesink-no-such-package',
    });
    expect((err as Error).message).toBe(
      'the test feature needs the optional package sharesink-no-such-package, which is not installed: ' +
        'run `npm install sharesink-no-such-package` in the project that depends on sharesink',
    );
    expect(() => requireOptional('sharesink-no-such-package', 'x')).toThrow(MissingPackageError);
    expect(() => resolveOptional('sharesink-no-such-package', 'sharesink-no-such-package/a.js', 'x')).toThrow(
      MissingPackageError,
    );
  });

  it('pins the install command to the version package.json lists', () => {
    expect(new MissingPackageError('elkjs', 'x').installCommand).toMatch(/^npm install elkjs@\d+\.\d+\.\d+$/);
    expect(new MissingPackageError('snappy', 'x').installCommand).toMatch(
      /^npm install snappy@\d+\.\d+\.\d+$/,
    );
  });

  it('tells a missing package from a package whose own import is missing', () => {
    const own = Object.assign(new Error("Cannot find package 'elkjs' imported from /app/x.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const nested = Object.assign(new Error("Cannot find module 'detect-libc'"), { code: 'MODULE_NOT_FOUND' });
    const subpath = Object.assign(new Error("Cannot find module 'elkjs/lib/elk.bundled.js'"), {
      code: 'MODULE_NOT_FOUND',
    });
    expect(isPackageNotFound(own, 'elkjs')).toBe(true);
    expect(isPackageNotFound(subpath, 'elkjs')).toBe(true);
    expect(isPackageNotFound(nested, 'snappy')).toBe(false);
    expect(isPackageNotFound(new Error("'elkjs'"), 'elkjs')).toBe(false);
  });
});
