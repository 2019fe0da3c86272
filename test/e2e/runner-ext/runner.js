// When code-server runs with E2E_SUITE (a module exporting run()) and E2E_RESULT in its environment,
// this extension runs the suite in the Node extension host and writes { ok, error, log, node } to
// E2E_RESULT once it finishes (written to a temporary name first, so readers never see half a file).
const fs = require('fs');

exports.activate = async function activate(context) {
  const suite = process.env.E2E_SUITE;
  const out = process.env.E2E_RESULT;
  if (!suite || !out) return;
  const log = [];
  let ok = false;
  let error;
  try {
    // Where this host keeps extensions' global storage (the suite looks for Roofline Lens's worker cache there).
    await require(suite).run((line) => log.push(line), { globalStorage: context.globalStorageUri.fsPath });
    ok = true;
  } catch (e) {
    error = String((e && e.stack) || e);
  }
  fs.writeFileSync(`${out}.tmp`, JSON.stringify({ ok, error, log, node: process.version }, null, 1));
  fs.renameSync(`${out}.tmp`, out);
};

exports.deactivate = () => {};
