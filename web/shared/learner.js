// What the learner does on a page, announced for the tour runner (web/tours/tour_runner.js): a rank chosen on
// a grid or list, a sandbox call made. Pages announce and never know whether a tour listens; the runner turns
// an announcement into an answer for core's check (POST /api/v1/tours/NAME/steps/K/check).
const rankEvent = 'meshscope-rank';
const sandboxEvent = 'meshscope-sandbox';

// page: 'planner' | 'live' | 'peers'; rank: the rank chosen.
export function announceRank(page, rank) {
  window.dispatchEvent(new CustomEvent(rankEvent, {detail: {page, rank}}));
}

// calls: the sandbox's whole history, as POST /api/v1/sandbox took it.
export function announceSandbox(calls) {
  window.dispatchEvent(new CustomEvent(sandboxEvent, {detail: {calls}}));
}

// Returns a function that stops listening.
export function onRank(listener) {
  const handler = (event) => listener(event.detail);
  window.addEventListener(rankEvent, handler);
  return () => window.removeEventListener(rankEvent, handler);
}

export function onSandbox(listener) {
  const handler = (event) => listener(event.detail);
  window.addEventListener(sandboxEvent, handler);
  return () => window.removeEventListener(sandboxEvent, handler);
}
