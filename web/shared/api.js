// The collector's HTTP API as the page uses it: GET (and POST) JSON with `Authorization: Bearer <token>` when the tab
// has one. The token lives in sessionStorage (this tab only), never in a URL. A 401 asks for the token once
// (every request waiting on a 401 shares that one question) and the request is tried again.
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

  async function send(path, options) {
    const headers = {Accept: 'application/json'};
    const token = storedToken();
    if (token) headers.Authorization = `Bearer ${token}`;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    try {
      return await fetch(path, {...options, headers, cache: 'no-store', credentials: 'omit'});
    } catch (e) {
      throw new ApiError(0, `cannot reach the collector: ${e.message}`);
    }
  }

  // GET, or POST with a JSON body (the tour checks, the sandbox, a tour's job).
  async function request(method, path, payload) {
    let refused = false;
    for (;;) {
      const options = payload === undefined ? {method} : {method, body: JSON.stringify(payload)};
      const response = await send(path, options);
      const text = await response.text().catch(() => '');
      let body = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        if (response.ok) throw new ApiError(response.status, `${method} ${path}: the answer is not JSON`);
      }
      if (response.status === 401) {
        await requestToken(refused || storedToken() ? 'missing or wrong bearer token' : '');
        refused = true;
        continue;
      }
      if (!response.ok) {
        const error = body && typeof body.error === 'string' ? body.error : `HTTP ${response.status}`;
        const hint = body && typeof body.hint === 'string' ? body.hint : '';
        throw new ApiError(response.status, error, hint, body);
      }
      return body;
    }
  }

  const get = (path) => request('GET', path);
  const post = (path, payload) => request('POST', path, payload ?? {});

  return {get, post, token: storedToken, requestToken};
}
