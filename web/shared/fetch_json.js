// One request to the collector and its JSON read, the same on the main thread (api.js, parser.js) and in the
// parser's worker (parse_worker.js): {status, body} (body null for an empty answer), {status, body: null, notJson:
// true} when the answer is not JSON, {status: 0, error} when the collector could not be reached. The token, when
// given, goes as `Authorization: Bearer`; never a cookie, never the cache.
export async function fetchJson(path, {method = 'GET', token = '', payload = undefined} = {}) {
  const headers = {Accept: 'application/json'};
  if (token) headers.Authorization = `Bearer ${token}`;
  const options = {method, headers, cache: 'no-store', credentials: 'omit'};
  if (payload !== undefined) {
    headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(payload);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (e) {
    return {status: 0, error: `cannot reach the collector: ${e.message}`};
  }
  const text = await response.text().catch(() => '');
  try {
    return {status: response.status, body: text ? JSON.parse(text) : null};
  } catch {
    return {status: response.status, body: null, notJson: true};
  }
}
