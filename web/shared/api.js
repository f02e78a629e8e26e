// The collector's HTTP API as the page uses it: GET (and POST) JSON with `Authorization: Bearer <token>` when the tab
// has one. The token lives in sessionStorage (this tab only), never in a URL. A 401 asks for the token once
// (every request waiting on a 401 shares that one question) and the request is tried again.
import {fetchJson} from './fetch_json.js';

const tokenKey = 'meshscope.token';

// What a failed request throws: the HTTP status (0 when the collector could not be reached), the
// collector's own error text and, when it gives one, its hint.
export class ApiError extends Error {
  constructor(status, error, hint = '', body = null) {
    super(error);
    this.status = status;
    this.error = error;
    this.hint = hint;
    this.body = body;
  }
}

export function storedToken() {
  return sessionStorage.getItem(tokenKey) || '';
}

export function storeToken(token) {
  if (token) sessionStorage.setItem(tokenKey, token);
  else sessionStorage.removeItem(tokenKey);
}

// askToken(reason) -> Promise<string>: shows the token dialog (the shell's), resolves with what was typed.
export function createApi(askToken) {
  let asking = null;  // the one pending question

  function requestToken(reason) {
    if (!asking) {
      asking = askToken(reason).then((token) => {
        storeToken(token);
        asking = null;
        return token;
      });
    }
    return asking;
  }

  // path with the tab's token (GET, or POST with a JSON body: the tour checks, the sandbox, a tour's job), read
  // and parsed here: {status, body, notJson}.
  async function load(path, method = 'GET', payload = undefined) {
    return fetchJson(path, {method, token: storedToken(), payload});
  }

  // The answer of a request made by `loader(path, token)` -> {status, body, notJson} | {status: 0, error} (a
  // 2xx answer may carry more: the parser's columns): get() and post() load here, the Live page's ranks load in
  // the parser's worker (parser.js). A 401 asks for the token and tries again; other failures throw an ApiError.
  async function answer(path, loader, method = 'GET') {
    let refused = false;
    for (;;) {
      const got = await loader(path, storedToken());
      if (got.status === 0) throw new ApiError(0, got.error);
      if (got.status === 401) {
        await requestToken(refused || storedToken() ? 'missing or wrong bearer token' : '');
        refused = true;
        continue;
      }
      const body = got.body ?? null;
      const ok = got.status >= 200 && got.status <= 299;
      if (ok && got.notJson) throw new ApiError(got.status, `${method} ${path}: the answer is not JSON`);
      if (!ok) {
        const error = body && typeof body.error === 'string' ? body.error : `HTTP ${got.status}`;
        const hint = body && typeof body.hint === 'string' ? body.hint : '';
        throw new ApiError(got.status, error, hint, body);
      }
      return got;
    }
  }

  async function get(path) {
    return (await answer(path, (p) => load(p))).body;
  }

  async function post(path, payload) {
    return (await answer(path, (p) => load(p, 'POST', payload ?? {}), 'POST')).body;
  }

  return {get, post, answer, token: storedToken, requestToken};
}
