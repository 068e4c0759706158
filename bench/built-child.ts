/**
 * The bench child as users run sharesink: plain `node` on the built package (dist/), no TypeScript
 * loader. bench/child.ts is bundled once per bench process with its imports of `../src/…` pointed at
 * `../dist/…` (packages stay external and resolve from the checkout's node_modules).
 *
 * Why not `node --import tsx child.ts` for every run: a loader registered with `--import` is inherited
 * by every pool thread, which then loads tsx and runs its hooks too. Under tsx
 * a connector started 0.7–1.4 s after `start()` where the built package on plain node took 0.3–0.4 s,
 * and a drain's rate counts that start. A connector module written in TypeScript (the bench's own latency
 * and steady sinks) still needs tsx in the threads: such runs keep the TypeScript child.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { runProcess, say } from './common.js';

const built = new Map<string, Promise<string>>();

/** `SHARESINK_BENCH_CHILD=tsx`: every child runs from the sources under tsx, as runs before this file. */
export function sourcesUnderTsx(): boolean {
  return process.env['SHARESINK_BENCH_CHILD'] === 'tsx';
}

/** True when the run's connector is a TypeScript module, which only a child under tsx can load. */
export function needsTypescriptChild(connectorClass: string | undefined): boolean {
  return connectorClass !== undefined && /\.[cm]?ts$/.test(connectorClass);
}

/**
 * Builds the checkout of `benchDir` (`npm run build` → dist/) and bundles its child; returns the bundle's path.
 * Once per checkout and process: every run after the first reuses both.
 */
export function builtChild(benchDir: string): Promise<string> {
  let job = built.get(benchDir);
  if (job === undefined) {
    job = buildChild(benchDir);
    built.set(benchDir, job);
  }
  return job;
}

async function buildChild(benchDir: string): Promise<string> {
  const root = path.dirname(benchDir);
  const started = performance.now();
  // the package's own build (npm run build), as a release builds dist/
  const npmBuild = await runProcess('npm', ['run', '--silent', 'build'], { cwd: root, timeoutMs: 300_000 });
  if (npmBuild.code !== 0)
    throw new Error(`building ${root} (npm run build) failed:\n${npmBuild.stdout}${npmBuild.stderr}`);
  // beside child.ts, not in a directory of its own: the bundled bench/common.ts finds the checkout's
  // root as `new URL('..', import.meta.url)`, which must stay the same for the bundle
  const outfile = path.join(benchDir, '.built-child.mjs');
  const src = path.join(root, 'src');
  const dist = path.join(root, 'dist');
  await build({
    entryPoints: [path.join(benchDir, 'child.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
    plugins: [
      {
        name: 'sharesink-from-dist',
        setup(b) {
          // the child's imports of the sources become imports of the built files, left unbundled so
          // the pool threads load the same module instances' files as an installed package would
          b.onResolve({ filter: /\/src\// }, (args) => {
            const target = path.resolve(args.resolveDir, args.path);
            if (!target.startsWith(src + path.sep)) return undefined;
            const js = path.join(dist, path.relative(src, target));
            // tsc never empties dist/: a built file whose source is gone would still be found
            if (!existsSync(target.replace(/\.js$/, '.ts')))
              throw new Error(`${args.path} (imported by ${args.importer}) has no source in src/`);
            if (!existsSync(js)) throw new Error(`${js} is missing: the build did not produce it`);
            return { path: js, external: true };
          });
        },
      },
    ],
  });
  const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string })
    .version;
  say(
    `[bench] built sharesink ${version} (${path.relative(process.cwd(), dist) || dist}, ${Math.round(
      (performance.now() - started) / 1000,
    )} s): runs with a built-in connector use plain node on dist/, as an installed package runs`,
  );
  if (statSync(outfile).size === 0) throw new Error(`${outfile} is empty`);
  return outfile;
}
