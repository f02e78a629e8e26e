// Text-only DOM building for the Planner: strings reach the page through textContent and setAttribute,
// never as HTML, so nothing a server or a URL says can run.
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function setText(node, text) {
  node.textContent = text;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}
