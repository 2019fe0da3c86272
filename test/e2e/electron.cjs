// Part D of scripts/e2e.sh: the API suite in a desktop VS Code through @vscode/test-electron.
// Runs only when VSCODE_EXECUTABLE names a VS Code binary (this project's CI has none and cannot
// download one); otherwise it says so and exits 0. Env: EXT (extension folder), WS (workspace copy).
const path = require('node:path');
const fs = require('node:fs');

const executable = process.env.VSCODE_EXECUTABLE;
if (!executable || !fs.existsSync(executable)) {
  console.log('electron: skipped (set VSCODE_EXECUTABLE to a desktop VS Code binary to run the API suite there)');
  process.exit(0);
}

const { runTests } = require('@vscode/test-electron');
const ext = process.env.EXT ?? path.resolve(__dirname, '..', '..');
runTests({
  vscodeExecutablePath: executable,
  extensionDevelopmentPath: ext,
  extensionTestsPath: path.join(ext, '.e2e', 'suite.js'),
  launchArgs: [process.env.WS ?? path.join(__dirname, 'workspace'), '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
}).then(
  () => console.log('electron: API suite passed'),
  (e) => {
    console.error(`electron: API suite failed: ${e && e.message}`);
    process.exit(1);
  },
);
