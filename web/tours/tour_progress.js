// Where each tour was left (docs/tours.md, "Progress"): per tour the furthest step reached (from 1) and
// whether it was finished, in localStorage so it outlives the tab; and the tour open in this tab, in
// sessionStorage, so a reload comes back to the same step. Nothing here is sent to the collector.
const progressKey = 'meshscope.tours.progress';
const activeKey = 'meshscope.tours.active';

function readJson(storage, key) {
  try {
    const value = JSON.parse(storage.getItem(key) || 'null');
    return value && typeof value === 'object' ? value : null;
  } catch {
    return null;
  }
}

function positive(value) {
  return Number.isInteger(value) && value >= 1 ? value : 0;
}

// {reached: K (0: never started), finished: bool}
export function progressOf(name) {
  const all = readJson(localStorage, progressKey) || {};
  const entry = all[name] && typeof all[name] === 'object' ? all[name] : {};
  return {reached: positive(entry.reached), finished: entry.finished === true};
}

function write(name, entry) {
  const all = readJson(localStorage, progressKey) || {};
  all[name] = entry;
  try {
    localStorage.setItem(progressKey, JSON.stringify(all));
  } catch {
    // storage full or refused: the tour still runs, it is only not remembered
  }
}

// Step k (from 1) was opened: the furthest reached only grows.
export function markReached(name, k) {
  const now = progressOf(name);
  if (k > now.reached) write(name, {reached: k, finished: now.finished});
}

export function markFinished(name, steps) {
  write(name, {reached: steps, finished: true});
}

export function forget(name) {
  write(name, {reached: 0, finished: false});
}

// The tour open in this tab: {name, step} or null.
export function activeTour() {
  const value = readJson(sessionStorage, activeKey);
  if (!value || typeof value.name !== 'string' || !positive(value.step)) return null;
  return {name: value.name, step: value.step};
}

export function setActiveTour(value) {
  if (value) sessionStorage.setItem(activeKey, JSON.stringify({name: value.name, step: value.step}));
  else sessionStorage.removeItem(activeKey);
}
