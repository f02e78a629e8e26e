// The plan API as the Planner uses it (docs/collector.md, "Plan API"): the compact plan, one rank's groups and
// the exports' bytes. JSON goes through the shell's api (web/shared/api.js: the bearer token, the token
// dialog on a 401); a 400 comes back whole ({error, hint, field, suggestions}) so the page can show the core's
// exact words and the values that fix them. Exports are text, so they are fetched here with the same token.

export const planParameters = ['dp', 'world', 'cp', 'ep', 'mp_replicate', 'mp_shard', 'gpus_per_node', 'order'];

// A plan's model mesh as request parameters: none for LlamaFactory's default (1, world), so the usual plan's
// requests and deep links read as they always do.
export function modelMeshParameters(t) {
  return t.mp_replicate === 1 && t.mp_shard === t.world ? {} : {mp_replicate: t.mp_replicate, mp_shard: t.mp_shard};
}

// The query of a plan request, in one fixed order so equal requests read alike (and deep links too).
export function planQuery(request) {
  const query = new URLSearchParams();
  for (const name of planParameters) {
    const value = request[name];
    if (value !== undefined && value !== null && value !== '') query.set(name, String(value));
  }
  return query;
}

export class PlanClient {
  // api: {get(path) -> Promise<body> throwing {status, error, hint, body}, token() -> string,
  // requestToken(reason) -> Promise<string>}
  constructor(api) {
    this.api = api;
  }

  // -> {status, body}: 200 and the document, or the error's status and the collector's whole answer.
  async json(path) {
    try {
      return {status: 200, body: await this.api.get(path)};
    } catch (error) {
      const body = error.body && typeof error.body === 'object' ? error.body
        : {error: error.error || error.message, hint: error.hint || ''};
      return {status: error.status ?? 0, body};
    }
  }

  // -> {status, text}; a 401 asks the shell for the token once and tries again.
  async text(path) {
    for (let attempt = 0; ; ++attempt) {
      const token = this.api.token ? this.api.token() : '';
      let response;
      try {
        response = await fetch(path, {headers: token ? {Authorization: `Bearer ${token}`} : {}, cache: 'no-store',
          credentials: 'omit'});
      } catch (error) {
        return {status: 0, text: JSON.stringify({error: `cannot reach the collector: ${error.message}`})};
      }
      if (response.status === 401 && attempt === 0 && this.api.requestToken) {
        await this.api.requestToken('missing or wrong bearer token');
        continue;
      }
      return {status: response.status, text: await response.text()};
    }
  }

  plan(request) {
    const query = planQuery(request);
    query.set('form', 'compact');
    return this.json(`/api/v1/plan?${query}`);
  }

  rank(request, rank) {
    const query = planQuery(request);
    query.set('rank', String(rank));
    return this.json(`/api/v1/plan/rank?${query}`);
  }

  // The ranking of every layout of a world for a model (meshscope.advice/1, docs/cost-model.md).
  advise(query) {
    return this.json(`/api/v1/advise?${query}`);
  }

  // format: json | yaml | torchrun -> {status, text}: exactly `meshscope plan --format <format>`'s bytes.
  exportText(request, format) {
    const query = planQuery(request);
    query.set('format', format);
    return this.text(`/api/v1/plan/export?${query}`);
  }
}
