// The docs compile and run against the package as a user gets it: `npm pack`, installed into a fresh
// app. Every ```ts block of docs/*.md whose first line is `// file: <path>` is written to that path of
// the app and compiled with the embedding guide's tsconfig (strict, NodeNext, skipLibCheck: false), and
// again with exactOptionalPropertyTypes + noUncheckedIndexedAccess; then the guide's service runs
// against the broker: records written, GET /machines names the optional elkjs, SIGTERM exits 0.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, createTopic, deleteTopics, produce, testBrokers } from './harness/kafka.js';
import { until } from './harness/wait.js';

const FILE_MARK = /^\/\/ file: (\S+)\n/;

/** Every ```ts block of docs/*.md that names its file: [file, source, doc]. */
export function docBlocks(docsDir: string): Array<{ file: string; source: string; doc: string }> {
  const blocks: Array<{ file: string; source: string; doc: string }> = [];
  for (const doc of readdirSync(docsDir).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(path.join(docsDir, doc), 'utf8');
    for (const m of text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
      const file = FILE_MARK.exec(m[1]!)?.[1];
      if (file !== undefined) blocks.push({ file, source: m[1]!, doc });
    }
  }
  return blocks;
}

const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** tsc's output, or '' when it compiled. */
function tsc(app: string, config: string): string {
  try {
    run(path.join(app, 'node_modules/.bin/tsc'), ['-p', config], app);
    return '';
  } catch (err) {
    return `${(err as { stdout?: string }).stdout ?? ''}${(err as { stderr?: string }).stderr ?? ''}`;
  }
}

const COMPILER_OPTIONS = {
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  target: 'ES2022',
  strict: true,
  skipLibCheck: false,
  outDir: 'dist',
  rootDir: 'src',
};

describe('docs: the TypeScript files the docs name', () => {
  let work: string;
  let app: string;
  const blocks = docBlocks(path.join(REPO_ROOT, 'docs'));

  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), 'sharesink-docs-'));
    app = path.join(work, 'app');
    mkdirSync(app);
    // build and pack once (npm pack's prepare would build a second time)
    run('npm', ['run', 'build'], REPO_ROOT);
    const tarball = run(
      'npm',
      ['pack', '--ignore-scripts', '--silent', '--pack-destination', work],
      REPO_ROOT,
    ).trim();
    writeFileSync(
      path.join(app, 'package.json'),
      JSON.stringify({ name: 'docs-app', type: 'module', private: true }),
    );
    // what the guide's package.json lists; pinned to the versions this repository uses
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--ignore-scripts',
        path.join(work, tarball),
        `pino@${pkg.dependencies.pino}`,
        `typescript@${pkg.devDependencies.typescript}`,
        `@types/node@${pkg.devDependencies['@types/node']}`,
      ],
      app,
    );
    for (const b of blocks) {
      mkdirSync(path.dirname(path.join(app, b.file)), { recursive: true });
      writeFileSync(path.join(app, b.file), b.source);
    }
    const include = blocks.map((b) => b.file);
    writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: COMPILER_OPTIONS, include }),
    );
    writeFileSync(
      path.join(app, 'tsconfig.exact.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, noEmit: true },
      }),
    );
  }, 600_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('finds the embedding guide and the authoring guide among them', () => {
    expect(blocks.map((b) => `${b.doc}: ${b.file}`)).toEqual(
      expect.arrayContaining([
        'embedding.md: src/audit-sink.ts',
        'embedding.md: src/service.ts',
        'connector-authoring.md: src/my-http-sink.ts',
      ]),
    );
    expect(new Set(blocks.map((b) => b.file)).size, 'two blocks name the same file').toBe(blocks.length);
  });

  it('does not install the optional elkjs', () => {
    expect(existsSync(path.join(app, 'node_modules/elkjs'))).toBe(false);
    expect(existsSync(path.join(app, 'node_modules/sharesink/dist/index.d.ts'))).toBe(true);
  });

  it('compiles them with strict, NodeNext and skipLibCheck: false', () => {
    expect(tsc(app, 'tsconfig.json')).toBe('');
  });

  it('compiles them with exactOptionalPropertyTypes and noUncheckedIndexedAccess too', () => {
    expect(tsc(app, 'tsconfig.exact.json')).toBe('');
  });

  describe("the embedding guide's service, run against the broker", () => {
    const topics = ['svc-orders', 'svc-audit'];
    let service: ChildProcess | undefined;
    let output = '';

    beforeAll(async () => {
      await deleteTopics(topics).catch(() => undefined);
      // a topic just deleted cannot be created again until the broker is done with it
      await until(
        'the service topics to be created',
        () =>
          createTopic('svc-orders', { partitions: 3 })
            .then(() => createTopic('svc-audit'))
            .then(
              () => true,
              () => false,
            ),
        (ok) => ok,
        60_000,
      );
    }, 120_000);

    afterAll(async () => {
      service?.kill('SIGKILL');
      await deleteTopics(topics).catch(() => undefined);
    });

    it('writes the records, answers its health, and exits 0 on SIGTERM', async () => {
      const outDir = path.join(work, 'out');
      mkdirSync(outDir);
      const port = 18_000 + (process.pid % 1000);
      const restPort = port + 1000;
      service = spawn('node', ['dist/service.js'], {
        cwd: app,
        env: {
          ...process.env,
          BROKERS: testBrokers(),
          OUT_DIR: outDir,
          PORT: String(port),
          REST_LISTENER: `http://127.0.0.1:${restPort}`,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      service.stdout!.on('data', (d: Buffer) => (output += d.toString()));
      service.stderr!.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<number | null>((resolve) => service!.on('exit', (code) => resolve(code)));
      await until(
        'the service to run',
        () => output,
        (o) => o.includes('orders-service running') || o.includes('"level":50'),
        90_000,
      );
      expect(output).toContain('orders-service running');

      await produce('svc-orders', ['{"id":1}', 'not json', '{"id":2}']);
      await produce('svc-audit', ['created order 1']);
      const read = (f: string) =>
        existsSync(path.join(outDir, f)) ? readFileSync(path.join(outDir, f), 'utf8') : '';
      await until(
        'the records to be written',
        () => read('orders.txt') + read('audit.txt'),
        (t) => t.includes('{"id":2}') && t.includes('created order 1'),
      );
      expect(read('orders.txt').split('\n').filter(Boolean).sort()).toEqual(['{"id":1}', '{"id":2}']);
      expect(read('audit.txt')).toBe('svc-audit/0@0 created order 1\n');

      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
      // the live view needs the optional elkjs, which a fresh app does not install: the page says so
      const machines = await fetch(`http://127.0.0.1:${restPort}/machines`);
      expect(machines.status).toBe(501);
      expect(await machines.text()).toMatch(/needs the optional package elkjs.*npm install elkjs@\d/);

      service.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(output).toContain('"msg":"stopped"');
    });
  });
});
