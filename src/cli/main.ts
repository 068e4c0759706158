/**
 * The `sharesink` command. Exit codes (also in docs/cli.md):
 *   0  success
 *   1  runtime failure (a task failed, the broker was unreachable, …)
 *   2  invalid configuration or usage
 * 130  a second SIGINT/SIGTERM during graceful shutdown
 */
import { writeFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import type { Logger } from 'pino';
import { Worker } from '../actors/worker.js';
import { stopOnSignals } from '../actors/stop-on-signals.js';
import { startRestServer, type RestServer } from '../rest/server/server.js';
import { logLevelsFor } from '../observability/log-levels.js';
import { isSharesinkError } from '../errors.js';
import { LOG_LEVELS } from '../config/worker-def.js';
import { batchMachine } from '../machines/batch.js';
import { connectorMachine } from '../machines/connector.js';
import { taskMachine } from '../machines/task.js';
import { toDot, toMermaid } from '../machines/diagram.js';
import { checkClusterForConnectors } from '../actors/cluster-check.js';
import { compileFiles, validateFiles } from './compile-files.js';
import { runDistributed, type DistributedOptions } from './distributed.js';
import { chooseLogLevel, createCliLogger, LOG_FORMATS, type LogFormat } from './cli-logger.js';
import { showProgress } from './progress.js';
import { STOPPING_LINE, StatusLine } from './status-line.js';
import { classicConsumerNotes, workerNotes } from './validate-notes.js';
import { installCheckHooks } from '../testing/real/install.js';
import { registerCheck } from './check.js';

const MACHINES = { batch: batchMachine, task: taskMachine, connector: connectorMachine } as const;

function reportError(err: unknown): number {
  const message = err instanceof Error ? err.message : String(err);
  const code = isSharesinkError(err) ? err.code : undefined;
  process.stderr.write(`sharesink: ${message}\n`);
  return code === 'SHARESINK_CONFIG_INVALID' ? 2 : 1;
}

interface StandaloneOptions {
  summaryFile?: string;
  logLevel?: string;
  logFormat?: LogFormat;
  progress?: boolean;
}

async function standalone(
  workerFile: string,
  connectorFiles: string[],
  opts: StandaloneOptions,
): Promise<void> {
  const interactive = opts.progress !== false && process.stderr.isTTY === true;
  const { worker, connectors } = await compileFiles(workerFile, connectorFiles);
  const statusLine = interactive ? new StatusLine(process.stderr) : undefined;
  const logger = createCliLogger({
    level: chooseLogLevel(opts.logLevel, worker.logLevel, interactive),
    format: opts.logFormat ?? 'auto',
    stderr: process.stderr,
    statusLine,
  });
  // before any child logger is made: PUT /admin/loggers/<name> then reaches every one of them
  logLevelsFor(logger);
  // before any task starts: an unreachable cluster, a missing topic, share groups turned off or a refused
  // topic or group is said once, here, rather than by every task's client, and exits with code 1
  await checkClusterForConnectors(worker, connectors, {
    logger,
    onWaiting: interactive ? (message) => process.stderr.write(`sharesink: ${message}\n`) : undefined,
  });
  // checked above, before the REST server: the worker need not look again
  const w = new Worker({ worker, connectors, logger, checkCluster: false });
  let stopProgress: (() => void) | undefined;
  const finish = (code: number) => {
    stopProgress?.();
    if (opts.summaryFile) writeFileSync(opts.summaryFile, `${JSON.stringify(w.summary(), null, 2)}\n`);
    process.exit(code);
  };
  // the REST server closes before the worker drains: no restart or resume can race the shutdown
  let rest: RestServer | undefined;
  stopOnSignals(w, {
    onStopped: finish,
    logger,
    beforeStop: async () => {
      // the graceful stop can take the put grace time: say so, or a terminal looks hung
      statusLine?.printAbove(STOPPING_LINE);
      await rest?.close();
    },
  });
  if ((worker.listeners ?? []).length > 0) rest = await startRestServer(w, { logger });
  try {
    await w.start();
  } catch (err) {
    await rest?.close();
    await w.stop().catch(() => undefined);
    throw err;
  }
  if (rest !== undefined) {
    if (interactive)
      process.stderr.write(`sharesink: REST API on ${rest.url} (live view: ${rest.url}/machines)\n`);
  } else {
    watchFailures(w, logger, finish);
  }
  if (interactive) {
    process.stderr.write(
      `sharesink: running ${connectors.map((c) => `${c.name} (${c.groupProtocol})`).join(', ')}; Ctrl-C stops gracefully\n`,
    );
    stopProgress = showProgress(w, statusLine!);
  }
}

/**
 * Without a REST API nothing can restart a failed task, so a worker whose every task failed has
 * nothing left to do: it stops with exit code 1. With the REST API it keeps running, as Connect does.
 */
export function watchFailures(
  w: Pick<Worker, 'summary' | 'stop' | 'taskFailures'>,
  logger: Logger,
  finish: (code: number) => void,
): NodeJS.Timeout {
  // not unref'd: once the failed tasks' clients are gone nothing else may hold the process, which would
  // then end by itself with code 0 and no summary file before this noticed the failure
  const watchdog = setInterval(() => {
    const tasks = w.summary().connectors.flatMap((c) => c.tasks);
    if (tasks.length > 0 && tasks.every((t) => t.state === 'failed')) {
      clearInterval(watchdog);
      logger.error({ failures: w.taskFailures }, 'every task failed; stopping');
      void w.stop().finally(() => finish(1));
    }
  }, 1000);
  return watchdog;
}

async function validate(files: string[]): Promise<void> {
  const [workerFile, ...connectorFiles] = files;
  // what `standalone` and Worker.start() check, the connectors' own code included: one list, exit 2
  const { worker, connectors, notes } = await validateFiles(workerFile!, connectorFiles);
  process.stdout.write('worker config: valid\n');
  for (const note of workerNotes(worker)) process.stdout.write(`  note: ${note}\n`);
  for (const c of connectors) {
    process.stdout.write(
      `${c.name}: valid (${c.groupProtocol} mode, group ${c.groupId}, ${c.tasksMax} task(s)${c.putPlacement === 'event-loop' ? ', puts on the event loop' : ''})\n`,
    );
    const own = notes
      .filter((n) => n.source === c.name)
      .map((n) => (n.key === '' ? n.message : `${n.key}: ${n.message}`));
    for (const w of [...own, ...classicConsumerNotes(c)]) process.stdout.write(`  note: ${w}\n`);
  }
}

const logLevelOption = (defaults?: string) =>
  new Option(
    '--log-level <level>',
    `log level; wins over the worker file's log.level${defaults === undefined ? '' : ` ${defaults}`}`,
  ).choices(LOG_LEVELS);

const logFormatOption = () =>
  new Option(
    '--log-format <format>',
    'readable lines (pretty) or JSON; auto: pretty on a terminal, JSON otherwise',
  )
    .choices(LOG_FORMATS)
    .default('auto');

export function buildProgram(): Command {
  const program = new Command('sharesink')
    .description(
      'Run Kafka Connect sink connectors on Node.js, through share groups (KIP-932) or classic groups',
    )
    .version('0.1.0')
    .showHelpAfterError();

  program
    .command('standalone')
    .description('run connectors in this process, like connect-standalone')
    .argument('<worker.properties>', 'worker config (bootstrap.servers, converters, consumer.*)')
    .argument('<connector...>', 'connector configs (.properties or .json)')
    .option('--summary-file <path>', 'write a JSON summary of every connector counter on shutdown')
    .addOption(logLevelOption('(default: notice on a terminal, info otherwise)'))
    .addOption(logFormatOption())
    .option('--no-progress', 'no live progress line, even on a terminal')
    .action(async (workerFile: string, connectorFiles: string[], opts) => {
      await standalone(workerFile, connectorFiles, opts as StandaloneOptions);
    });

  registerCheck(program);

  // the worker process `sharesink check` starts (and kills): standalone with the kit's hook installed
  program
    .command('check-worker', { hidden: true })
    .argument('<worker.properties>')
    .argument('<connector...>')
    .addOption(logLevelOption())
    .addOption(logFormatOption())
    .action(async (workerFile: string, connectorFiles: string[], opts) => {
      await installCheckHooks();
      await standalone(workerFile, connectorFiles, { ...(opts as StandaloneOptions), progress: false });
    });

  program
    .command('distributed')
    .description(
      'run one worker of a cluster coordinated through Kafka, like connect-distributed; connectors are managed over the REST API of any worker',
    )
    .argument(
      '<worker.properties>',
      'worker config (bootstrap.servers, group.id, config.storage.topic, status.storage.topic, listeners)',
    )
    .addOption(logLevelOption())
    .addOption(logFormatOption())
    .action(async (workerFile: string, opts) => {
      await runDistributed(workerFile, opts as DistributedOptions);
    });

  program
    .command('validate')
    .description('check a worker config and connector configs; lists every problem at once')
    .argument('<worker.properties>')
    .argument('[connector...]')
    .action(async (workerFile: string, connectorFiles: string[]) => {
      await validate([workerFile, ...connectorFiles]);
    });

  program
    .command('diagram')
    .description('print a state machine diagram generated from the machine definitions')
    .addOption(
      new Option('--format <format>', 'output format').choices(['mermaid', 'dot']).default('mermaid'),
    )
    .addOption(
      new Option('--machine <machine>', 'which machine').choices(Object.keys(MACHINES)).default('batch'),
    )
    .action((opts: { format: 'mermaid' | 'dot'; machine: keyof typeof MACHINES }) => {
      const machine = MACHINES[opts.machine];
      process.stdout.write(opts.format === 'dot' ? toDot(machine) : toMermaid(machine));
    });

  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  program.exitOverride((err) => {
    process.exit(err.exitCode === 0 ? 0 : 2);
  });
  try {
    await program.parseAsync(argv);
  } catch (err) {
    process.exit(reportError(err));
  }
}
