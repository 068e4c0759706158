/**
 * The processes of the rebalance scenario (bench/scenarios/rebalance.ts): `sharesink standalone` and
 * `sharesink distributed` workers (the CLI, as a user runs them) and Kafka Connect standalone with
 * bench/java/SleepSinkConnector, each with a REST listener on a free loopback port; the REST calls an
 * operator makes (PUT /connectors/{name}/config, POST /connectors, GET …/status); and their stop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { BENCH_DIR, freePort, MEASURED_JVM_OPTS, ROOT, sleep, tail } from './common.js';
import { connectClasspath } from './connect-standalone.js';

/**
 * One REST call, JSON in and out, on a connection of its own (no keep-alive: a pooled connection the
 * server closed while idle made a PUT fail with ECONNRESET).
 */
export function rest(
  base: string,
  method: string,
  pathname: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(pathname, base),
      {
        method,
        agent: false,
        timeout: 30_000,
        headers: payload === undefined ? {} : { 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let json: unknown;
          try {
            json = text === '' ? undefined : (JSON.parse(text) as unknown);
          } catch {
            json = text;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${pathname}: no answer within 30 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

export interface Proc {
  readonly name: string;
  readonly child: ChildProcess;
  readonly url: string;
  readonly logFile: string;
  exited(): boolean;
  /** SIGTERM, SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  kill9(): Promise<void>;
  logTail(lines?: number): string;
  log(): string;
}

function launch(name: string, command: string, args: string[], o: { dir: string; url: string }): Proc {
  const logFile = path.join(o.dir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  let done = false;
  const exitedP = new Promise<void>((resolve) => {
    child.on('exit', () => {
      done = true;
      resolve();
    });
    child.on('error', () => {
      done = true;
      resolve();
    });
  });
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  return {
    name,
    child,
    url: o.url,
    logFile,
    exited: () => done,
    stop: async (graceMs = 20_000) => {
      if (done) return;
      child.kill('SIGTERM');
      if (await Promise.race([exitedP.then(() => true), sleep(graceMs).then(() => false)])) return;
      child.kill('SIGKILL');
      await exitedP;
    },
    kill9: async () => {
      if (done) return;
      child.kill('SIGKILL');
      await exitedP;
    },
    log,
    logTail: (lines = 20) => tail(log(), lines),
  };
}

const props = (p: Record<string, string>) =>
  `${Object.entries(p)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n')}\n`;

/** Waits until GET / answers on the process's REST port (or it exits, or `timeoutMs` passes). */
export async function waitForRest(p: Proc, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (p.exited()) throw new Error(`${p.name} exited while starting (log ${p.logFile}):\n${p.logTail()}`);
    try {
      if ((await rest(p.url, 'GET', '/')).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(
        `${p.name}: no REST answer within ${timeoutMs / 1000} s (log ${p.logFile}):\n${p.logTail()}`,
      );
    await sleep(250);
  }
}

interface Status {
  tasks?: Array<{ id: number; state: string; worker_id?: string }>;
}

/** Waits until the connector shows `tasks` tasks, every one RUNNING. Returns the ms it took. */
export async function waitForTasks(
  p: Proc,
  connector: string,
  tasks: number,
  timeoutMs = 90_000,
): Promise<number> {
  const t = Date.now();
  for (;;) {
    if (p.exited()) throw new Error(`${p.name} exited (log ${p.logFile}):\n${p.logTail()}`);
    const r = await rest(p.url, 'GET', `/connectors/${connector}/status`).catch(() => undefined);
    const s = r?.status === 200 ? (r.json as Status) : undefined;
    if (s?.tasks?.length === tasks && s.tasks.every((x) => x.state === 'RUNNING')) return Date.now() - t;
    if (Date.now() - t > timeoutMs)
      throw new Error(
        `${p.name}: ${connector} did not reach ${tasks} RUNNING tasks within ${timeoutMs / 1000} s (status ${JSON.stringify(r?.json)}):\n${p.logTail()}`,
      );
    await sleep(200);
  }
}

/**
 * Waits (at most `timeoutMs`; no error after it: the caller goes on) until `p`'s status of the
 * connector shows a RUNNING task on the worker `workerId` (its advertised host:port).
 */
export async function waitForWorkerTasks(
  p: Proc,
  connector: string,
  workerId: string,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const r = await rest(p.url, 'GET', `/connectors/${connector}/status`).catch(() => undefined);
    const s = r?.status === 200 ? (r.json as Status) : undefined;
    if (s?.tasks?.some((t) => t.worker_id === workerId && t.state === 'RUNNING')) return true;
    await sleep(250);
  }
  return false;
}

/**
 * A REST write retried while the worker answers 409 (joining the cluster, or a rebalance in progress),
 * for at most `timeoutMs`; any other answer than 200 or 201 fails.
 */
export async function restWrite(
  p: Proc,
  method: string,
  pathname: string,
  body: unknown,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await rest(p.url, method, pathname, body);
    if (r.status === 200 || r.status === 201) return;
    if (r.status !== 409 || Date.now() > deadline)
      throw new Error(`${method} ${pathname} → ${r.status}: ${JSON.stringify(r.json)}`);
    await sleep(250);
  }
}

/** PUT /connectors/{name}/config (retried on 409). */
export function putConfig(p: Proc, connector: string, config: Record<string, string>): Promise<void> {
  return restWrite(p, 'PUT', `/connectors/${connector}/config`, config);
}

/** `sharesink standalone worker.properties connector.properties` with a REST listener. */
export async function sharesinkStandalone(o: {
  dir: string;
  brokers: string;
  connector: Record<string, string>;
}): Promise<Proc> {
  const port = await freePort();
  const worker = path.join(o.dir, 'worker.properties');
  const connector = path.join(o.dir, 'connector.properties');
  writeFileSync(
    worker,
    props({
      'bootstrap.servers': o.brokers,
      'key.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
      'value.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
      listeners: `http://127.0.0.1:${port}`,
    }),
  );
  writeFileSync(connector, props(o.connector));
  return launchSharesink(
    'sharesink-standalone',
    ['standalone', worker, connector, '--no-progress'],
    o.dir,
    port,
  );
}

/** One `sharesink distributed` worker of the group `groupId`, REST on a free port. */
export async function sharesinkDistributedWorker(o: {
  dir: string;
  name: string;
  brokers: string;
  groupId: string;
  extra?: Record<string, string>;
}): Promise<Proc> {
  const port = await freePort();
  const file = path.join(o.dir, `${o.name}.properties`);
  writeFileSync(
    file,
    props({
      'bootstrap.servers': o.brokers,
      'group.id': o.groupId,
      'config.storage.topic': `${o.groupId}-configs`,
      'status.storage.topic': `${o.groupId}-status`,
      'config.storage.replication.factor': '1',
      'status.storage.replication.factor': '1',
      'key.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
      'value.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
      listeners: `http://127.0.0.1:${port}`,
      ...o.extra,
    }),
  );
  return launchSharesink(`sharesink-worker-${o.name}`, ['distributed', file], o.dir, port);
}

/** The sharesink CLI from the sources (`sharesink <command…>`, info logs), once its REST API answers. */
async function launchSharesink(name: string, command: string[], dir: string, port: number): Promise<Proc> {
  const bin = path.join(ROOT, 'src/cli/bin.ts');
  const args = ['--import', 'tsx', bin, ...command, '--log-level', 'info'];
  const p = launch(name, process.execPath, args, { dir, url: `http://127.0.0.1:${port}` });
  await waitForRest(p);
  return p;
}

/**
 * Kafka Connect standalone (connect-runtime's `ConnectStandalone`) with SleepSinkConnector, its
 * records logged (`records.log=true`), a REST listener, `classesDir` from compileConnectPlugin.
 */
export async function connectStandalone(o: {
  dir: string;
  classesDir: string;
  brokers: string;
  worker: Record<string, string>;
  connector: Record<string, string>;
}): Promise<Proc> {
  const port = await freePort();
  const worker = path.join(o.dir, 'connect-worker.properties');
  const connector = path.join(o.dir, 'connect-connector.properties');
  writeFileSync(
    worker,
    props({
      'bootstrap.servers': o.brokers,
      'key.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
      'value.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
      'offset.storage.file.filename': path.join(o.dir, 'connect.offsets'),
      'plugin.discovery': 'service_load',
      listeners: `http://127.0.0.1:${port}`,
      ...o.worker,
    }),
  );
  writeFileSync(connector, props(o.connector));
  const cp = `${o.classesDir}${path.delimiter}${await connectClasspath()}`;
  const log4j = `-Dlog4j2.configurationFile=${path.join(BENCH_DIR, 'connect', 'log4j2.properties')}`;
  const jvm = [...MEASURED_JVM_OPTS.filter((x) => !x.startsWith('-Dlog4j2.configurationFile=')), log4j];
  const args = [...jvm, '-cp', cp, 'org.apache.kafka.connect.cli.ConnectStandalone', worker, connector];
  const p = launch('connect-standalone', 'java', args, { dir: o.dir, url: `http://127.0.0.1:${port}` });
  await waitForRest(p);
  return p;
}

export function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}
