/**
 * The roofline panel's message validator: everything the page sends is
 * checked before the extension uses it. Valid messages come through with
 * exactly their fields; malformed ones (wrong types, unknown kinds, huge or
 * hostile strings, prototype keys, eval-ready colours) become undefined.
 */
import { strict as assert } from 'node:assert';
import { contentSecurityPolicy, pageHtml } from '../src/extension/panelHtml';
import { parsePageMessage, parsePanelState, parseTheme, MAX_EXPORT_CHARS } from '../src/shared/panelProtocol';

const THEME = {
  foreground: '#cccccc',
  background: '#1f1f1f',
  grid: 'rgba(255, 255, 255, 0.1)',
  memory: '#f14c4c',
  compute: '#3794ff',
  unknown: '#cccccc80',
  roof: '#cccccc',
  compareRoof: '#b180d7',
  l2: 'rgb(157 157 157)',
  font: '-apple-system, BlinkMacSystemFont, "Segoe WPC", "Segoe UI", "Ubuntu", "Droid Sans", sans-serif',
};

describe('panel messages: valid messages come through', () => {
  it('ready, theme and size', () => {
    assert.deepEqual(parsePageMessage({ type: 'ready', theme: THEME, width: 812.4 }), { type: 'ready', theme: THEME, width: 812 });
    assert.deepEqual(parsePageMessage({ type: 'theme', theme: THEME }), { type: 'theme', theme: THEME });
    assert.deepEqual(parsePageMessage({ type: 'size', width: 300 }), { type: 'size', width: 300 });
  });

  it('selection, mode, GPUs, precisions and sorting', () => {
    assert.deepEqual(parsePageMessage({ type: 'select', id: 'a.py:8:k', reveal: true }), { type: 'select', id: 'a.py:8:k', reveal: true });
    assert.deepEqual(parsePageMessage({ type: 'mode', mode: 'workspace' }), { type: 'mode', mode: 'workspace' });
    assert.deepEqual(parsePageMessage({ type: 'gpu', id: 'a100-sxm-80gb' }), { type: 'gpu', id: 'a100-sxm-80gb' });
    assert.deepEqual(parsePageMessage({ type: 'compare', id: '' }), { type: 'compare', id: '' });
    assert.deepEqual(parsePageMessage({ type: 'precisions', keys: ['tensor:bf16', 'vector:fp32'] }), { type: 'precisions', keys: ['tensor:bf16', 'vector:fp32'] });
    assert.deepEqual(parsePageMessage({ type: 'sort', sort: { column: 'ai', descending: true } }), { type: 'sort', sort: { column: 'ai', descending: true } });
    assert.deepEqual(parsePageMessage({ type: 'sort', sort: null }), { type: 'sort', sort: null });
  });

  it('what-if values, element types and the buttons without fields', () => {
    assert.deepEqual(parsePageMessage({ type: 'whatIf', name: 'BLOCK_M', value: 256 }), { type: 'whatIf', name: 'BLOCK_M', value: 256 });
    assert.deepEqual(parsePageMessage({ type: 'whatIf', name: 'blockDim.x', value: null }), { type: 'whatIf', name: 'blockDim.x', value: null });
    assert.deepEqual(parsePageMessage({ type: 'whatIf', name: 'EVEN_K', value: false }), { type: 'whatIf', name: 'EVEN_K', value: false });
    assert.deepEqual(parsePageMessage({ type: 'whatIfDtype', name: 'a_ptr', dtype: 'bf16' }), { type: 'whatIfDtype', name: 'a_ptr', dtype: 'bf16' });
    for (const type of ['whatIfReset', 'copyPragma', 'importProfile', 'clearProfile']) assert.deepEqual(parsePageMessage({ type, extra: 'ignored' }), { type });
    assert.deepEqual(parsePageMessage({ type: 'copyTable', format: 'tsv' }), { type: 'copyTable', format: 'tsv' });
    assert.deepEqual(parsePageMessage({ type: 'perLaunch', on: true }), { type: 'perLaunch', on: true });
  });

  it('exports: an SVG document or a PNG data URL', () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>';
    assert.deepEqual(parsePageMessage({ type: 'exported', format: 'svg', data: svg, requestId: 3 }), { type: 'exported', format: 'svg', data: svg, requestId: 3 });
    const png = 'data:image/png;base64,iVBORw0KGgo=';
    assert.deepEqual(parsePageMessage({ type: 'exported', format: 'png', data: png, requestId: 0 }), { type: 'exported', format: 'png', data: png, requestId: 0 });
  });
});

describe('panel messages: malformed messages are refused', () => {
  const bad: [string, unknown][] = [
    ['not an object', 'select'],
    ['null', null],
    ['an array', [{ type: 'select' }]],
    ['no type', { id: 'x' }],
    ['an unknown type', { type: 'eval', code: '1' }],
    ['a type that is not a string', { type: ['select'] }],
    ['select without reveal', { type: 'select', id: 'k' }],
    ['select with an empty id', { type: 'select', id: '', reveal: false }],
    ['select with a huge id', { type: 'select', id: 'x'.repeat(5000), reveal: false }],
    ['select with a numeric id', { type: 'select', id: 42, reveal: false }],
    ['a mode that does not exist', { type: 'mode', mode: 'everything' }],
    ['a GPU id with upper case and a path', { type: 'gpu', id: '../../etc/passwd' }],
    ['a GPU id that is not a string', { type: 'compare', id: { id: 'h100-sxm' } }],
    ['a precision that does not exist', { type: 'precisions', keys: ['tensor:fp4'] }],
    ['precisions that are not an array', { type: 'precisions', keys: 'tensor:bf16' }],
    ['too many precisions', { type: 'precisions', keys: Array(50).fill('vector:fp32') }],
    ['a sort column with punctuation', { type: 'sort', sort: { column: 'ai; drop', descending: false } }],
    ['a sort without a direction', { type: 'sort', sort: { column: 'ai' } }],
    ['a what-if on a prototype key', { type: 'whatIf', name: '__proto__', value: 1 }],
    ['a what-if on "constructor"', { type: 'whatIf', name: 'constructor', value: 1 }],
    ['a what-if name with spaces', { type: 'whatIf', name: 'BLOCK M', value: 1 }],
    ['a what-if value that is a string', { type: 'whatIf', name: 'K', value: '4096' }],
    ['a what-if value that is NaN', { type: 'whatIf', name: 'K', value: NaN }],
    ['a what-if value that is infinite', { type: 'whatIf', name: 'K', value: Infinity }],
    ['a what-if value beyond 1e18', { type: 'whatIf', name: 'K', value: 1e300 }],
    ['a dtype that does not exist', { type: 'whatIfDtype', name: 'a_ptr', dtype: 'fp128' }],
    ['a table format that does not exist', { type: 'copyTable', format: 'html' }],
    ['an SVG export that is HTML', { type: 'exported', format: 'svg', data: '<script>alert(1)</script>', requestId: 1 }],
    ['an SVG export cut short', { type: 'exported', format: 'svg', data: '<svg><rect/>', requestId: 1 }],
    ['a PNG export that is another data URL', { type: 'exported', format: 'png', data: 'data:text/html;base64,PHNjcmlwdD4=', requestId: 1 }],
    ['a PNG export that is not base64', { type: 'exported', format: 'png', data: 'data:image/png;base64,<svg onload=x>', requestId: 1 }],
    ['an export without a request id', { type: 'exported', format: 'svg', data: '<svg></svg>' }],
    ['an export with a negative request id', { type: 'exported', format: 'svg', data: '<svg></svg>', requestId: -1 }],
    ['an export larger than the limit', { type: 'exported', format: 'svg', data: `<svg>${'x'.repeat(MAX_EXPORT_CHARS)}</svg>`, requestId: 1 }],
    ['perLaunch that is not a boolean', { type: 'perLaunch', on: 'yes' }],
    ['a problem of an unknown kind', { type: 'problem', kind: 'fatal', message: 'x' }],
    ['ready without a width', { type: 'ready', theme: THEME }],
    ['ready with a negative width', { type: 'ready', theme: THEME, width: -5 }],
    ['a size that is not a number', { type: 'size', width: '800px' }],
  ];
  for (const [what, msg] of bad) it(what, () => assert.equal(parsePageMessage(msg), undefined));

  it('a theme with a colour that is not a colour, or a missing field', () => {
    for (const [key, value] of [
      ['background', 'url(javascript:alert(1))'],
      ['foreground', 'var(--vscode-foreground)'],
      ['memory', 'red; } body { display: none'],
      ['grid', ''],
      ['font', 'x</style><script>'],
      ['font', 42],
    ] as const) {
      assert.equal(parseTheme({ ...THEME, [key]: value }), undefined, `${key}: ${value}`);
      assert.equal(parsePageMessage({ type: 'theme', theme: { ...THEME, [key]: value } }), undefined);
    }
    const { l2: _dropped, ...partial } = THEME;
    assert.equal(parseTheme(partial), undefined);
  });
});

describe('panel state from the page (after a reload)', () => {
  it('keeps the valid parts and drops the rest', () => {
    const state = parsePanelState({
      mode: 'file',
      uri: 'file:///w/a.py',
      selectedId: 'a.py:8:k',
      gpu: 'l4',
      compare: 'NOT AN ID',
      precisions: ['tensor:bf16'],
      // JSON.parse makes "__proto__" an own key, as a message from the page would.
      whatIf: JSON.parse('{"kernelId":"a.py:8:k","set":{"BLOCK":64,"__proto__":1,"bad name":2,"K":"x"},"dtypes":{"a_ptr":"fp16","b_ptr":"fp99"}}'),
      sort: { column: 'ai', descending: true },
      extra: { anything: true },
    });
    assert.deepEqual(state, {
      mode: 'file',
      uri: 'file:///w/a.py',
      selectedId: 'a.py:8:k',
      gpu: 'l4',
      precisions: ['tensor:bf16'],
      whatIf: { kernelId: 'a.py:8:k', set: { BLOCK: 64 }, dtypes: { a_ptr: 'fp16' } },
      sort: { column: 'ai', descending: true },
    });
  });

  it('is no state at all without a mode', () => {
    for (const raw of [undefined, null, 'file', {}, { mode: 'all' }, [{ mode: 'file' }]]) assert.equal(parsePanelState(raw), undefined);
  });

  it('drops a URI without a scheme', () => {
    assert.deepEqual(parsePanelState({ mode: 'file', uri: '/etc/passwd' }), { mode: 'file' });
  });
});

describe('panel page: Content-Security-Policy', () => {
  const csp = contentSecurityPolicy('https://file+.vscode-resource.vscode-cdn.net', 'abc123');

  it('allows scripts only with the nonce and never eval', () => {
    assert.match(csp, /script-src 'nonce-abc123'(;|$)/);
    assert.ok(!csp.includes('unsafe-eval') && !csp.includes('unsafe-inline'));
    assert.ok(csp.startsWith("default-src 'none'"));
    assert.ok(!/connect-src|\bhttps?:\/\/(?!file\+)/.test(csp), 'nothing remote, no fetch');
  });

  it('the page loads the bundled script with the nonce and has no inline script or handler', () => {
    const html = pageHtml({ cspSource: 'https://x.vscode-cdn.net', nonce: 'n0nce', script: 'https://x/dist/webview.js', style: 'https://x/media/panel.css' });
    assert.match(html, /<script nonce="n0nce" src="https:\/\/x\/dist\/webview\.js"><\/script>/);
    assert.equal((html.match(/<script/g) ?? []).length, 1);
    assert.ok(!/\son[a-z]+=/i.test(html), 'no inline event handler');
    assert.ok(!/\sstyle=/i.test(html), 'no inline style');
    assert.match(html, /<table id="kernels">[\s\S]*<caption>/);
  });
});
