// Worker threads do not inherit tsx's loader: register it, then run the TypeScript entry.
require('tsx/cjs/api').register();
require(require('node:worker_threads').workerData.entry);
