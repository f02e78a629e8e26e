// A page's own stylesheet, linked once (the CSP takes only the collector's own files, never inline styles).
export function ensureStylesheet(url) {
  const href = new URL(url).pathname;
  for (const link of document.querySelectorAll('link[rel="stylesheet"]')) {
    if (link.getAttribute('href') === href) return link;
  }
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  document.head.append(link);
  return link;
}
