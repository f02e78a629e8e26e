// The two places a grid scene is drawn: a 2D canvas context, and an SVG document (every string escaped,
// so a label can never become markup).

export class CanvasSink {
  constructor(context) {
    this.c = context;
  }
  rect(x, y, w, h, fill) {
    if (this.c.fillStyle !== fill) this.c.fillStyle = fill;
    this.c.fillRect(x, y, w, h);
  }
  stroke(x, y, w, h, colour, width) {
    this.c.strokeStyle = colour;
    this.c.lineWidth = width;
    this.c.strokeRect(x, y, w, h);
  }
  line(x1, y1, x2, y2, colour, width) {
    this.c.strokeStyle = colour;
    this.c.lineWidth = width;
    this.c.beginPath();
    this.c.moveTo(x1, y1);
    this.c.lineTo(x2, y2);
    this.c.stroke();
  }
  circle(cx, cy, r, colour, width) {
    this.c.strokeStyle = colour;
    this.c.lineWidth = width;
    this.c.beginPath();
    this.c.arc(cx, cy, Math.max(1, r), 0, 2 * Math.PI);
    this.c.stroke();
  }
  text(x, y, string, colour, size, anchor) {
    this.c.fillStyle = colour;
    this.c.font = `${size}px sans-serif`;
    this.c.textAlign = anchor === 'middle' ? 'center' : 'left';
    this.c.textBaseline = 'middle';
    this.c.fillText(string, x, y);
  }
}

const escapes = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'};

export function escapeXml(text) {
  return String(text).replace(/[&<>"']/g, (c) => escapes[c]);
}

function number(value) {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

export class SvgSink {
  constructor() {
    this.parts = [];
  }
  rect(x, y, w, h, fill) {
    this.parts.push(`<rect x="${number(x)}" y="${number(y)}" width="${number(w)}" height="${number(h)}" fill="${escapeXml(fill)}"/>`);
  }
  stroke(x, y, w, h, colour, width) {
    this.parts.push(`<rect x="${number(x)}" y="${number(y)}" width="${number(w)}" height="${number(h)}" fill="none" stroke="${escapeXml(colour)}" stroke-width="${width}"/>`);
  }
  line(x1, y1, x2, y2, colour, width) {
    this.parts.push(`<line x1="${number(x1)}" y1="${number(y1)}" x2="${number(x2)}" y2="${number(y2)}" stroke="${escapeXml(colour)}" stroke-width="${width}"/>`);
  }
  circle(cx, cy, r, colour, width) {
    this.parts.push(`<circle cx="${number(cx)}" cy="${number(cy)}" r="${number(Math.max(1, r))}" fill="none" stroke="${escapeXml(colour)}" stroke-width="${width}"/>`);
  }
  text(x, y, string, colour, size, anchor) {
    this.parts.push(`<text x="${number(x)}" y="${number(y)}" fill="${escapeXml(colour)}" font-size="${size}" font-family="sans-serif" dominant-baseline="middle" text-anchor="${anchor}">${escapeXml(string)}</text>`);
  }
  // A standalone document: title and description escaped like every other string.
  document(width, height, title, description) {
    return `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="${number(width)}" height="${number(height)}" viewBox="0 0 ${number(width)} ${number(height)}">\n<title>${escapeXml(title)}</title>\n<desc>${escapeXml(description)}</desc>\n${this.parts.join('\n')}\n</svg>\n`;
  }
}
