// The Planner's DOM helpers: the shell's text-only ones (web/shared/dom.js: strings reach the page through
// textContent and setAttribute, never as HTML), plus clear().
export {el, setText} from '../shared/dom.js';

export function clear(node) {
  node.replaceChildren();
}
