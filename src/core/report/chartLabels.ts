/**
 * Where the chart's labels go, in the chart's own pixels. The spec builder
 * knows the plot's size and its log scales, so it can lay the labels out
 * itself instead of leaving Vega to pile them up: every label gets a box
 * (width from the text's characters, height from the font size, placed and
 * rotated as Vega draws text), and labels are placed one after the other,
 * each at the cheapest of its candidate positions whose box stays inside
 * the plot and intersects no box placed before it. Crossing a line or
 * covering a dot only costs; a label with no free position is left off (the
 * spec builder says what it does then).
 */

export interface Point {
  x: number;
  y: number;
}

/** A text's box: four corners in order (possibly rotated). */
export type Quad = readonly [Point, Point, Point, Point];

export type Align = 'left' | 'center' | 'right';
export type Baseline = 'top' | 'middle' | 'bottom';

/**
 * Advance widths of DejaVu Sans for the characters 32 (space) … 126 (~), in
 * hundredths of an em, as measured by chromium's canvas. DejaVu Sans is the
 * widest of the usual UI sans-serif fonts (Arial, Liberation Sans, Segoe UI
 * and Helvetica are about 10 % narrower), so estimates err on the wide side.
 */
const WIDTHS = [
  32, 40, 46, 84, 64, 95, 78, 27, 39, 39, 50, 84, 32, 36, 32, 34, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 34, 34, 84, 84, 84, 53, 100, 68, 69, 70, 77, 63, 58, 77, 75,
  29, 29, 66, 56, 86, 75, 79, 60, 79, 69, 63, 61, 73, 68, 99, 69, 61, 69, 39, 34, 39, 84, 50, 50, 61, 63, 55, 63, 62, 35, 63, 63, 28, 28, 58, 28, 97, 63, 61, 63,
  63, 41, 52, 39, 63, 59, 82, 59, 59, 52, 64, 34, 64, 84,
];
/** A few non-ASCII characters labels use; anything else counts as a full em. */
const OTHER_WIDTHS: Record<string, number> = { '·': 32, '×': 84, 'µ': 64, '…': 100, '−': 84 };

/** The width of `text` in pixels at `fontSize` (an estimate that errs wide: see WIDTHS). */
export function textWidth(text: string, fontSize: number): number {
  let w = 0;
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    w += c >= 32 && c <= 126 ? WIDTHS[c - 32] : (OTHER_WIDTHS[ch] ?? 100);
  }
  return (w / 100) * fontSize;
}

export interface TextPlacement {
  /** Anchor in pixels (x right, y down from the plot's top-left corner). */
  x: number;
  y: number;
  align: Align;
  baseline: Baseline;
  /** Degrees, clockwise (Vega's convention); the text turns about its anchor. */
  angle: number;
  /** Offset along the text's own (rotated) axes, after the rotation, as Vega applies `dx`/`dy`. */
  dx: number;
  dy: number;
}

/**
 * The box Vega draws `width` × `fontSize` of text in: Vega's text bounds are
 * one font size tall, from the anchor down for `top`, centred for `middle`,
 * up for `bottom`.
 */
export function textQuad(p: TextPlacement, width: number, fontSize: number): Quad {
  const left = p.dx + (p.align === 'left' ? 0 : p.align === 'center' ? -width / 2 : -width);
  const top = p.dy + (p.baseline === 'top' ? 0 : p.baseline === 'middle' ? -fontSize / 2 : -fontSize);
  const a = (p.angle * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  const at = (u: number, v: number): Point => ({ x: p.x + u * cos - v * sin, y: p.y + u * sin + v * cos });
  return [at(left, top), at(left + width, top), at(left + width, top + fontSize), at(left, top + fontSize)];
}

/** The quad grown by `by` pixels on every side (its own axes). */
export function growQuad(q: Quad, by: number): Quad {
  const ux = q[1].x - q[0].x;
  const uy = q[1].y - q[0].y;
  const ul = Math.hypot(ux, uy) || 1;
  const vx = q[3].x - q[0].x;
  const vy = q[3].y - q[0].y;
  const vl = Math.hypot(vx, vy) || 1;
  const du = { x: (ux / ul) * by, y: (uy / ul) * by };
  const dv = { x: (vx / vl) * by, y: (vy / vl) * by };
  return [
    { x: q[0].x - du.x - dv.x, y: q[0].y - du.y - dv.y },
    { x: q[1].x + du.x - dv.x, y: q[1].y + du.y - dv.y },
    { x: q[2].x + du.x + dv.x, y: q[2].y + du.y + dv.y },
    { x: q[3].x - du.x + dv.x, y: q[3].y - du.y + dv.y },
  ];
}

function project(q: readonly Point[], ax: number, ay: number): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const p of q) {
    const d = p.x * ax + p.y * ay;
    if (d < lo) lo = d;
    if (d > hi) hi = d;
  }
  return [lo, hi];
}

/** Whether two convex polygons (quads, or a quad and a segment) overlap with positive area or cross (separating axes). */
function convexIntersect(a: readonly Point[], b: readonly Point[]): boolean {
  // Bounding boxes first: most pairs are far apart.
  const [ax0, ax1] = project(a, 1, 0);
  const [bx0, bx1] = project(b, 1, 0);
  if (ax1 <= bx0 + 1e-9 || bx1 <= ax0 + 1e-9) return false;
  const [ay0, ay1] = project(a, 0, 1);
  const [by0, by1] = project(b, 0, 1);
  if (ay1 <= by0 + 1e-9 || by1 <= ay0 + 1e-9) return false;
  for (const poly of [a, b]) {
    const n = poly.length;
    const edges = n === 2 ? 1 : n;
    for (let i = 0; i < edges; i++) {
      const p = poly[i];
      const q = poly[(i + 1) % n];
      // The edge's normal; a segment also needs its own direction as an axis.
      for (const [ax, ay] of n === 2 ? [[q.y - p.y, p.x - q.x], [q.x - p.x, q.y - p.y]] : [[q.y - p.y, p.x - q.x]]) {
        if (ax === 0 && ay === 0) continue;
        const [alo, ahi] = project(a, ax, ay);
        const [blo, bhi] = project(b, ax, ay);
        // Touching is not overlapping: a gap of zero separates.
        if (ahi <= blo + 1e-9 || bhi <= alo + 1e-9) return false;
      }
    }
  }
  return true;
}

/** Whether two boxes overlap (sharing an edge or a corner does not count). */
export function quadsIntersect(a: Quad, b: Quad): boolean {
  return convexIntersect(a, b);
}

/** Whether the segment from `p` to `q` passes through the box. */
export function segmentCrossesQuad(p: Point, q: Point, box: Quad): boolean {
  return convexIntersect([p, q], box);
}

/** Whether the box lies within the rectangle [0, width] × [0, height]. */
export function quadInside(q: Quad, width: number, height: number): boolean {
  return q.every((p) => p.x >= -1e-9 && p.x <= width + 1e-9 && p.y >= -1e-9 && p.y <= height + 1e-9);
}

export interface Candidate extends TextPlacement {
  /** How much worse than the label's best position (0): distance from where it belongs, an unusual side. */
  cost: number;
}

export interface LabelRequest {
  id: string;
  /** The label's texts, preferred first; each further one (shorter) costs VARIANT_COST more. */
  texts: string[];
  fontSize: number;
  /** What leaving the label off costs, against the other labels left off (a roof's label matters more than a region's). */
  weight: number;
  /** Candidate positions for a text of this width, in pixels. */
  candidates(width: number, text: string): Candidate[];
}

export interface Obstacles {
  /** Lines a label should not cross (roofs, slopes): the cost of crossing each. */
  segments: { from: Point; to: Point; cost: number }[];
  /** Marks a label should not cover (dots, ridge points): the cost of covering each. */
  boxes: { quad: Quad; cost: number }[];
}

export interface PlacedLabel extends TextPlacement {
  id: string;
  text: string;
  fontSize: number;
  /** The estimated box the text is drawn in. */
  quad: Quad;
}

/** Every box is grown by this many pixels before it is tested: two labels keep twice it apart, a label keeps it from the plot's edge. */
export const LABEL_GAP = 2;
/** The cost of a label's next shorter text. */
export const VARIANT_COST = 10;
/** A label closer than CROWD_GAP more pixels to another pays CROWD_COST. */
const CROWD_GAP = 5;
const CROWD_COST = 3;
/** What a box reserved for a label left off costs the others (see placeLabels): this, or a quarter of the owner's weight if more. */
const RESERVED_COST = 25;

/** The place a label left off would take on its own, and what using it costs another label. */
interface Reserved {
  owner: string;
  quad: Quad;
  cost: number;
}

interface Pass {
  placed: Map<string, PlacedLabel | undefined>;
  /** Weight of the labels left off, and the summed cost of the others. */
  missing: number;
  cost: number;
}

interface Option {
  text: string;
  c: Candidate;
  cost: number;
  quad: Quad;
  grown: Quad;
}

/** Every text's candidates that fit in the plot, cheapest first. */
function optionsOf(r: LabelRequest, width: number, height: number): Option[] {
  const all: Option[] = [];
  r.texts.forEach((text, i) => {
    const w = textWidth(text, r.fontSize);
    for (const c of r.candidates(w, text)) {
      const quad = textQuad(c, w, r.fontSize);
      const grown = growQuad(quad, LABEL_GAP);
      if (quadInside(grown, width, height)) all.push({ text, c, cost: c.cost + i * VARIANT_COST, quad, grown });
    }
  });
  return all.sort((a, b) => a.cost - b.cost);
}

/** The label's cheapest place among `taken` boxes (none: the plot to itself), or undefined. */
function cheapest(r: LabelRequest, options: Option[], obstacles: Obstacles, taken: Quad[], reserved: Reserved[]): { label: PlacedLabel; cost: number } | undefined {
  // What a place crosses only adds to its cost, so the search stops at the first candidate that
  // costs more than the best found.
  let best: PlacedLabel | undefined;
  let bestCost = Infinity;
  for (const { text, c, cost: base, quad, grown } of options) {
    if (base >= bestCost) break;
    if (taken.some((p) => quadsIntersect(grown, p))) continue;
    let cost = base;
    // Right next to another label, the two may read as one.
    const near = growQuad(quad, LABEL_GAP + CROWD_GAP);
    for (const p of taken) if (cost < bestCost && quadsIntersect(near, p)) cost += CROWD_COST;
    for (const s of obstacles.segments) if (cost < bestCost && segmentCrossesQuad(s.from, s.to, quad)) cost += s.cost;
    for (const b of obstacles.boxes) if (cost < bestCost && quadsIntersect(b.quad, quad)) cost += b.cost;
    for (const b of reserved) if (cost < bestCost && b.owner !== r.id && quadsIntersect(b.quad, grown)) cost += b.cost;
    if (cost < bestCost) {
      bestCost = cost;
      best = { id: r.id, text, fontSize: r.fontSize, x: c.x, y: c.y, align: c.align, baseline: c.baseline, angle: c.angle, dx: c.dx, dy: c.dy, quad };
    }
  }
  return best && { label: best, cost: bestCost };
}

function placeOnce(requests: LabelRequest[], options: Map<string, Option[]>, obstacles: Obstacles, reserved: Reserved[]): Pass {
  const taken: Quad[] = [];
  const pass: Pass = { placed: new Map(), missing: 0, cost: 0 };
  for (const r of requests) {
    const found = cheapest(r, options.get(r.id)!, obstacles, taken, reserved);
    pass.placed.set(r.id, found?.label);
    if (found) {
      taken.push(growQuad(found.label.quad, LABEL_GAP));
      pass.cost += found.cost;
    } else pass.missing += r.weight;
  }
  return pass;
}

/**
 * Places the labels in the order given (earlier ones get the better places):
 * each at its cheapest candidate whose box, grown by LABEL_GAP, stays inside
 * the plot and meets no box placed before; the cost adds what the box
 * crosses or covers. When some label finds no place, the place it would take
 * on its own is reserved (the others pay to use it) and the layout is run
 * again, up to three times (also with the labels left off placed first);
 * the pass leaving off the least weight wins.
 * Undefined for a label left off.
 */
export function placeLabels(requests: LabelRequest[], width: number, height: number, obstacles: Obstacles): Map<string, PlacedLabel | undefined> {
  const options = new Map(requests.map((r) => [r.id, optionsOf(r, width, height)]));
  const reserved: Reserved[] = [];
  let best = placeOnce(requests, options, obstacles, reserved);
  let last = best;
  for (let i = 0; i < 3 && last.missing > 0; i++) {
    for (const r of requests) {
      if (last.placed.get(r.id) || reserved.some((b) => b.owner === r.id)) continue;
      const alone = cheapest(r, options.get(r.id)!, obstacles, [], []);
      if (alone) reserved.push({ owner: r.id, quad: growQuad(alone.label.quad, LABEL_GAP), cost: RESERVED_COST });
    }
    const missing = requests.filter((r) => !last.placed.get(r.id));
    last = placeOnce(requests, options, obstacles, reserved);
    if (last.missing < best.missing || (last.missing === best.missing && last.cost < best.cost)) best = last;
    // The labels left off go first (a roof squeezed between two others places before its neighbours, which have room to move).
    const first = placeOnce([...missing, ...requests.filter((r) => !missing.includes(r))], options, obstacles, reserved);
    if (first.missing < best.missing || (first.missing === best.missing && first.cost < best.cost)) best = first;
  }
  return best.placed;
}

/** A log scale from `domain` onto `range` (pixels), and back. */
export class LogScale {
  private readonly l0: number;
  private readonly span: number;
  private readonly range: readonly [number, number];
  constructor(domain: readonly [number, number], range: readonly [number, number]) {
    this.l0 = Math.log10(domain[0]);
    this.span = Math.log10(domain[1]) - this.l0;
    this.range = range;
  }
  px(v: number): number {
    return this.range[0] + ((Math.log10(v) - this.l0) / this.span) * (this.range[1] - this.range[0]);
  }
  value(px: number): number {
    return Math.pow(10, this.l0 + ((px - this.range[0]) / (this.range[1] - this.range[0])) * this.span);
  }
}
