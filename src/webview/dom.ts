/**
 * The page's controls, what-if section, profile section and kernel table,
 * built with DOM calls from the extension's render model. Text always goes in
 * as text (never as HTML) and no element gets an inline style or handler
 * attribute, so nothing here needs more than the page's CSP allows.
 */
import type { Choice, PageMessage, PipelineViewModel, ProfileModel, RenderMessage, WhatIfControl, WhatIfModel } from '../shared/panelProtocol';
import { nextSort, sortRows, type SortState, type TableModel } from '../shared/table';

export type Post = (msg: PageMessage) => void;

type Child = Node | string | null | undefined | false;

/** An element with attributes (a `true` value sets an empty attribute, `false` none) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | boolean | undefined> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === true) el.setAttribute(name, '');
    else if (typeof value === 'string') el.setAttribute(name, value);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page lacks #${id}`);
  return el as T;
}

/** Rebuilds `parent`'s children, keeping the keyboard focus on the element with the same id. */
export function replaceKeepingFocus(parent: HTMLElement, ...children: Child[]): void {
  const focused = document.activeElement instanceof HTMLElement && parent.contains(document.activeElement) ? document.activeElement.id : '';
  parent.replaceChildren(...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false));
  if (focused) document.getElementById(focused)?.focus();
}

// ---------------------------------------------------------------------------
// Header controls
// ---------------------------------------------------------------------------

function options(select: HTMLSelectElement, choices: Choice[], value: string): void {
  select.replaceChildren(...choices.map((c) => h('option', { value: c.value, selected: c.value === value }, c.label)));
  select.value = value;
}

export function renderControls(m: RenderMessage): void {
  byId('title').textContent = m.title;
  const settingName = m.gpus.find((g) => g.value === m.settingGpu)?.label ?? m.settingGpu;
  options(byId<HTMLSelectElement>('gpu'), [{ value: '', label: `${settingName} (setting)` }, ...m.gpus], m.state.gpu ?? '');
  options(byId<HTMLSelectElement>('compare'), [{ value: '', label: 'no other GPU' }, ...m.gpus.filter((g) => g.value !== m.gpu)], m.state.compare ?? '');
  const fieldset = byId('precisions');
  const legend = fieldset.querySelector('legend');
  replaceKeepingFocus(
    fieldset,
    legend,
    ...m.precisions.map((p) => h('label', {}, h('input', { type: 'checkbox', id: `precision-${p.value.replace(':', '-')}`, value: p.value, checked: p.checked }), ` ${p.label}`)),
  );
  byId('mode').textContent = m.state.mode === 'workspace' ? 'Active file only' : 'Whole workspace';
  byId('import-profile').textContent = m.profile ? 'Import another profile…' : 'Import profile…';
  const empty = byId('empty');
  empty.hidden = !m.empty;
  empty.textContent = m.empty ?? '';
  byId('notices').replaceChildren(...m.notices.map((n) => h('li', {}, n)));
}

// ---------------------------------------------------------------------------
// What-if
// ---------------------------------------------------------------------------

function shown(v: WhatIfControl['value']): string {
  return v === null ? '?' : String(v);
}

function numberField(c: WhatIfControl, post: Post): HTMLElement {
  const input = h('input', { type: 'number', id: `whatif-${c.name}`, value: c.value === null ? '' : String(c.value), placeholder: 'unbound', 'aria-describedby': `whatif-${c.name}-source` });
  input.addEventListener('change', () => {
    const text = input.value.trim();
    const value = text === '' ? null : Number(text);
    if (value === null || Number.isFinite(value)) post({ type: 'whatIf', name: c.name, value });
  });
  return input;
}

function stepper(c: WhatIfControl, post: Post): HTMLElement {
  const v = c.value as number;
  const step = (up: boolean): void => post({ type: 'whatIf', name: c.name, value: up ? v * 2 : Math.max(1, Math.floor(v / 2)) });
  const down = h('button', { type: 'button', id: `whatif-${c.name}-down`, 'aria-label': `halve ${c.name}`, disabled: v <= 1 }, '÷2');
  const up = h('button', { type: 'button', id: `whatif-${c.name}-up`, 'aria-label': `double ${c.name}` }, '×2');
  down.addEventListener('click', () => step(false));
  up.addEventListener('click', () => step(true));
  return h('span', { class: 'stepper' }, down, h('output', { id: `whatif-${c.name}`, 'aria-live': 'polite' }, shown(c.value)), up);
}

function control(c: WhatIfControl, post: Post): HTMLElement {
  switch (c.kind) {
    case 'pow2':
      return typeof c.value === 'number' ? stepper(c, post) : numberField(c, post);
    case 'number':
      return numberField(c, post);
    case 'bool': {
      const box = h('input', { type: 'checkbox', id: `whatif-${c.name}`, checked: c.value === true });
      box.addEventListener('change', () => post({ type: 'whatIf', name: c.name, value: box.checked }));
      return box;
    }
    case 'dtype': {
      const select = h('select', { id: `whatif-${c.name}` }, ...(c.options ?? []).map((o) => h('option', { value: o, selected: o === c.value }, o)));
      select.addEventListener('change', () => post({ type: 'whatIfDtype', name: c.name, dtype: select.value === c.baseline ? null : (select.value as never) }));
      return select;
    }
  }
}

function controlRow(c: WhatIfControl, post: Post): HTMLElement {
  const label = h('label', { for: `whatif-${c.name}` }, h('code', {}, c.name), c.kind === 'dtype' ? ' element type' : '');
  const was = c.changed ? ` · was ${shown(c.baseline)}` : '';
  return h('div', { class: c.changed ? 'whatif-row changed' : 'whatif-row' }, label, control(c, post), h('small', { id: `whatif-${c.name}-source` }, `${c.source}${was}`));
}

export function renderWhatIf(w: WhatIfModel | null, post: Post): void {
  const body = byId('whatif-body');
  if (!w) {
    replaceKeepingFocus(body, h('p', { class: 'hint' }, 'Select a kernel (its dot or its row) to try other tile sizes, problem sizes and element types. Nothing here changes your settings or files.'));
    return;
  }
  const results = h(
    'table',
    { class: 'results' },
    h('caption', {}, 'Per unit, with these values'),
    h('tbody', {}, ...w.results.map((r) => h('tr', { class: r.value !== r.baseline ? 'changed' : undefined }, h('th', { scope: 'row' }, r.label), h('td', {}, r.formula ? h('code', {}, r.formula) : ''), h('td', { class: 'num' }, r.value), h('td', { class: 'was' }, r.value !== r.baseline ? `was ${r.baseline}` : '')))),
  );
  const reset = h('button', { type: 'button', id: 'whatif-reset', disabled: !w.changed }, 'Reset');
  reset.addEventListener('click', () => post({ type: 'whatIfReset' }));
  const copy = h('button', { type: 'button', id: 'whatif-copy-pragma', disabled: !w.pragma }, 'Copy bindings as pragma');
  copy.addEventListener('click', () => post({ type: 'copyPragma' }));
  replaceKeepingFocus(
    body,
    h('h3', {}, h('code', {}, w.kernelName)),
    h('div', { class: 'whatif-controls' }, ...w.controls.map((c) => controlRow(c, post))),
    results,
    h('div', { class: 'actions' }, reset, copy, w.pragma ? h('code', { id: 'whatif-pragma' }, w.pragma) : null),
  );
}

// ---------------------------------------------------------------------------
// Profile
// ---------------------------------------------------------------------------

export function renderProfile(p: ProfileModel | null, post: Post): void {
  const section = byId('profile');
  section.hidden = !p;
  if (!p) return;
  byId('profile-summary').textContent = `${p.name} (${p.format}): ${p.summary}.`;
  byId<HTMLInputElement>('per-launch').checked = p.perLaunch;
  byId('profile-ambiguous').replaceChildren(
    ...p.ambiguous.map((a) => {
      const choose = h('button', { type: 'button' }, 'Choose…');
      choose.addEventListener('click', () => post({ type: 'matchProfile', name: a.name }));
      return h('li', {}, h('code', {}, a.name), ` matches several kernels (${a.candidates.join(', ')}). `, choose);
    }),
  );
  byId('profile-problems').replaceChildren(...p.problems.map((x) => h('li', {}, x)));
}

// ---------------------------------------------------------------------------
// The pipeline view (its bar chart is drawn by main.ts)
// ---------------------------------------------------------------------------

/** Fills the pipeline section from its model, or hides it (null). */
export function renderPipeline(p: PipelineViewModel | null, post: Post): void {
  const section = byId('pipeline');
  section.hidden = !p;
  if (!p) return;
  byId('pipeline-title').textContent = `Pipeline ${p.name}: where the time goes`;
  const pick = byId('pipeline-pick');
  pick.hidden = p.choices.length < 2;
  options(byId<HTMLSelectElement>('pipeline-select'), p.choices, p.id);
  byId('pipeline-summary').textContent = p.summary;
  byId('pipeline-time').textContent = p.time;
  byId('pipeline-point').textContent = p.point;
  const fieldset = byId('pipeline-fusion');
  fieldset.hidden = p.fusion.length === 0;
  replaceKeepingFocus(
    fieldset,
    fieldset.querySelector('legend'),
    ...p.fusion.map((f) => {
      const id = `fuse-${f.from}`;
      const box = h('input', { type: 'checkbox', id, checked: f.checked, disabled: f.blocked !== undefined && !f.checked, 'aria-describedby': `${id}-detail` });
      box.addEventListener('change', () => post({ type: 'fuse', pipeline: p.id, from: f.from, on: box.checked }));
      return h('div', { class: f.blocked && !f.checked ? 'fuse blocked' : 'fuse' }, h('label', { for: id }, box, ' ', h('code', {}, f.label)), h('small', { id: `${id}-detail` }, ` ${f.detail}${f.blocked && !f.checked ? ` — ${f.blocked}` : ''}`));
    }),
  );
  const fused = byId('pipeline-fused');
  fused.hidden = !p.fused;
  fused.textContent = p.fused ?? '';
  const best = byId('pipeline-best');
  best.hidden = !p.best;
  best.textContent = p.best ?? '';
  const table = byId<HTMLTableElement>('pipeline-launches');
  replaceKeepingFocus(table.tHead!, h('tr', {}, ...p.launches.columns.map((c) => h('th', { scope: 'col', class: c.numeric ? 'num' : undefined, title: c.title }, c.label))));
  table.tBodies[0].replaceChildren(
    ...p.launches.rows.map((r) =>
      h(
        'tr',
        { 'data-kernel-id': r.kernelId || undefined },
        ...p.launches.columns.map((c, i) => {
          const cell = r.cells[c.key] ?? { text: '', sort: null };
          if (c.key === 'launch' && r.kernelId) {
            const name = h('button', { type: 'button', class: 'link', title: 'Select this kernel and show it in the editor' }, cell.text);
            name.addEventListener('click', () => post({ type: 'select', id: r.kernelId, reveal: true }));
            return h('td', { title: cell.title }, name);
          }
          return i === 0 ? h('th', { scope: 'row', class: 'num' }, cell.text) : h('td', { class: c.numeric ? 'num' : undefined, title: cell.title }, cell.text);
        }),
      ),
    ),
  );
  byId('pipeline-notes').replaceChildren(...p.notes.map((n) => h('li', {}, n)));
}

// ---------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------

export interface TableView {
  model: TableModel;
  sort: SortState | null;
  selectedId: string | undefined;
}

/** Draws the kernel table: a header button per column sorts it; a row selects its kernel, its name reveals it. */
export function renderTable(t: TableView, onSort: (s: SortState) => void, post: Post): void {
  const table = byId<HTMLTableElement>('kernels');
  const ariaSort = (key: string): string => (t.sort?.column === key ? (t.sort.descending ? 'descending' : 'ascending') : 'none');
  const head = h(
    'tr',
    {},
    ...t.model.columns.map((c) => {
      const button = h('button', { type: 'button', id: `sort-${c.key}`, title: c.title }, c.label, h('span', { class: 'sort-mark', 'aria-hidden': 'true' }, t.sort?.column === c.key ? (t.sort.descending ? ' ▼' : ' ▲') : ''));
      button.addEventListener('click', () => onSort(nextSort(t.sort, c.key)));
      return h('th', { scope: 'col', 'aria-sort': ariaSort(c.key), class: c.numeric ? 'num' : undefined }, button);
    }),
  );
  const rows = sortRows(t.model, t.sort).map((r) => {
    const selected = r.kernelId === t.selectedId;
    const tr = h('tr', { 'data-kernel-id': r.kernelId, 'aria-selected': selected ? 'true' : 'false', class: selected ? 'selected' : undefined });
    for (const [i, c] of t.model.columns.entries()) {
      const cell = r.cells[c.key] ?? { text: '', sort: null };
      if (i === 0) {
        const name = h('button', { type: 'button', class: 'link', title: 'Show in the editor' }, cell.text);
        name.addEventListener('click', (e) => {
          e.stopPropagation();
          post({ type: 'select', id: r.kernelId, reveal: true });
        });
        tr.append(h('th', { scope: 'row' }, name));
      } else tr.append(h('td', { class: c.numeric ? 'num' : undefined, title: cell.title }, cell.text));
    }
    tr.addEventListener('click', () => post({ type: 'select', id: r.kernelId, reveal: false }));
    return tr;
  });
  replaceKeepingFocus(table.tHead!, head);
  table.tBodies[0].replaceChildren(...rows);
}
