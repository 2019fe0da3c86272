// Part C of scripts/e2e.sh: opening the workbench makes code-server start its Node extension host,
// where runner-ext/ runs the API suite and writes the result file. This waits for that file and
// prints the suite's log. Usage: node node-host.mjs URL FOLDER RESULT_FILE
import { chromium } from 'playwright-core';
import { existsSync, readFileSync } from 'node:fs';

const [url, folder, resultFile] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage();
  await page.goto(`${url}/?folder=${encodeURIComponent(folder)}`);
  const end = Date.now() + 180_000;
  while (!existsSync(resultFile) && Date.now() < end) await new Promise((r) => setTimeout(r, 250));
} finally {
  await browser.close();
}
if (!existsSync(resultFile)) {
  console.log('node host: no result file: the extension host never ran the suite');
  console.log('api suite: 0 passed, 1 failed');
  process.exit(1);
}
const result = JSON.parse(readFileSync(resultFile, 'utf8'));
for (const line of result.log ?? []) console.log(line);
if (result.error) console.error(result.error);
console.log(`node host: Node ${result.node}`);
process.exit(result.ok ? 0 : 1);
