/**
 * One real-broker run: a fresh topic and group, the schedule's records produced step by step with its
 * faults injected for real (kill -9 and restart, the hook's put faults, the relays' cuts and delays),
 * a clean final drain until the broker says every record is done, then the verdict: every record the
 * broker considers done must be in the sink (`lost`), and for an idempotent connector none twice
 * (`duplicated`).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { ConnectorConfig } from '../../config/types.js';
import type { CheckCluster, ProducedRecord, ValueShape } from './cluster-io.js';
import { armCommand, disarmCommand, readSignals, type PutAction, type Signal } from './control.js';
import { countIds, type SinkObserver } from './observers.js';
import { startRelays } from './relay.js';
import type { RealFaultKind, RunSchedule, RunStep } from './schedule.js';
import { startCheckWorker, type CheckWorker } from './worker-process.js';

/** What every run of one check shares. */
export interface RunSetup {
  readonly dir: string;
  readonly cwd: string;
  readonly worker: Readonly<Record<string, string>>;
  /** The author's connector properties (connector.class theirs). */
  readonly connector: Readonly<Record<string, string>>;
  readonly compiled: ConnectorConfig;
  readonly hookedClass: string;
  readonly cluster: CheckCluster;
  /** The brokers a run's relays stand in front of (each run has its own relays). */
  readonly brokers: ReadonlyArray<{ host: string; port: number }>;
  readonly observer: SinkObserver;
  readonly idempotent: boolean;
  readonly shape: ValueShape;
  /** Prefix of every topic, group and record id of this check. */
  readonly nonce: string;
  readonly lockMs: number;
  /** How long a put fault may wait for a put to claim it. */
  readonly fireTimeoutMs: number;
  readonly drainTimeoutMs: number;
  readonly startTimeoutMs: number;
  readonly keepTopics: boolean;
  /** Restarts the broker and returns once it answers (the `broker-restart` fault; broker-restart.ts). */
  readonly restartBroker?: () => Promise<void>;
}

export interface RunResult {
  readonly index: number;
  readonly schedule: RunSchedule;
  readonly records: number;
  readonly lost: readonly string[];
  readonly duplicated: readonly string[];
  /** Records the broker never said were done (the drain ran out of time). */
  readonly undrained: readonly string[];
  /** Records found in the connector's dead-letter topic (excused from the sink). */
  readonly deadLettered: readonly string[];
  /** Faults that fired, per kind. */
  readonly fired: Readonly<Partial<Record<RealFaultKind, number>>>;
  /** Worker processes started (1 + restarts). */
  readonly workers: number;
  readonly topic: string;
  readonly dir: string;
}

export const runFailed = (r: RunResult): boolean =>
  r.lost.length > 0 || r.duplicated.length > 0 || r.undrained.length > 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ACTION: Partial<Record<RealFaultKind, PutAction>> = {
  'kill-mid-put': 'mid-put',
  'kill-after-put': 'after-put',
  'kill-during-commit': 'during-commit',
  'put-retriable': 'retriable',
  'put-fatal': 'fatal',
  'lock-expiry': 'slow',
};
const KILLS: ReadonlySet<RealFaultKind> = new Set(['kill-mid-put', 'kill-after-put', 'kill-during-commit']);

export async function runOnce(setup: RunSetup, index: number, schedule: RunSchedule): Promise<RunResult> {
  const topic = `${setup.nonce}-r${index}`;
  const idPrefix = `${setup.nonce.replace(/[^a-z0-9]/gi, '')}r${index}n`;
  const dir = path.join(setup.dir, `run-${index}`);
  mkdirSync(dir, { recursive: true });
  const connector = runConnector(setup, topic, schedule);
  const compiled: ConnectorConfig = { ...setup.compiled, groupId: topic, topics: [topic] };
  const fired: Partial<Record<RealFaultKind, number>> = {};
  const produced: ProducedRecord[] = [];
  let workers = 0;
  let seq = 0;
  let worker: CheckWorker | undefined;

  const start = async (): Promise<CheckWorker> => {
    workers++;
    return startCheckWorker({
      dir,
      cwd: setup.cwd,
      worker: setup.worker,
      connector,
      innerClass: setup.connector['connector.class']!,
      redirects,
      startTimeoutMs: setup.startTimeoutMs,
    });
  };
  /** A worker that is running: the one there is, or a new one when it exited (a fatal failure ends it). */
  const running = async (): Promise<CheckWorker> => {
    if (worker === undefined || worker.exitCode() !== undefined) worker = await start();
    return worker;
  };
  const count = (kind: RealFaultKind) => (fired[kind] = (fired[kind] ?? 0) + 1);

  // this run's own relays: a cut or delay of one run never touches another's worker
  const { relays, redirects } = await startRelays(setup.brokers);
  try {
    await setup.cluster.createTopic(topic, schedule.partitions);
    await running();
    for (const step of schedule.steps) await runStep(step);
    await drain();
    await worker?.stop(30_000);
    const counts = countIds(
      await setup.observer({ index, topic, groupId: topic, connector, idPrefix }),
      idPrefix,
    );
    const deadLettered = new Set<string>();
    for (const dlq of deadLetterTopics(setup.connector))
      for (const id of await setup.cluster.idsInTopic(dlq, idPrefix)) deadLettered.add(id);
    return verdict(counts, await setup.cluster.doneOffsets(compiled, topic), deadLettered);
  } finally {
    await worker?.kill9();
    await Promise.all(relays.map((r) => r.close()));
    await setup.cluster.release(topic);
    if (!setup.keepTopics) await setup.cluster.deleteTopic(topic);
  }

  async function produce(n: number): Promise<void> {
    const first = produced.length;
    produced.push(
      ...(await setup.cluster.produce(topic, schedule.partitions, idPrefix, first, n, setup.shape)),
    );
  }

  async function runStep(step: RunStep): Promise<void> {
    const f = step.fault;
    if (f.kind === 'none') return produce(step.records);
    if (f.kind === 'connection-cut') {
      await produce(step.records);
      const before = relays.reduce((n, r) => n + r.connectionsCut, 0);
      await Promise.all(relays.map((r) => r.cut(f.ms)));
      if (relays.reduce((n, r) => n + r.connectionsCut, 0) > before) count(f.kind);
      return;
    }
    if (f.kind === 'broker-restart') {
      // the records go first: the restart finds them in the log, some fetched, some being put
      await produce(step.records);
      await setup.restartBroker!();
      count(f.kind);
      return;
    }
    if (f.kind === 'connection-delay') {
      const before = relays.reduce((n, r) => n + r.chunksDelayed, 0);
      for (const r of relays) r.setDelay(f.ms);
      await produce(step.records);
      await sleep(Math.max(f.ms * 2, 500));
      for (const r of relays) r.setDelay(0);
      if (relays.reduce((n, r) => n + r.chunksDelayed, 0) > before) count(f.kind);
      return;
    }
    const action = ACTION[f.kind]!;
    const w = await running();
    const command = {
      seq: ++seq,
      action,
      ...(action === 'slow' ? { slowMs: Math.round(setup.lockMs * 1.6) } : {}),
    };
    armCommand(dir, command);
    // the ack or commit after this put is held in the relays: the kill lands while it is in flight
    if (f.kind === 'kill-during-commit') for (const r of relays) r.setDelay(400);
    await produce(step.records);
    const wait = setup.fireTimeoutMs + (action === 'slow' ? command.slowMs! : 0);
    const gone = () => w.exitCode() !== undefined;
    let signal = await waitForSignal(dir, command.seq, wait, gone);
    // claimed just as the wait ended: its fault is under way, wait for it rather than leave a worker hanging
    if (signal === undefined && !disarmCommand(dir))
      signal = await waitForSignal(dir, command.seq, wait, gone);
    if (signal === undefined) {
      for (const r of relays) r.setDelay(0);
      return;
    }
    count(f.kind);
    if (KILLS.has(f.kind)) {
      await w.kill9();
      for (const r of relays) r.setDelay(0);
      worker = await start();
    }
  }

  async function drain(): Promise<void> {
    const end = new Map<number, number>();
    for (const r of produced) end.set(r.partition, Math.max(end.get(r.partition) ?? 0, r.offset + 1));
    const deadline = Date.now() + setup.drainTimeoutMs;
    for (;;) {
      await running();
      const done = await setup.cluster.doneOffsets(compiled, topic);
      if ([...end].every(([p, e]) => (done.get(p) ?? -1) >= e)) return;
      if (Date.now() > deadline) return; // the verdict names what is left
      await sleep(250);
    }
  }

  function verdict(
    counts: ReadonlyMap<string, number>,
    done: ReadonlyMap<number, number>,
    deadLettered: ReadonlySet<string>,
  ): RunResult {
    // in the dead-letter queue: done by the broker's count, and not owed to the sink
    const excused = new Set<string>(deadLettered);
    const byCoordinates = new Map(produced.map((r) => [`${r.partition}/${r.offset}`, r.id]));
    for (const s of readSignals(dir))
      if (s.action === 'fatal')
        for (const [t, p, o] of s.records) {
          const id = t === topic ? byCoordinates.get(`${p}/${o}`) : undefined;
          if (id !== undefined) excused.add(id);
        }
    const lost: string[] = [];
    const duplicated: string[] = [];
    const undrained: string[] = [];
    for (const r of produced) {
      const n = counts.get(r.id) ?? 0;
      if (r.offset >= (done.get(r.partition) ?? 0)) undrained.push(r.id);
      else if (n === 0 && !excused.has(r.id)) lost.push(r.id);
      if (setup.idempotent && n > 1) duplicated.push(r.id);
    }
    return {
      index,
      schedule,
      records: produced.length,
      lost,
      duplicated,
      undrained,
      deadLettered: [...deadLettered],
      fired,
      workers,
      topic,
      dir,
    };
  }
}

/** The dead-letter topics a connector names: its group's (share, Kafka 4.4) and Connect's (classic). */
function deadLetterTopics(connector: Readonly<Record<string, string>>): string[] {
  return ['share.group.errors.deadletterqueue.topic.name', 'errors.deadletterqueue.topic.name']
    .map((k) => connector[k]?.trim() ?? '')
    .filter((t) => t !== '');
}

/** The connector as a run runs it: the hook's class, the run's topic and group, short locks. */
function runConnector(setup: RunSetup, topic: string, schedule: RunSchedule): Record<string, string> {
  const c: Record<string, string> = { ...setup.connector };
  delete c['topics.regex'];
  c['connector.class'] = setup.hookedClass;
  c['topics'] = topic;
  c['consumer.override.group.id'] = topic;
  if (setup.compiled.groupProtocol === 'share') {
    c['share.group.share.record.lock.duration.ms'] ??= String(setup.lockMs);
    // a record redelivered after every fault of a run must not be archived for it
    c['share.group.share.delivery.count.limit'] ??= '10';
    c['share.lock.renewal'] = schedule.lockRenewal;
  } else if (setup.compiled.groupProtocol === 'classic') {
    // a killed member's partitions come back after its session times out (a consumer-protocol group's
    // session timeout is the broker's group config, group.consumer.session.timeout.ms, not the client's)
    c['consumer.override.session.timeout.ms'] ??= '6000';
    c['consumer.override.heartbeat.interval.ms'] ??= '1000';
  }
  // record ids are unique to the run: a file or table shared by the runs needs no cleaning between them
  return c;
}

async function waitForSignal(
  dir: string,
  seq: number,
  timeoutMs: number,
  gone: () => boolean,
): Promise<Signal | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const s = readSignals(dir).find((x) => x.seq === seq);
    if (s !== undefined) return s;
    if (gone()) return undefined;
    await sleep(20);
  }
  return undefined;
}
