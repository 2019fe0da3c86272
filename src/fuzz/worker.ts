/**
 * A fuzz worker thread: runs the units it is sent, one at a time, telling
 * the pool when each input starts (so a hang can be pinned on it) and what
 * each unit found; or replays single inputs for the minimiser.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ToPool, ToWorker, WorkerSetup } from './pool';
import { nodeParsers } from './parsers';
import { replay, runUnit } from './run';

async function main(): Promise<void> {
  const port = parentPort!;
  const { seeds, cfg } = workerData as WorkerSetup;
  const parsers = await nodeParsers();
  const send = (m: ToPool): void => port.postMessage(m);
  port.on('message', (m: ToWorker) => {
    if (m.type === 'stop') port.close();
    else if (m.type === 'replay') send({ type: 'replayed', findings: replay(parsers, m.input, cfg) });
    else send({ type: 'unit', run: runUnit(parsers, seeds, cfg, m.unit, { before: (input) => send({ type: 'start', input }) }) });
  });
  send({ type: 'ready' });
}

void main();
