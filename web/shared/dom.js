// Text-only DOM helpers: every string from the collector (job, host, device, error texts, findings) reaches
// the page through textContent / createTextNode / setAttribute, never through HTML parsing.

// el('li', {class: 'job', 'aria-current': 'true'}, 'text', child, ...): attributes by setAttribute, string
// children as text nodes. Properties that are not attributes (onclick ...) are not accepted on purpose.
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  append(node, ...children);
  return node;
}

export function append(node, ...children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Replaces every child of node.
export function replaceChildren(node, ...children) {
  node.replaceChildren();
  return append(node, ...children);
}

// Sets the text of a node only when it differs (keeps screen readers and layout quiet).
export function setText(node, text) {
  const value = String(text);
  if (node.textContent !== value) node.textContent = value;
}

// A CSS custom property of the page (the palette's --ms-* colours).
export function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

// "0–7, 12": runs of three or more as a range, at most `limit` ranks shown, then " … (+N)" (the desktop's
// ranks_text, ui/live/live_rows.cpp, so both dashboards print a finding's ranks alike).
export function ranksText(ranks, limit = 12) {
  const items = [];
  let shown = 0;
  let i = 0;
  while (i < ranks.length) {
    let j = i;
    while (j + 1 < ranks.length && ranks[j + 1] === ranks[j] + 1) ++j;
    if (shown >= limit) break;
    if (j - i >= 2) {
      items.push(`${ranks[i]}–${ranks[j]}`);
      shown += j - i + 1;
      i = j + 1;
    } else {
      items.push(String(ranks[i]));
      ++shown;
      ++i;
    }
  }
  let text = items.join(', ');
  if (i < ranks.length) text += ` … (+${ranks.length - i})`;
  return text;
}

// Host names in natural order: node-2 before node-10.
export const naturalCompare = new Intl.Collator(undefined, {numeric: true}).compare;
