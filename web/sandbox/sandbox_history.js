// The sandbox's call history, the one thing the page keeps (POST /api/v1/sandbox is stateless: core replays
// the whole history on a fresh ParallelState each time). sessionStorage, so a reload keeps the process.
const key = 'meshscope.sandbox.calls';

export function sandboxCalls() {
  try {
    const calls = JSON.parse(sessionStorage.getItem(key) || '[]');
    return Array.isArray(calls) ? calls : [];
  } catch {
    return [];
  }
}

export function setSandboxCalls(calls) {
  sessionStorage.setItem(key, JSON.stringify(calls));
  window.dispatchEvent(new Event('meshscope-sandbox-history'));
}
