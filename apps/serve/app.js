// The TrackGen explorer page: builds its controls from GET /api/schema, asks
// POST /api/generate for a batch whenever a control changes, and draws the
// answer as a grid of SVG cells (click one for the large view).
'use strict';

const SVG_NS = 'http://www.w3.org/2000/svg';
const START_COLOUR = '#8e24aa';  // apart from the blue-to-red curvature scale

// Which fields each built-in generator reads (a plugin's own fields are found by
// its name as their prefix); the other groups are shared by every generator.
const GENERATOR_FIELDS = {
  bezier: ['min_num_points', 'max_num_points', 'num_points_per_segment', 'min_point_distance', 'rad', 'edgy',
           'scale', 'handle_clamp_frac', 'style_sampling', 'rad_range', 'scale_range', 'handle_clamp_frac_range'],
  hull: ['min_num_points', 'max_num_points', 'num_points_per_segment', 'min_point_distance', 'rad', 'edgy',
         'scale', 'handle_clamp_frac', 'hull_displacement'],
};
const GATE_GENERATOR_FIELDS = {
  bezier: ['min_num_points', 'max_num_points', 'min_point_distance', 'scale'],
  hull: ['min_num_points', 'max_num_points', 'min_point_distance', 'scale'],
};
const SHARED_GROUPS = {
  track: [
    ['Road', ['half_width', 'spacing', 'num_points', 'N_max', 'turning_tol', 'validity_border_check']],
    ['Relaxation', ['relax_enable', 'relax_iters', 'relax_margin', 'relax_tol', 'relax_accel', 'relax_smooth_passes']],
    ['Elevation', ['z_profile', 'z_base', 'z_min', 'z_max', 'z_max_step', 'z_noise_amplitude', 'z_noise_harmonics',
                   'z_control_points', 'z_valid_grade']],
  ],
  gates: [
    ['Gates', ['min_gates', 'max_gates', 'gate_radius', 'gate_solve_iters', 'gate_width', 'gate_ordering',
               'gate_align']],
    ['Elevation', ['z_profile', 'z_base', 'z_min', 'z_max', 'z_max_step', 'z_noise_amplitude', 'z_noise_harmonics',
                   'z_valid_grade']],
  ],
};
const FIXED_FIELDS = ['generator', 'num_envs'];  // controlled from the top of the panel

const state = {
  mode: 'track',
  schema: {},        // mode -> schema
  generators: {},    // mode -> names
  values: {},        // field -> value sent (only fields the user changed)
  result: null,      // last successful answer
  pending: null,     // AbortController of the request in flight
  timer: 0,
  renders: 0,
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function svgEl(tag, attrs = {}) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

async function getJson(url, options) {
  const res = await fetch(url, options);
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || `HTTP ${res.status}`);
  return body;
}

// ---- controls -------------------------------------------------------------

function fieldMap() {
  const m = new Map();
  for (const f of state.schema[state.mode].fields) m.set(f.name, f);
  return m;
}

function currentValue(f) {
  return Object.prototype.hasOwnProperty.call(state.values, f.name) ? state.values[f.name] : f.default;
}

function setValue(name, value) {
  state.values[name] = value;
  schedule();
}

// The slider range of a numeric field: its validation bounds where they are
// within ten times its default, otherwise a span of a few times its default
// (the number box beside it takes every valid value; its tooltip gives the bounds).
function sliderRange(f) {
  const integer = f.type === 'integer';
  const def = typeof f.default === 'number' ? f.default : 0;
  const lo = typeof f.minimum === 'number' ? f.minimum : Math.min(0, def);
  const span = Math.max(lo + 4 * Math.abs(def), lo + (integer ? 16 : 1));
  const hi = typeof f.maximum === 'number' && f.maximum - lo <= 10 * Math.max(Math.abs(def), integer ? 1 : 0.1)
      ? f.maximum : Math.min(span, f.maximum ?? Infinity);
  const step = integer ? 1 : (hi - lo) / 200;
  return {lo: f.exclusive_minimum ? lo + step : lo, hi: f.exclusive_maximum ? hi - step : hi, step};
}

function numberControl(f, value, onValue) {
  const {lo, hi, step} = sliderRange(f);
  const slider = el('input', {type: 'range', min: lo, max: hi, step, 'data-field': f.name});
  const box = el('input', {type: 'number', step: f.type === 'integer' ? 1 : 'any', 'data-field': f.name});
  if (typeof f.minimum === 'number') box.min = f.minimum;
  if (typeof f.maximum === 'number') box.max = f.maximum;
  const show = (v) => { slider.value = v; box.value = v; };
  show(value);
  const parse = (s) => (f.type === 'integer' ? parseInt(s, 10) : parseFloat(s));
  slider.addEventListener('input', () => { box.value = slider.value; onValue(parse(slider.value)); });
  box.addEventListener('change', () => {
    const v = parse(box.value);
    if (Number.isFinite(v)) { slider.value = v; onValue(v); }
  });
  return [slider, box];
}

function fieldControl(f) {
  const title = [f.name, f.doc, boundsText(f), ...(f.rules || [])].filter(Boolean).join('\n');
  const row = el('div', {class: 'field', 'data-name': f.name, title});  // the tooltip of the whole row
  row.append(el('span', {text: f.name}));
  const value = currentValue(f);
  if (f.type === 'boolean') {
    const box = el('input', {type: 'checkbox', 'data-field': f.name});
    box.checked = !!value;
    box.addEventListener('change', () => setValue(f.name, box.checked));
    row.append(box, el('span'));
  } else if (f.choices) {
    const sel = el('select', {'data-field': f.name});
    for (const c of f.choices) sel.append(el('option', {value: c, text: c}));
    sel.value = value;
    sel.addEventListener('change', () => setValue(f.name, sel.value));
    row.append(sel, el('span'));
  } else if (f.type === 'range') {
    const on = el('input', {type: 'checkbox', title: 'use a range (off: the constant field)'});
    const lo = el('input', {type: 'number', step: 'any'});
    const hi = el('input', {type: 'number', step: 'any'});
    const v = value || [f.minimum ?? 0, f.maximum ?? 1];
    lo.value = v[0]; hi.value = v[1];
    on.checked = value !== null && value !== undefined;
    const send = () => setValue(f.name, on.checked ? [parseFloat(lo.value), parseFloat(hi.value)] : null);
    for (const e of [on, lo, hi]) e.addEventListener('change', send);
    row.append(el('span', {class: 'pair'}, [on, lo]), hi);
  } else if (f.type === 'integer_list') {
    const text = el('input', {type: 'text', 'data-field': f.name});
    text.value = (value || []).join(', ');
    text.addEventListener('change', () => setValue(f.name, text.value.split(/[ ,]+/).filter(Boolean).map(Number)));
    row.append(text, el('span'));
  } else if (f.optional) {
    // An optional number: unticked sends null (the library's derived default).
    const on = el('input', {type: 'checkbox', title: 'set (off: derived default)'});
    on.checked = value !== null && value !== undefined;
    const lo = typeof f.minimum === 'number' ? f.minimum : 0;
    const fallback = {...f, default: f.type === 'integer' ? Math.max(lo, 1) : lo + 0.05};
    const [, box] = numberControl(fallback, value ?? fallback.default, (v) => on.checked && setValue(f.name, v));
    on.addEventListener('change', () => setValue(f.name, on.checked ? parseFloat(box.value) : null));
    row.append(on, box);
  } else {
    const [slider, box] = numberControl(f, value, (v) => setValue(f.name, v));
    row.append(slider, box);
  }
  return row;
}

function boundsText(f) {
  const parts = [];
  if (typeof f.minimum === 'number') parts.push((f.exclusive_minimum ? '> ' : '>= ') + f.minimum);
  if (typeof f.maximum === 'number') parts.push((f.exclusive_maximum ? '< ' : '<= ') + f.maximum);
  return parts.length ? 'valid: ' + parts.join(', ') : '';
}

// `keepOpen`: the groups open now stay open (off after a mode switch: the default groups open).
function buildControls(keepOpen = true) {
  const fields = fieldMap();
  const generator = currentGenerator();
  const table = state.mode === 'gates' ? GATE_GENERATOR_FIELDS : GENERATOR_FIELDS;
  const mine = [...fields.keys()].filter((n) => (table[generator] || []).includes(n) || n.startsWith(generator + '_'));
  const groups = [[`Generator: ${generator}`, mine], ...SHARED_GROUPS[state.mode]];
  const used = new Set(FIXED_FIELDS);
  const host = $('groups');
  const open = new Set(keepOpen ? [...host.querySelectorAll('details[open]')].map((d) => d.dataset.group) : []);
  host.replaceChildren();
  const addGroup = (title, names, key) => {
    const list = names.filter((n) => fields.has(n) && !used.has(n));
    if (!list.length) return;
    const d = el('details', {'data-group': key}, [el('summary', {text: title})]);
    for (const n of list) { used.add(n); d.append(fieldControl(fields.get(n))); }
    if (open.size ? open.has(key) : key !== 'more') d.open = true;
    host.append(d);
  };
  groups.forEach(([title, names], i) => addGroup(title, names, i === 0 ? 'generator' : title));
  addGroup('More fields', [...fields.keys()], 'more');
}

function currentGenerator() {
  return $('generator').value || 'bezier';
}

function fillGenerators() {
  const sel = $('generator');
  const keep = sel.value;
  sel.replaceChildren(...state.generators[state.mode].map((n) => el('option', {value: n, text: n})));
  if (state.generators[state.mode].includes(keep)) sel.value = keep;
  else if (state.generators[state.mode].includes('bezier')) sel.value = 'bezier';
}

function requestBody() {
  const body = {...state.values, mode: state.mode, generator: currentGenerator(),
                num_envs: parseInt($('envs').value, 10), seed: parseInt($('seed').value, 10) || 0};
  if (state.mode === 'track' && $('checkpoints').checked) {
    body.checkpoint_spacing = parseFloat($('checkpoint-spacing').value);
  }
  return body;
}

// ---- generation -----------------------------------------------------------

function schedule() {
  clearTimeout(state.timer);
  state.timer = setTimeout(generate, 60);
}

async function generate() {
  if (state.pending) state.pending.abort();
  const pending = new AbortController();
  state.pending = pending;
  document.body.dataset.state = 'loading';
  const t0 = performance.now();
  try {
    const res = await fetch('/api/generate', {method: 'POST', body: JSON.stringify(requestBody()),
                                              headers: {'Content-Type': 'application/json'},
                                              signal: pending.signal});
    const answer = await res.json();
    if (!res.ok) throw new Error(answer.error || `HTTP ${res.status}`);
    answer.round_trip_ms = performance.now() - t0;
    state.result = answer;
    showError(null);
    const t1 = performance.now();
    render();
    document.body.dataset.renderMs = (performance.now() - t1).toFixed(1);
    document.body.dataset.state = 'ready';
  } catch (e) {
    if (e.name === 'AbortError') return;
    showError(e.message);
    document.body.dataset.state = 'error';
  } finally {
    if (state.pending === pending) state.pending = null;
  }
}

function showError(message) {
  const box = $('error');
  box.hidden = !message;
  box.textContent = message || '';
  for (const row of document.querySelectorAll('.field.bad')) row.classList.remove('bad');
  if (!message) return;
  // ConfigError messages name the field: "TrackGenConfig.half_width: ..." or "num_envs: ..."
  const m = /(?:Config\.)?([A-Za-z_][A-Za-z0-9_]*):/.exec(message);
  const row = m && document.querySelector(`.field[data-name="${m[1]}"]`);
  if (row) row.classList.add('bad');
}

// ---- drawing --------------------------------------------------------------

const isPoint = (p) => p && Number.isFinite(p[0]) && Number.isFinite(p[1]);

// A transform fitting the points' bounding box into w x h (y up).
function fit(pointSets, w, h, pad) {
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const pts of pointSets) {
    for (const p of pts) {
      if (!isPoint(p)) continue;
      x0 = Math.min(x0, p[0]); x1 = Math.max(x1, p[0]); y0 = Math.min(y0, p[1]); y1 = Math.max(y1, p[1]);
    }
  }
  if (!(x1 >= x0)) return null;
  const s = Math.min((w - 2 * pad) / Math.max(x1 - x0, 1e-9), (h - 2 * pad) / Math.max(y1 - y0, 1e-9));
  const cx = w / 2 - s * (x0 + x1) / 2, cy = h / 2 + s * (y0 + y1) / 2;
  return {x: (p) => cx + s * p[0], y: (p) => cy - s * p[1], s};
}

function pointsAttr(pts, T) {
  return pts.filter(isPoint).map((p) => `${T.x(p).toFixed(1)},${T.y(p).toFixed(1)}`).join(' ');
}

// Unsigned discrete curvature of a closed polyline at each point (turn angle / mean edge).
function curvature(pts) {
  const n = pts.length, k = new Array(n).fill(0);
  for (let i = 0; i < n; ++i) {
    const a = pts[(i + n - 1) % n], b = pts[i], c = pts[(i + 1) % n];
    const ux = b[0] - a[0], uy = b[1] - a[1], vx = c[0] - b[0], vy = c[1] - b[1];
    const lu = Math.hypot(ux, uy), lv = Math.hypot(vx, vy);
    if (lu < 1e-12 || lv < 1e-12) continue;
    k[i] = Math.abs(Math.atan2(ux * vy - uy * vx, ux * vx + uy * vy)) / (0.5 * (lu + lv));
  }
  return k;
}

function startMarker(g, p, dir, T, len) {
  const d = Math.hypot(dir[0], dir[1]) || 1;
  g.append(svgEl('circle', {cx: T.x(p), cy: T.y(p), r: Math.max(2.5, len / 5), fill: START_COLOUR}));
  g.append(svgEl('line', {x1: T.x(p), y1: T.y(p), x2: T.x(p) + len * dir[0] / d, y2: T.y(p) - len * dir[1] / d,
                          stroke: START_COLOUR, 'stroke-width': Math.max(2, len / 7), 'stroke-linecap': 'round'}));
}

function drawTrack(t, w, h, large, checkpoints) {
  const svg = svgEl('svg', {viewBox: `0 0 ${w} ${h}`, width: w, height: h, class: 'track'});
  const T = fit([t.outer, t.inner], w, h, large ? 24 : 8);
  if (!T || t.count < 2) return svg;
  const road = t.valid ? '#222' : '#c33';
  if (large) {
    // the road surface between the borders
    svg.append(svgEl('path', {d: `M${pointsAttr(t.outer, T)}Z M${pointsAttr(t.inner, T)}Z`, fill: '#eceff2',
                              'fill-rule': 'evenodd', stroke: 'none'}));
  }
  for (const border of [t.outer, t.inner]) {
    svg.append(svgEl('polygon', {points: pointsAttr(border, T), fill: 'none', stroke: road,
                                 'stroke-width': large ? 1.5 : 1}));
  }
  const c = t.center;
  if (large) {
    const k = curvature(c);
    const sorted = [...k].sort((a, b) => a - b);
    const top = sorted[Math.floor(0.95 * (sorted.length - 1))] || 1;
    for (let i = 0; i < c.length; ++i) {
      const a = c[i], b = c[(i + 1) % c.length];
      if (!isPoint(a) || !isPoint(b)) continue;
      const hue = 220 - 220 * Math.min(1, k[i] / top);
      svg.append(svgEl('line', {x1: T.x(a), y1: T.y(a), x2: T.x(b), y2: T.y(b), stroke: `hsl(${hue},80%,45%)`,
                                'stroke-width': 3, 'stroke-linecap': 'round'}));
    }
    if (checkpoints) {
      checkpoints.left.forEach((l, i) => {
        const r = checkpoints.right[i];
        svg.append(svgEl('line', {x1: T.x(l), y1: T.y(l), x2: T.x(r), y2: T.y(r), stroke: '#e90',
                                  'stroke-width': 2.5, class: 'checkpoint'}));
        const p = checkpoints.position[i];
        const label = svgEl('text', {x: T.x(p) + 4, y: T.y(p) - 4, 'font-size': 10, fill: '#b60'});
        label.textContent = i;
        svg.append(label);
      });
    }
  } else {
    svg.append(svgEl('polyline', {points: pointsAttr(c, T), fill: 'none', stroke: '#9ab', 'stroke-width': 0.6,
                                  'stroke-dasharray': '2 2'}));
  }
  if (isPoint(c[0]) && isPoint(c[1])) {
    startMarker(svg, c[0], [c[1][0] - c[0][0], c[1][1] - c[0][1]], T, large ? 26 : 12);
  }
  return svg;
}

// The closed Catmull-Rom line through the gate centres (8 samples per gate).
function courseLine(pos) {
  const n = pos.length, out = [];
  if (n < 3) return out;
  const P = (i) => pos[(i + n) % n];
  for (let i = 0; i < n; ++i) {
    const [p0, p1, p2, p3] = [P(i - 1), P(i), P(i + 1), P(i + 2)];
    for (let s = 0; s < 8; ++s) {
      const t = s / 8, t2 = t * t, t3 = t2 * t;
      const f = (j) => 0.5 * (2 * p1[j] + (-p0[j] + p2[j]) * t + (2 * p0[j] - 5 * p1[j] + 4 * p2[j] - p3[j]) * t2 +
                              (-p0[j] + 3 * p1[j] - 3 * p2[j] + p3[j]) * t3);
      out.push([f(0), f(1), f(2)]);
    }
  }
  return out;
}

function drawGates(g, w, h, large) {
  const svg = svgEl('svg', {viewBox: `0 0 ${w} ${h}`, width: w, height: h, class: 'track'});
  const T = fit([g.position, g.left, g.right], w, h, large ? 24 : 10);
  if (!T) return svg;
  const line = courseLine(g.position);
  svg.append(svgEl('polygon', {points: pointsAttr(line, T), fill: 'none', stroke: g.valid ? '#89a' : '#c33',
                               'stroke-width': large ? 1.5 : 1}));
  g.position.forEach((p, i) => {
    const l = g.left[i], r = g.right[i], f = g.forward[i];
    const colour = i === 0 ? START_COLOUR : g.valid ? '#222' : '#c33';
    svg.append(svgEl('line', {x1: T.x(l), y1: T.y(l), x2: T.x(r), y2: T.y(r), stroke: colour,
                              'stroke-width': large ? 3 : 2, class: 'gate'}));
    const len = large ? 14 : 6, d = Math.hypot(f[0], f[1]) || 1;
    svg.append(svgEl('line', {x1: T.x(p), y1: T.y(p), x2: T.x(p) + len * f[0] / d, y2: T.y(p) - len * f[1] / d,
                              stroke: colour, 'stroke-width': 1}));
  });
  return svg;
}

// z along the track (or per gate), when it is not flat.
function elevationStrip(pts, w, h) {
  const z = pts.filter(isPoint).map((p) => p[2]);
  if (z.length < 2) return null;
  const lo = Math.min(...z), hi = Math.max(...z);
  if (!(hi - lo > 1e-6)) return null;
  const svg = svgEl('svg', {viewBox: `0 0 ${w} ${h}`, width: w, height: h, class: 'elevation'});
  svg.append(svgEl('rect', {x: 0, y: 0, width: w, height: h, fill: '#f4f6f8'}));
  const pts2 = z.map((v, i) => `${(40 + (w - 50) * i / (z.length - 1)).toFixed(1)},` +
                              `${(h - 8 - (h - 16) * (v - lo) / (hi - lo)).toFixed(1)}`);
  svg.append(svgEl('polyline', {points: pts2.join(' '), fill: 'none', stroke: '#3a7bd5', 'stroke-width': 1.5}));
  for (const [v, y] of [[hi, 12], [lo, h - 4]]) {
    const t = svgEl('text', {x: 2, y, 'font-size': 10, fill: '#555'});
    t.textContent = `z ${v.toFixed(3)}`;
    svg.append(t);
  }
  return svg;
}

// Why a track is invalid: tracks.json's `invalid_reason` (a list of names), when the library reports one.
function reasonText(t) {
  const r = t.invalid_reason;
  return Array.isArray(r) ? r.join(', ') : r ? String(r) : '';
}

function items() {
  const r = state.result;
  return r.mode === 'gates' ? r.gates : r.tracks;
}

function render() {
  const r = state.result;
  state.renders += 1;
  document.body.dataset.renders = state.renders;
  $('backend').textContent = `backend ${r.backend}`;
  renderMetrics(r);
  const cells = items().map((t, i) => {
    const cell = el('div', {class: 'cell' + (t.valid ? '' : ' invalid'), 'data-env': t.env});
    cell.append(r.mode === 'gates' ? drawGates(t, 170, 170, false) : drawTrack(t, 170, 170, false));
    const extra = r.mode === 'gates' ? `${t.count} gates` : `L ${t.length.toFixed(2)}`;
    cell.append(el('div', {class: 'label'}, [el('span', {text: `#${t.env} seed ${t.seed}`}),
                                             el('span', {text: t.valid ? extra : 'invalid'})]));
    if (!t.valid && reasonText(t)) cell.append(el('div', {class: 'reason', text: reasonText(t)}));
    cell.addEventListener('click', () => showDetail(i));
    return cell;
  });
  $('grid').replaceChildren(...cells);
  if (!$('detail').hidden && state.detail !== undefined && state.detail < cells.length) showDetail(state.detail);
}

function renderMetrics(r) {
  const m = r.metrics, t = r.timing_ms;
  const fmt = (v, d = 3) => (Number.isFinite(v) ? v.toFixed(d) : '–');
  const entries = r.mode === 'gates'
      ? [['yield', fmt(m.yield), `${m.num_valid} / ${m.num_envs} valid`], ['mean gates', fmt(m.mean_count, 1)],
         ['closest gates', fmt(m.min_centre_distance, 4)]]
      : [['yield', fmt(m.yield), `${m.num_valid} / ${m.num_envs} valid`],
         ['compactness', fmt(m.mean_compactness), `median ${fmt(m.compactness_p50)}`],
         ['mean length', fmt(m.mean_length)], ['chicanes', fmt(m.mean_chicanes, 2)],
         ['straight', fmt(m.straight_frac, 2)]];
  entries.push(['generate', `${fmt(t.generate, 1)} ms`, `server ${fmt(t.server, 1)} ms, round trip ${
                  fmt(r.round_trip_ms, 1)} ms`]);
  $('metrics').replaceChildren(...entries.map(([k, v, note]) => el('div', {'data-key': k, title: note || ''}, [
    el('span', {text: k}), el('b', {text: v}), ...(note ? [el('span', {text: ` (${note})`})] : [])])));
}

function showDetail(i) {
  const r = state.result, t = items()[i];
  state.detail = i;
  const body = $('detail-body');
  let title = `${r.mode === 'gates' ? 'Gate course' : 'Track'} #${t.env}, seed ${t.seed}: `;
  if (r.mode === 'gates') {
    title += `${t.count} gates, ${t.valid ? 'valid' : 'invalid'}`;
    const strip = elevationStrip(t.position, 940, 110);
    body.replaceChildren(drawGates(t, 940, 600, true), ...(strip ? [strip] : []));
  } else {
    title += `length ${t.length.toFixed(3)}, ${t.count} points, ${t.valid ? 'valid' : 'invalid'}`;
    if (!t.valid && reasonText(t)) title += ` (${reasonText(t)})`;
    const cps = r.checkpoints ? r.checkpoints[i] : null;
    if (cps) title += `, ${cps.count} checkpoints`;
    const strip = elevationStrip(t.center, 940, 110);
    body.replaceChildren(drawTrack(t, 940, 600, true, cps), ...(strip ? [strip] : []));
  }
  $('detail-title').textContent = title;
  $('detail').hidden = false;
}

function hideDetail() {
  $('detail').hidden = true;
}

// ---- downloads ------------------------------------------------------------

function download(name, data) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 1) + '\n'], {type: 'application/json'}));
  const a = el('a', {href: url, download: name});
  document.body.append(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}

// ---- start ----------------------------------------------------------------

async function loadMode(mode) {
  state.mode = mode;
  state.values = {};
  if (!state.schema[mode]) {
    const q = mode === 'gates' ? '?mode=gates' : '';
    [state.schema[mode], state.generators[mode]] =
        await Promise.all([getJson('/api/schema' + q), getJson('/api/generators' + q)]);
  }
  const limits = state.schema[mode].limits || {};
  if (limits.max_envs) $('envs').max = limits.max_envs;
  $('checkpoints-row').hidden = mode !== 'track';
  fillGenerators();
  buildControls(false);
  schedule();
}

function init() {
  $('generator').addEventListener('change', () => { buildControls(); schedule(); });
  $('seed').addEventListener('change', schedule);
  $('reseed').addEventListener('click', () => { $('seed').value = (parseInt($('seed').value, 10) || 0) + 1; schedule(); });
  $('envs').addEventListener('input', () => { $('envs-out').textContent = $('envs').value; schedule(); });
  $('checkpoints').addEventListener('change', schedule);
  $('checkpoint-spacing').addEventListener('change', schedule);
  for (const radio of document.querySelectorAll('input[name=mode]')) {
    radio.addEventListener('change', () => radio.checked && loadMode(radio.value));
  }
  $('reset').addEventListener('click', () => { state.values = {}; buildControls(); schedule(); });
  $('download-config').addEventListener('click', () => {
    if (state.result) download(state.mode === 'gates' ? 'gate-config.json' : 'config.json', state.result.config);
  });
  $('download-tracks').addEventListener('click', () => {
    if (!state.result) return;
    const {config, backend, tracks, gates} = state.result;
    download(state.mode === 'gates' ? 'gates.json' : 'tracks.json',
             state.mode === 'gates' ? {config, backend, gates} : {config, backend, tracks});
  });
  $('detail-close').addEventListener('click', hideDetail);
  $('detail').addEventListener('click', (e) => { if (e.target === $('detail')) hideDetail(); });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') hideDetail(); });
  loadMode('track').catch((e) => { showError(e.message); document.body.dataset.state = 'error'; });
}

init();
