/**
 * The roofline page's HTML: a strict Content-Security-Policy (scripts only
 * with the nonce, styles from the extension or with the nonce, no eval, no
 * inline handlers, nothing remote), the controls' skeleton, and the bundled
 * script (dist/webview.js) and stylesheet (media/panel.css). Pure.
 */

export interface PageResources {
  /** `webview.cspSource`. */
  cspSource: string;
  nonce: string;
  /** `webview.asWebviewUri(...)` strings. */
  script: string;
  style: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data: blob:`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

/** A fresh random nonce (128 bits, hex). */
export function makeNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function attr(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function pageHtml(r: PageResources): string {
  const nonce = attr(r.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(r.cspSource, r.nonce)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${attr(r.style)}" nonce="${nonce}">
<title>Roofline</title>
</head>
<body>
<header class="bar">
  <h1 id="title">Roofline</h1>
  <div class="controls">
    <label>GPU <select id="gpu"></select></label>
    <label>compare with <select id="compare"></select></label>
    <details id="precisions-box">
      <summary>Roofs</summary>
      <fieldset id="precisions"><legend>Precisions drawn</legend></fieldset>
    </details>
    <button id="mode" type="button">Whole workspace</button>
    <button id="import-profile" type="button">Import profile…</button>
    <button id="export-svg" type="button">Export SVG…</button>
    <button id="export-png" type="button">Export PNG…</button>
  </div>
</header>
<main>
  <div id="chart"></div>
  <p id="empty" hidden></p>
  <ul id="notices"></ul>
  <section id="pipeline" aria-labelledby="pipeline-title" hidden>
    <h2 id="pipeline-title">Pipeline</h2>
    <div class="actions" id="pipeline-pick" hidden><label>pipeline <select id="pipeline-select"></select></label></div>
    <p id="pipeline-summary"></p>
    <p id="pipeline-time"></p>
    <div id="pipeline-chart" role="img" aria-label="Where the time goes: T_lower per launch"></div>
    <p id="pipeline-point" class="hint"></p>
    <fieldset id="pipeline-fusion"><legend>Fuse (what-if, a bound: the fused kernel keeps the intermediate on chip)</legend></fieldset>
    <p id="pipeline-fused" role="status" aria-live="polite"></p>
    <p id="pipeline-best" class="hint"></p>
    <div class="table-scroll">
      <table id="pipeline-launches" class="grid">
        <caption>Launches, in the order the host function makes them.</caption>
        <thead></thead>
        <tbody></tbody>
      </table>
    </div>
    <ul id="pipeline-notes" class="hint"></ul>
  </section>
  <section id="profile" aria-labelledby="profile-title" hidden>
    <h2 id="profile-title">Profile</h2>
    <p id="profile-summary"></p>
    <div class="actions">
      <label><input type="checkbox" id="per-launch"> one dot per launch</label>
      <button id="clear-profile" type="button">Clear profile</button>
    </div>
    <ul id="profile-ambiguous"></ul>
    <ul id="profile-problems"></ul>
  </section>
  <section id="whatif" aria-labelledby="whatif-title">
    <h2 id="whatif-title">What if…</h2>
    <div id="whatif-body"></div>
  </section>
  <section aria-labelledby="table-title">
    <h2 id="table-title">Kernels</h2>
    <div class="actions">
      <button id="copy-markdown" type="button">Copy as Markdown</button>
      <button id="copy-tsv" type="button">Copy as TSV</button>
    </div>
    <div class="table-scroll">
      <table id="kernels">
        <caption>Kernels on the chart; select a column header to sort.</caption>
        <thead></thead>
        <tbody></tbody>
      </table>
    </div>
  </section>
</main>
<div id="status" class="sr-only" role="status" aria-live="polite"></div>
<script nonce="${nonce}" src="${attr(r.script)}"></script>
</body>
</html>`;
}
