// Mounts the Planner the way the shell does (web/app.js, owned by web-live): mount(root, ctx) with
// ctx = {api, params, navigate} and an api shaped like web/shared/api.js's ({get, token, requestToken}).
// Used by the Planner's browser tests until the collector serves the shell.
import {mount} from '/planner/planner_page.js';

const token = new URLSearchParams(window.location.search).get('token') || '';
const api = {
  token: () => token,
  requestToken: async () => token,
  async get(path) {
    const response = await fetch(path, {headers: token ? {Authorization: `Bearer ${token}`} : {}});
    const body = await response.json();
    if (!response.ok) throw Object.assign(new Error(body.error), {status: response.status, error: body.error, hint: body.hint, body});
    return body;
  },
};
const [, query = ''] = window.location.hash.split('?');
const params = Object.fromEntries(new URLSearchParams(query));
mount(document.getElementById('root'), {api, params, navigate: (hash) => { window.location.hash = hash; }});
