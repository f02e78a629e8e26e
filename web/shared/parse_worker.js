// The page's parser, a module worker (new Worker('/shared/parse_worker.js', {type: 'module'}), served by the
// collector like every file of web/; the CSP's worker-src 'self' allows it): the stream's messages and the
// ranks snapshot are parsed here, off the main thread, and go back as columns (rank_columns.js) whose typed
// arrays are transferred. The main thread keeps the WebSocket (its reconnects, seq and epoch: stream.js):
// only the text crosses over. Requests (parser.js):
//   {id, op: 'stream', text}           -> {id, result: parseStreamText(text)}
//   {id, op: 'ranks', path, token}     -> {id, status: 200, total, columns (with each rank's hang position, when
//                                         it has one)} | {id, status, body} (not 200:
//                                         the collector's JSON error, or status 0 and error when unreachable)
import {fetchJson} from './fetch_json.js';
import {parseStreamText, ranksColumns, streamTransferables, transferables} from './rank_columns.js';

async function ranks(id, path, token) {
  const got = await fetchJson(path, {token});
  if (got.status !== 200 || got.body === null) return self.postMessage({id, ...got});
  const {total, columns} = ranksColumns(got.body);
  self.postMessage({id, status: 200, total, columns}, transferables(columns));
}

self.addEventListener('message', (event) => {
  const {id, op} = event.data || {};
  if (op === 'stream') {
    const result = parseStreamText(event.data.text);
    self.postMessage({id, result}, streamTransferables(result));
  } else if (op === 'ranks') {
    ranks(id, event.data.path, event.data.token);
  }
});
