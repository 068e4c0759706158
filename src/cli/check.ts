/**
 * `sharesink check <worker.properties> <connector.properties>`: the kit's real-broker mode from the
 * command line. Runs the connector in worker processes it kills and restarts, against the broker of
 * the worker file, under generated fault schedules; exit 0 when every run kept every record (and, with
 * --idempotent, wrote none twice), 1 with the smallest failing schedule otherwise, 2 on bad usage.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { loadConnectorConfig, loadWorkerConfig } from '../config/index.js';
import { ConfigError } from '../errors.js';
import {
  checkConnector,
  DEFAULT_LOCK_MS,
  DEFAULT_PARALLEL,
  type CheckProgress,
} from '../testing/real/check-connector.js';
import { loadObserver } from '../testing/real/observers.js';
import { REAL_FAULT_KINDS, type RealFaultKind } from '../testing/real/schedule.js';
import { KitUsageError } from '../testing/usage.js';
import { formatCheckFailure, formatCheckProgress, formatCheckSummary } from './check-report.js';
import { validateFiles } from './compile-files.js';
import { StatusLine } from './status-line.js';

interface CheckOptions {
  idempotent?: boolean;
  runs: string;
  timeLimit?: string;
  seed?: string;
  path?: string;
  observer?: string;
  recordHttp?: boolean;
  brokerRestartCommand?: string;
  faults?: string;
  lockMs: string;
  parallel: string;
  keepTopics?: boolean;
  progress?: boolean;
}

function positiveInt(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new KitUsageError(`${name} must be a whole number, not ${text}`);
  return n;
}

function atLeastOne(name: string, text: string): number {
  const n = positiveInt(name, text);
  if (n < 1) throw new KitUsageError(`${name} must be 1 or more, not ${text}`);
  return n;
}

/** A replay line must survive a shell: the command goes in single quotes. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function faultList(text: string | undefined): RealFaultKind[] | undefined {
  if (text === undefined) return undefined;
  const list = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const unknown = list.filter((k) => !(REAL_FAULT_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0)
    throw new KitUsageError(
      `--faults: unknown ${unknown.join(', ')} (known: ${REAL_FAULT_KINDS.join(', ')})`,
    );
  return list as RealFaultKind[];
}

async function check(workerFile: string, connectorFile: string, opts: CheckOptions): Promise<void> {
  const interactive = opts.progress !== false && process.stderr.isTTY === true;
  // every problem of both files at once, the connector's own validate() included, as `validate` does
  await validateFiles(workerFile, [connectorFile]);
  const worker = loadWorkerConfig(workerFile);
  const connector = loadConnectorConfig(connectorFile);
  const runs = positiveInt('--runs', opts.runs);
  const status = interactive ? new StatusLine(process.stderr) : undefined;
  const onRun = (p: CheckProgress) => {
    const line = formatCheckProgress(p, runs);
    if (status !== undefined) status.show(line);
    else process.stderr.write(`sharesink check: ${line}\n`);
  };
  const faults = opts.faults !== undefined ? faultList(opts.faults) : undefined;
  const printLine = (line: string) =>
    status !== undefined ? status.printAbove(line) : process.stderr.write(line);
  if (interactive) status!.show('starting the first run…');
  const report = await checkConnector({
    worker,
    connector,
    idempotent: opts.idempotent === true,
    runs,
    ...(opts.timeLimit !== undefined
      ? { timeLimitMs: positiveInt('--time-limit', opts.timeLimit) * 1000 }
      : {}),
    ...(opts.seed !== undefined ? { seed: Number(opts.seed) } : {}),
    ...(opts.path !== undefined ? { path: opts.path } : {}),
    ...(opts.observer !== undefined ? { observer: await loadObserver(opts.observer) } : {}),
    recordHttp: opts.recordHttp === true,
    ...(opts.brokerRestartCommand !== undefined ? { brokerRestartCommand: opts.brokerRestartCommand } : {}),
    ...(faults !== undefined ? { faults } : {}),
    lockMs: positiveInt('--lock-ms', opts.lockMs),
    parallel: atLeastOne('--parallel', opts.parallel),
    keepTopics: opts.keepTopics === true,
    onRun,
    onStart: (plan) => {
      if (plan.faultKinds.includes('broker-restart'))
        printLine(
          'sharesink check: runs go one at a time: a broker restart reaches every run beside it (--parallel does not apply)\n',
        );
    },
  });
  status?.end();
  const replay = [
    'sharesink check',
    workerFile,
    connectorFile,
    ...(opts.idempotent === true ? ['--idempotent'] : []),
    ...(opts.faults !== undefined ? ['--faults', opts.faults] : []),
    ...(opts.observer !== undefined ? ['--observer', opts.observer] : []),
    ...(opts.recordHttp === true ? ['--record-http'] : []),
    ...(opts.brokerRestartCommand !== undefined
      ? ['--broker-restart-command', shellQuote(opts.brokerRestartCommand)]
      : []),
  ].join(' ');
  const name = connector['name'] ?? connectorFile;
  if (report.failure !== undefined) {
    process.stdout.write(formatCheckFailure(name, report, replay, opts.idempotent === true));
    process.exitCode = 1;
  } else {
    process.stdout.write(formatCheckSummary(name, report));
  }
}

export function registerCheck(program: Command): void {
  program
    .command('check')
    .description(
      "property-test a connector's delivery guarantees: the real runtime against the real broker under generated faults (kill -9, put failures, lock expiry, cut connections)",
    )
    .argument('<worker.properties>', 'worker config; its bootstrap.servers is the broker checked against')
    .argument('<connector.properties>', 'the connector to check; each run gets its own topic and group')
    .option(
      '--idempotent',
      'the connector claims a redelivered record is written once: fail on any duplicate',
    )
    .option('--runs <n>', 'generated runs', '20')
    .option('--time-limit <seconds>', 'start no run (and no shrinking run) after this long')
    .option('--seed <seed>', 'replay: the seed a failure printed')
    .option('--path <path>', 'replay: the counter-example path a failure printed')
    .option('--observer <module>', 'a module exporting observe(run) that reads what the sink holds')
    .option(
      '--record-http',
      "HttpSink: point http.url at the kit's recording HTTP server (path kept) and count what it received",
    )
    .option(
      '--broker-restart-command <command>',
      'a shell command that restarts the broker (e.g. "docker restart kafka"): enables the broker-restart fault; runs go one at a time',
    )
    .addOption(
      new Option(
        '--faults <kinds>',
        `comma-separated fault kinds (default: all that apply): ${REAL_FAULT_KINDS.join(', ')}`,
      ),
    )
    .option(
      '--parallel <n>',
      'runs at once, each with its own topic, group and worker process (shrinking runs one at a time)',
      String(DEFAULT_PARALLEL),
    )
    .option('--lock-ms <ms>', "share groups: the record lock of each run's group", String(DEFAULT_LOCK_MS))
    .option('--keep-topics', "keep each run's topic (default: deleted after the run)")
    .option('--no-progress', 'no live status line, even on a terminal')
    .action(async (workerFile: string, connectorFile: string, opts: CheckOptions) => {
      try {
        await check(workerFile, connectorFile, opts);
      } catch (err) {
        // a bad file: listed by main() as `validate` lists it, exit 2
        if (err instanceof ConfigError) throw err;
        const message = err instanceof Error ? err.message : String(err);
        process.stderr.write(`sharesink check: ${message.replace(/^sharesink check: /, '')}\n`);
        process.exitCode = err instanceof KitUsageError ? 2 : 1;
      }
      // a client's timer left behind must not keep the verdict from its exit code
      process.exit(process.exitCode ?? 0);
    });
}
