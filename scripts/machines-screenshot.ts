/**
 * Regenerates docs/images/machines.png: serves the `/machines` page (the same generator the REST
 * server uses) with a `/machines/events` stream that sends one fixed sample update, opens it in
 * headless Chromium at 1400 px, and saves a full-page screenshot once the page has painted the update.
 * A sample rather than a running worker, so the picture is the same on every run and needs no Kafka.
 *
 *   npx tsx scripts/machines-screenshot.ts [out.png]
 *
 * Needs Debian's chromium (`apt-get install -y chromium`); SHARESINK_CHROMIUM overrides its path.
 * Exits non-zero when the page scrolls sideways at 1400 px.
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { batchMachine } from '../src/machines/batch.js';
import { connectorMachine } from '../src/machines/connector.js';
import { taskMachine } from '../src/machines/task.js';
import type { MachinesUpdate } from '../src/rest/live-view/machine-events.js';
import { machinesPage } from '../src/rest/live-view/machines-page.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, 'docs/images/machines.png'));
const WIDTH = 1400;

/** A worker with 4 share tasks mid-run: batches in every phase, one lock being renewed, one retry. */
const SAMPLE: MachinesUpdate = {
  at: Date.UTC(2026, 0, 1, 12, 0, 0),
  states: {
    batch: { acquired: 3, putting: 5, 'putting/renewing': 1, retrying: 1, acknowledging: 2 },
    task: { running: 4 },
    connector: { 'up.running': 1 },
  },
  rates: [
    { machine: 'batch', from: 'acquired', to: 'putting', perSecond: 41.5 },
    { machine: 'batch', from: 'putting', to: 'acknowledging', perSecond: 40.2 },
    { machine: 'batch', from: 'putting', to: 'putting/renewing', perSecond: 0.5 },
    { machine: 'batch', from: 'putting', to: 'retrying', perSecond: 1.3 },
    { machine: 'batch', from: 'acknowledging', to: 'done', perSecond: 40.8 },
  ],
  totals: { batch: 52_310, task: 12, connector: 3 },
};

async function main(): Promise<void> {
  const html = await machinesPage([batchMachine, taskMachine, connectorMachine], 'sharesink');
  const server = createServer((req, res) => {
    if (req.url === '/machines/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      res.write(`event: machines\ndata: ${JSON.stringify(SAMPLE)}\n\n`);
      return; // held open, as the worker's stream is, until the browser goes
    }
    res.writeHead(req.url === '/machines' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.url === '/machines' ? html : 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const browser = await chromium.launch({
    executablePath: process.env.SHARESINK_CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: WIDTH, height: 900 } });
    await page.goto(`http://127.0.0.1:${port}/machines`);
    // run in the page, written as strings because this project compiles without the DOM typings
    await page.waitForFunction("document.getElementById('status').textContent.startsWith('live, updated')");
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    mkdirSync(path.dirname(OUT), { recursive: true });
    await page.screenshot({ path: OUT, fullPage: true });
    process.stdout.write(`${path.relative(ROOT, OUT)} written (${WIDTH} px wide)\n`);
    if (overflow > 0) {
      process.stderr.write(`the page scrolls sideways by ${overflow} px at ${WIDTH} px\n`);
      process.exitCode = 1;
    }
  } finally {
    await browser.close();
    server.closeAllConnections();
    server.close();
  }
}

await main();
