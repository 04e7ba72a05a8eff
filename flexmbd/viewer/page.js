// flexmbd viewer: draws a run written by flexmbd.viewer.page (data in #flexmbd-data).
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/OrbitControls.js';

const D = JSON.parse(document.getElementById('flexmbd-data').textContent);

function f32(b64) {
  const bin = atob(b64);
  const u = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
  return new Float32Array(u.buffer);
}

function f64(b64) {
  const bin = atob(b64);
  const u = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
  return new Float64Array(u.buffer);
}
let T = f64(D.t);
let NF = T.length;
const NB = D.nb, NL = D.nl, NM = D.nm;
let POSE = f32(D.pose);        // NF × NB × 7: x y z qx qy qz qw
let LINES = f32(D.lines);      // NF × NL × 6
let MARK = f32(D.markers);     // NF × NM × 3
const VIS = D.visuals;
const scale = VIS.scale || 1;

// ------------------------------------------------------------------ scene
const view = document.getElementById('view');
// many bodies: fewer triangles per instance and no multisampling (software WebGL stays usable)
const NPRIM = VIS.bodies.reduce((n, p) => n + p.length, 0) + VIS.beams.reduce((n, b) => n + 2 * b.nodes.length, 0);
const LOW = NPRIM > 400;
const renderer = new THREE.WebGLRenderer({ antialias: !LOW, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio || 1);
view.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xf4f6f8);
const up = new THREE.Vector3(...VIS.ground.normal);
const camera = new THREE.PerspectiveCamera(40, 1, scale * 1e-3, scale * 1e3);
camera.up.copy(up);
const controls = new OrbitControls(camera, renderer.domElement);
scene.add(new THREE.HemisphereLight(0xffffff, 0x667788, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 1.8);
scene.add(sun);

const mat = () => LOW ? new THREE.MeshLambertMaterial({ color: 0xffffff })
                      : new THREE.MeshStandardMaterial({ color: 0xffffff, roughness: 0.55, metalness: 0.1 });
const geoms = {
  box: new THREE.BoxGeometry(1, 1, 1),
  cylinder: new THREE.CylinderGeometry(1, 1, 1, LOW ? 6 : 24, 1, LOW).rotateX(Math.PI / 2),   // axis z
  sphere: new THREE.SphereGeometry(1, LOW ? 6 : 20, LOW ? 4 : 14),
};

// every drawn instance: [kind, body (-1 fixed), local matrix, colour]
const inst = { box: [], cylinder: [], sphere: [] };
const meshes = [];
function localMatrix(R, p, sx, sy, sz) {
  const m = new THREE.Matrix4();
  m.set(R[0][0], R[0][1], R[0][2], p[0], R[1][0], R[1][1], R[1][2], p[1], R[2][0], R[2][1], R[2][2], p[2], 0, 0, 0, 1);
  return m.multiply(new THREE.Matrix4().makeScale(sx, sy, sz));
}
VIS.bodies.forEach((prims, b) => {
  for (const pr of prims) {
    const c = new THREE.Color(pr.color || '#888888');
    if (pr.type === 'box') inst.box.push([b, localMatrix(pr.R, pr.p, ...pr.size), c]);
    else if (pr.type === 'cylinder') inst.cylinder.push([b, localMatrix(pr.R, pr.p, pr.radius, pr.radius, pr.length), c]);
    else if (pr.type === 'sphere') inst.sphere.push([b, localMatrix(pr.R, pr.p, pr.radius, pr.radius, pr.radius), c]);
    else if (pr.type === 'capsule') {
      inst.cylinder.push([b, localMatrix(pr.R, pr.p, pr.radius, pr.radius, pr.length), c]);
      if (!LOW) for (const s of [-0.5, 0.5]) {
        const q = [0, 1, 2].map(i => pr.p[i] + s * pr.length * pr.R[i][2]);
        inst.sphere.push([b, localMatrix(pr.R, q, pr.radius, pr.radius, pr.radius), c]);
      }
    } else if (pr.type === 'mesh') {
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.Float32BufferAttribute(pr.vertices, 3));
      g.setIndex(pr.faces);
      g.computeVertexNormals();
      const m = new THREE.Mesh(g, new THREE.MeshStandardMaterial({ color: c, roughness: 0.55 }));
      m.matrixAutoUpdate = false;
      scene.add(m);
      meshes.push([b, localMatrix(pr.R, pr.p, 1, 1, 1), m]);
    }
  }
});
// joint glyphs follow their host body's frame; rails are fixed guides
const jr = VIS.joint_radius || 0.02 * scale;
const rails = [];
VIS.markers.forEach((mk, i) => {
  const host = D.marker_bodies[i];
  const c = new THREE.Color('#333333');
  if (mk.glyph === 'hinge' && mk.axis) {
    const z = new THREE.Vector3(...mk.axis).normalize();
    const q = new THREE.Quaternion().setFromUnitVectors(new THREE.Vector3(0, 0, 1), z);
    const m = new THREE.Matrix4().compose(new THREE.Vector3(...D.marker_points[i]), q, new THREE.Vector3(jr, jr, 4 * jr));
    inst.cylinder.push([host, m, c, 'joint']);
  } else if (mk.glyph === 'rail' && mk.axis) {
    rails.push(i);
    inst.sphere.push([host, localMatrix([[1, 0, 0], [0, 1, 0], [0, 0, 1]], D.marker_points[i], jr, jr, jr), c, 'joint']);
  } else {
    inst.sphere.push([host, localMatrix([[1, 0, 0], [0, 1, 0], [0, 0, 1]], D.marker_points[i], jr, jr, jr), c, 'joint']);
  }
});
const instanced = {};
for (const k of Object.keys(inst)) {
  const n = inst[k].length;
  const m = new THREE.InstancedMesh(geoms[k], mat(), Math.max(n, 1));
  m.count = n;
  m.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
  inst[k].forEach((it, j) => m.setColorAt(j, it[2]));
  if (n && m.instanceColor) m.instanceColor.needsUpdate = true;
  m.frustumCulled = false;
  scene.add(m);
  instanced[k] = m;
}
// beams: a cylinder per segment and a sphere per node (a swept round section)
const beamSeg = [], beamNode = [];
const beamHidden = new Uint8Array(VIS.beams.length);
VIS.beams.forEach((bm, ib) => {
  const c = new THREE.Color(bm.color);
  for (let k = 0; k + 1 < bm.nodes.length; k++) beamSeg.push([bm.nodes[k], bm.nodes[k + 1], bm.radius, c, ib]);
  for (const n of bm.nodes) beamNode.push([n, bm.radius, c, ib]);
});
// lines: coils, rods and tubes between their two points
// (the axis lines of a modal beam, "sweep": its section along them, a box for a rectangle section)
const lineRods = [], lineBoxes = [], coils = [];
const lineBody = ln => (ln.body === undefined ? -1 : ln.body);
VIS.lines.forEach((ln, i) => {
  if (ln.style === 'coil') coils.push([i, ln.radius]);
  else if (ln.style !== 'beam' && ln.box) lineBoxes.push([i, ln.box, new THREE.Color(ln.color), lineBody(ln)]);
  else if (ln.style !== 'beam') lineRods.push([i, ln.sweep ? ln.radius : (ln.style === 'tube' ? 3 * ln.radius : ln.radius),
                                              new THREE.Color(ln.color || (ln.style === 'tube' ? '#3b6ea5' : '#555555')),
                                              lineBody(ln)]);
});
function instancedOf(geom, list, colourOf) {
  const m = new THREE.InstancedMesh(geom, mat(), Math.max(list.length, 1));
  m.count = list.length;
  m.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
  list.forEach((it, j) => m.setColorAt(j, colourOf(it)));
  if (list.length && m.instanceColor) m.instanceColor.needsUpdate = true;
  m.frustumCulled = false;
  scene.add(m);
  return m;
}
const segMesh = instancedOf(geoms.cylinder, beamSeg.concat(lineRods.map(r => [null, null, r[1], r[2]])), it => it[3]);
const nodeMesh = instancedOf(geoms.sphere, beamNode, it => it[2]);
const boxSegMesh = instancedOf(geoms.box, lineBoxes, it => it[2]);
const TURNS = 10, PER = 12, NCOIL = TURNS * PER;
const coilGeom = new THREE.BufferGeometry();
coilGeom.setAttribute('position', new THREE.Float32BufferAttribute(new Float32Array(Math.max(coils.length, 1) * NCOIL * 2 * 3), 3));
const coilLines = new THREE.LineSegments(coilGeom, new THREE.LineBasicMaterial({ color: 0xc0392b }));
coilLines.frustumCulled = false;
scene.add(coilLines);
// ground: a grid normal to "up" below the model
const bbox = new THREE.Box3();
for (let f = 0; f < NF; f += Math.max(1, Math.floor(NF / 50))) for (let b = 0; b < NB; b++) {
  const o = (f * NB + b) * 7;
  bbox.expandByPoint(new THREE.Vector3(POSE[o], POSE[o + 1], POSE[o + 2]));
}
for (let i = 0; i < NM; i++) bbox.expandByPoint(new THREE.Vector3(MARK[3 * i], MARK[3 * i + 1], MARK[3 * i + 2]));
for (let f = 0; f < NF; f += Math.max(1, Math.floor(NF / 50))) for (let i = 0; i < 2 * NL; i++) {
  const o = f * NL * 6 + 3 * i;
  bbox.expandByPoint(new THREE.Vector3(LINES[o], LINES[o + 1], LINES[o + 2]));
}
if (bbox.isEmpty()) bbox.expandByPoint(new THREE.Vector3());
const center = bbox.getCenter(new THREE.Vector3());
const size = Math.max(bbox.getSize(new THREE.Vector3()).length(), scale, 1e-3);
const grid = new THREE.GridHelper(2 * size, 20, 0x999999, 0xcccccc);
grid.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), up);
grid.position.copy(center).addScaledVector(up, VIS.ground.level - center.dot(up));
scene.add(grid);
// rails: fixed guides along the travel of their marker
const railMesh = instancedOf(geoms.box, rails, () => new THREE.Color('#7f8c8d'));
{
  const tmp = new THREE.Matrix4();
  rails.forEach((i, j) => {
    const host = D.marker_bodies[i];
    const q0 = quat(0, host);
    const ax = new THREE.Vector3(...VIS.markers[i].axis).applyQuaternion(q0).normalize();
    let lo = Infinity, hi = -Infinity;
    const p0 = new THREE.Vector3(MARK[3 * i], MARK[3 * i + 1], MARK[3 * i + 2]);
    for (let f = 0; f < NF; f++) {
      const s = new THREE.Vector3(MARK[(f * NM + i) * 3], MARK[(f * NM + i) * 3 + 1], MARK[(f * NM + i) * 3 + 2]).sub(p0).dot(ax);
      lo = Math.min(lo, s); hi = Math.max(hi, s);
    }
    const pad = 0.15 * scale, len = hi - lo + 2 * pad;
    const mid = p0.clone().addScaledVector(ax, 0.5 * (lo + hi));
    const side = new THREE.Vector3().crossVectors(ax, up);
    const under = side.lengthSq() > 1e-12 ? 0.8 * jr * 3 : 0;
    mid.addScaledVector(up, -under - 0.04 * scale);
    tmp.compose(mid, new THREE.Quaternion().setFromUnitVectors(new THREE.Vector3(1, 0, 0), ax),
                new THREE.Vector3(len, 0.12 * scale, 0.03 * scale));
    railMesh.setMatrixAt(j, tmp);
  });
  railMesh.instanceMatrix.needsUpdate = true;
}

function quat(f, b) {
  const o = (f * NB + b) * 7;
  return new THREE.Quaternion(POSE[o + 3], POSE[o + 4], POSE[o + 5], POSE[o + 6]);
}

// ------------------------------------------------------------------ state and drawing
const hidden = new Uint8Array(NB);
const bodyMatrix = Array.from({ length: NB }, () => new THREE.Matrix4());
const ZERO = new THREE.Matrix4().makeScale(0, 0, 0);
let frame = 0;
const _m = new THREE.Matrix4(), _p = new THREE.Vector3(), _q = new THREE.Quaternion(), _s = new THREE.Vector3(1, 1, 1);
const _a = new THREE.Vector3(), _b = new THREE.Vector3(), _d = new THREE.Vector3(), Z = new THREE.Vector3(0, 0, 1);

function segment(mesh, j, a, b, r) {
  _d.subVectors(b, a);
  const L = _d.length();
  if (L > 0) _q.setFromUnitVectors(Z, _d.divideScalar(L)); else _q.identity();
  _p.addVectors(a, b).multiplyScalar(0.5);
  mesh.setMatrixAt(j, _m.compose(_p, _q, new THREE.Vector3(r, r, L)));
}

let dirty = true;
function draw(f) {
  frame = f;
  dirty = true;
  for (let b = 0; b < NB; b++) {
    const o = (f * NB + b) * 7;
    _p.set(POSE[o], POSE[o + 1], POSE[o + 2]);
    _q.set(POSE[o + 3], POSE[o + 4], POSE[o + 5], POSE[o + 6]);
    bodyMatrix[b].compose(_p, _q, _s);
  }
  for (const k of Object.keys(inst)) {
    const m = instanced[k];
    inst[k].forEach((it, j) => {
      const b = it[0];
      if (b >= 0 && hidden[b]) m.setMatrixAt(j, ZERO);
      else if (b >= 0) m.setMatrixAt(j, _m.multiplyMatrices(bodyMatrix[b], it[1]));
      else m.setMatrixAt(j, it[1]);
    });
    m.instanceMatrix.needsUpdate = true;
  }
  for (const [b, L, m] of meshes) {
    m.visible = !(b >= 0 && hidden[b]);
    m.matrix.copy(b >= 0 ? bodyMatrix[b] : new THREE.Matrix4()).multiply(L);
  }
  const pos = (b, v) => { const o = (f * NB + b) * 7; return v.set(POSE[o], POSE[o + 1], POSE[o + 2]); };
  let j = 0;
  for (const [n0, n1, r, , ib] of beamSeg) {
    if (beamHidden[ib]) segMesh.setMatrixAt(j++, ZERO); else segment(segMesh, j++, pos(n0, _a), pos(n1, _b), r);
  }
  for (const [i, r, , b] of lineRods) {
    const o = (f * NL + i) * 6;
    if (b >= 0 && hidden[b]) { segMesh.setMatrixAt(j++, ZERO); continue; }
    segment(segMesh, j++, _a.set(LINES[o], LINES[o + 1], LINES[o + 2]), _b.set(LINES[o + 3], LINES[o + 4], LINES[o + 5]), r);
  }
  segMesh.instanceMatrix.needsUpdate = true;
  lineBoxes.forEach(([i, [w, h], , b], k) => {     // a box along the segment, its sides along the frame's y, z
    const o = (f * NL + i) * 6;
    if (b >= 0 && hidden[b]) { boxSegMesh.setMatrixAt(k, ZERO); return; }
    _a.set(LINES[o], LINES[o + 1], LINES[o + 2]); _b.set(LINES[o + 3], LINES[o + 4], LINES[o + 5]);
    _d.subVectors(_b, _a);
    const L = _d.length();
    const ex = L > 0 ? _d.clone().divideScalar(L) : new THREE.Vector3(1, 0, 0);
    const ey = new THREE.Vector3(0, 1, 0);
    if (b >= 0) ey.applyQuaternion(quat(f, b));
    ey.addScaledVector(ex, -ey.dot(ex)).normalize();
    const ez = new THREE.Vector3().crossVectors(ex, ey);
    _m.makeBasis(ex, ey, ez).scale(new THREE.Vector3(L, w, h));
    _m.setPosition(_p.addVectors(_a, _b).multiplyScalar(0.5));
    boxSegMesh.setMatrixAt(k, _m);
  });
  boxSegMesh.instanceMatrix.needsUpdate = true;
  beamNode.forEach(([n, r, , ib], k) => {
    pos(n, _p);
    nodeMesh.setMatrixAt(k, beamHidden[ib] ? ZERO : _m.compose(_p, _q.identity(), new THREE.Vector3(r, r, r)));
  });
  nodeMesh.instanceMatrix.needsUpdate = true;
  const cp = coilGeom.attributes.position.array;
  let w = 0;
  for (const [i, r] of coils) {
    const o = (f * NL + i) * 6;
    _a.set(LINES[o], LINES[o + 1], LINES[o + 2]); _b.set(LINES[o + 3], LINES[o + 4], LINES[o + 5]);
    _d.subVectors(_b, _a);
    const L = _d.length() || 1e-9;
    const e3 = _d.clone().divideScalar(L);
    const t = Math.abs(e3.x) < 0.9 ? new THREE.Vector3(1, 0, 0) : new THREE.Vector3(0, 1, 0);
    const e1 = new THREE.Vector3().crossVectors(t, e3).normalize(), e2 = new THREE.Vector3().crossVectors(e3, e1);
    let prev = null;
    for (let k = 0; k <= NCOIL; k++) {
      const s = k / NCOIL, ang = 2 * Math.PI * TURNS * s;
      const rr = (k < PER / 2 || k > NCOIL - PER / 2) ? 0 : r;     // straight lead-in and lead-out
      const x = _a.x + s * _d.x + rr * (Math.cos(ang) * e1.x + Math.sin(ang) * e2.x);
      const y = _a.y + s * _d.y + rr * (Math.cos(ang) * e1.y + Math.sin(ang) * e2.y);
      const z = _a.z + s * _d.z + rr * (Math.cos(ang) * e1.z + Math.sin(ang) * e2.z);
      if (prev) { cp.set(prev, w); cp.set([x, y, z], w + 3); w += 6; }
      prev = [x, y, z];
    }
  }
  coilGeom.attributes.position.needsUpdate = true;
  coilGeom.setDrawRange(0, w / 3);
  slider.value = f;
  timeLabel.textContent = `t = ${T[f].toFixed(4)} s`;
  drawPlot();
}

// ------------------------------------------------------------------ controls
const slider = document.getElementById('time');
const timeLabel = document.getElementById('tlabel');
const playBtn = document.getElementById('play');
const speedSel = document.getElementById('speed');
slider.max = NF - 1;
let playing = false, simTime = T[0], last = null;
function findFrame(t) {
  let lo = 0, hi = NF - 1;
  while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (T[mid] <= t) lo = mid; else hi = mid - 1; }
  return lo;
}
function setPlaying(p) { playing = p; playBtn.textContent = p ? 'Pause' : 'Play'; last = null; }
playBtn.onclick = () => { if (!playing && frame >= NF - 1) simTime = T[0]; else simTime = T[frame]; setPlaying(!playing); };
slider.oninput = () => { setPlaying(false); draw(+slider.value); };
document.getElementById('shot').onclick = () => {
  renderer.render(scene, camera);
  const a = document.createElement('a');
  a.href = renderer.domElement.toDataURL('image/png');
  a.download = `${D.name || 'flexmbd'}_t${T[frame].toFixed(3)}.png`;
  a.click();
};
// show/hide per body
const list = document.getElementById('bodies');
D.body_names.forEach((nm, b) => {
  if (!VIS.bodies[b].length && !VIS.lines.some(ln => ln.body === b)) return;
  const lab = document.createElement('label');
  const cb = document.createElement('input');
  cb.type = 'checkbox'; cb.checked = true; cb.dataset.body = b;
  cb.onchange = () => { hidden[b] = cb.checked ? 0 : 1; draw(frame); renderer.render(scene, camera); };
  lab.appendChild(cb); lab.appendChild(document.createTextNode(' ' + nm));
  list.appendChild(lab);
});

VIS.beams.forEach((bm, ib) => {
  const lab = document.createElement('label');
  const cb = document.createElement('input');
  cb.type = 'checkbox'; cb.checked = true; cb.dataset.beam = ib;
  cb.onchange = () => { beamHidden[ib] = cb.checked ? 0 : 1; draw(frame); renderer.render(scene, camera); };
  lab.appendChild(cb); lab.appendChild(document.createTextNode(' ' + bm.name + ' (beam)'));
  list.appendChild(lab);
});

// ------------------------------------------------------------------ plot
const plot = document.getElementById('plot');
const plotSel = document.getElementById('series');
const SER = D.series.map(s => ({ name: s.name, k: s.k, labels: s.labels || [], unit: s.unit || '', y: f32(s.data) }));
SER.forEach((s, i) => { const o = document.createElement('option'); o.value = i; o.textContent = s.name; plotSel.appendChild(o); });
const legend = document.getElementById('legend');
plotSel.onchange = () => { showLegend(); drawPlot(); };
let cursorX = null;
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];
const PML = 66, PMR = 8, PMT = 8, PMB = 18;      // plot margins (px)
const yLabel = s => s.unit ? `${s.name} [${s.unit}]` : s.name;
function showLegend() {          // component names in their line colours
  legend.textContent = '';
  if (!SER.length) return;
  const s = SER[+plotSel.value || 0];
  for (let c = 0; c < s.k; c++) {
    const e = document.createElement('span'), sw = document.createElement('i');
    sw.style.background = COLORS[c % COLORS.length];
    e.appendChild(sw); e.appendChild(document.createTextNode(s.labels[c] || `[${c}]`));
    legend.appendChild(e);
  }
}
function plotRows(s) { return Math.min(s.y.length / s.k, NF); }
function drawPlot() {
  const ctx = plot.getContext('2d');
  const W = plot.width = plot.clientWidth, H = plot.height = plot.clientHeight;
  ctx.clearRect(0, 0, W, H);
  if (!SER.length) return;
  const s = SER[+plotSel.value || 0];
  const n = plotRows(s);
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < n * s.k; i++) { const v = s.y[i]; if (isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); } }
  if (!(hi > lo)) { hi = lo + 1; lo -= 1; }
  const ml = PML, mr = PMR, mt = PMT, mb = PMB;
  const X = t => ml + (W - ml - mr) * (t - T[0]) / ((T[NF - 1] - T[0]) || 1);
  const Y = v => H - mb - (H - mt - mb) * (v - lo) / (hi - lo);
  ctx.font = '11px sans-serif'; ctx.fillStyle = '#333';
  const fmt = v => (Math.abs(v) < 1e-9 * (hi - lo) ? '0' : (Math.abs(v) < 1e-2 || Math.abs(v) >= 1e5)
    ? v.toExponential(2).replace('e+', 'e') : String(Number(v.toPrecision(4))));
  ctx.textAlign = 'right'; ctx.fillText(fmt(hi), ml - 3, mt + 8); ctx.fillText(fmt(lo), ml - 3, H - mb);
  ctx.textAlign = 'left'; ctx.fillText(`${T[0].toFixed(2)} s`, ml, H - 4);
  ctx.textAlign = 'right'; ctx.fillText(`${T[NF - 1].toFixed(2)} s`, W - mr, H - 4);
  ctx.textAlign = 'center'; ctx.fillText('t [s]', ml + 0.5 * (W - ml - mr), H - 4);
  ctx.save(); ctx.translate(11, mt + 0.5 * (H - mt - mb)); ctx.rotate(-Math.PI / 2);
  ctx.fillText(yLabel(s), 0, 0); ctx.restore(); ctx.textAlign = 'left';
  ctx.strokeStyle = '#bbb'; ctx.strokeRect(ml, mt, W - ml - mr, H - mt - mb);
  for (let c = 0; c < s.k; c++) {
    ctx.strokeStyle = COLORS[c % COLORS.length]; ctx.beginPath();
    for (let i = 0; i < n; i++) { const x = X(T[i]), y = Y(s.y[i * s.k + c]); i ? ctx.lineTo(x, y) : ctx.moveTo(x, y); }
    ctx.stroke();
  }
  cursorX = X(T[frame]);
  ctx.strokeStyle = '#000'; ctx.beginPath(); ctx.moveTo(cursorX, mt); ctx.lineTo(cursorX, H - mb); ctx.stroke();
}
showLegend();
plot.onclick = ev => {
  const r = plot.getBoundingClientRect();
  const t = T[0] + (ev.clientX - r.left - PML) / (r.width - PML - PMR) * (T[NF - 1] - T[0]);
  setPlaying(false); draw(findFrame(t));
};

// ------------------------------------------------------------------ camera, loop
function resize() {
  const w = view.clientWidth, h = view.clientHeight;
  renderer.setSize(w, h, false);
  renderer.domElement.style.width = w + 'px'; renderer.domElement.style.height = h + 'px';
  camera.aspect = w / Math.max(h, 1); camera.updateProjectionMatrix();
  dirty = true;
  drawPlot();
}
window.addEventListener('resize', resize);
const side = new THREE.Vector3(1, -1.6, 0).normalize();
if (Math.abs(side.dot(up)) > 0.9) side.set(1, 0, 0);
side.addScaledVector(up, -side.dot(up)).normalize();
camera.position.copy(center).addScaledVector(side, 1.3 * size).addScaledVector(up, 0.6 * size);
controls.target.copy(center);
controls.update();
sun.position.copy(center).addScaledVector(up, 2 * size).addScaledVector(side, size);
resize();
draw(0);
function loop(now) {
  requestAnimationFrame(loop);
  if (playing) {
    if (last !== null) simTime += (now - last) / 1000 * (+speedSel.value);
    last = now;
    if (simTime >= T[NF - 1]) { simTime = T[NF - 1]; setPlaying(false); }
    const f = findFrame(simTime);
    if (f !== frame) draw(f);
  }
  controls.update();
  if (dirty) { renderer.render(scene, camera); dirty = false; fpsCount++; }
}
controls.addEventListener('change', () => { dirty = true; });
let fpsCount = 0;
requestAnimationFrame(loop);

// ------------------------------------------------------------------ live follow (flexmbd view --serve)
if (D.live) {
  const poll = async () => {
    try {
      const r = await fetch(`data?since=${NF}`);
      if (r.ok) {
        const u = await r.json();
        if (u.nf > NF) {
          const cat = (a, b) => { const c = new Float32Array(a.length + b.length); c.set(a); c.set(b, a.length); return c; };
          const t2 = f64(u.t);
          const cat64 = (a, b) => { const c = new Float64Array(a.length + b.length); c.set(a); c.set(b, a.length); return c; };
          const follow = frame >= NF - 1;
          T = cat64(T, t2);
          POSE = cat(POSE, f32(u.pose)); LINES = cat(LINES, f32(u.lines)); MARK = cat(MARK, f32(u.markers));
          // the plot grows with the picture (an output missing from one answer stops growing, unshifted)
          if (u.series) SER.forEach((s, i) => { if (u.series[i] && s.y.length === NF * s.k) s.y = cat(s.y, f32(u.series[i])); });
          NF = u.nf; slider.max = NF - 1;
          document.getElementById('info').textContent = u.info;
          if (follow && !playing) draw(NF - 1); else drawPlot();
        }
      }
    } catch (e) { /* the server stopped: keep what we have */ }
    setTimeout(poll, 1000);
  };
  setTimeout(poll, 1000);
}

// ------------------------------------------------------------------ for tests and scripts
window.flexmbdViewer = {
  get frame() { return frame; },
  get nFrames() { return NF; },
  get time() { return T[frame]; },
  get cursorX() { return cursorX; },
  get plot() {                // what the plot shows: its axes, legend and the time of its last point
    const s = SER[+plotSel.value || 0];
    if (!s) return null;
    return { x: 't [s]', y: yLabel(s), legend: Array.from(legend.children, e => e.textContent),
             colors: Array.from(legend.children, e => e.firstChild.style.background), lastTime: T[plotRows(s) - 1] };
  },
  get frames() { const c = fpsCount; fpsCount = 0; return c; },
  setFrame(f) { setPlaying(false); draw(Math.max(0, Math.min(NF - 1, f | 0))); renderer.render(scene, camera); dirty = false; },
  showFrame(f) { draw(Math.max(0, Math.min(NF - 1, f | 0))); },   // drawn at the next animation frame
  bodyPosition(b) { const e = bodyMatrix[b].elements; return [e[12], e[13], e[14]]; },
  bodyRotation(b) { const e = bodyMatrix[b].elements; return [[e[0], e[4], e[8]], [e[1], e[5], e[9]], [e[2], e[6], e[10]]]; },
  play() { simTime = T[frame]; setPlaying(true); },
  ready: true,
};
