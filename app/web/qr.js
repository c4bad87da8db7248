// QR codes for the join links, made on this device: the link (and its token) is never
// sent anywhere to be drawn. The encoder is kazuhikoarase's qrcode-generator, vendored
// unchanged in ./vendor/qrcode.js (pinned in tools/web/package-lock.json).
// The code is drawn as an SVG built with DOM calls: no markup is parsed, no style
// attribute is set (the page's CSP allows neither inline style nor remote images).
// The encoder is loaded the first time a code is drawn: most phones at a table (the
// players') never show one, so it is not part of the page's first load.

const SVG = "http://www.w3.org/2000/svg";
const QUIET = 4; // the quiet zone the standard asks for, in modules

/** The library's byte mode reads one byte per character: hand it the UTF-8 bytes. */
function utf8(text) {
  return Array.from(new TextEncoder().encode(text), (byte) => String.fromCharCode(byte)).join("");
}

let encoder = null; // the library's qrcode function, once asked for

function loadEncoder() {
  // A failed load (the network dropped) is not kept: the next code asks again.
  encoder ||= import("./vendor/qrcode.js")
    .then((module) => module.default)
    .catch((error) => {
      encoder = null;
      throw error;
    });
  return encoder;
}

/** The QR matrix for text, made by the library's qrcode: {size, dark: (row, col) => boolean}. */
export function qrMatrix(qrcode, text) {
  const code = qrcode(0, "M"); // 0: the smallest version that holds the text
  code.addData(utf8(text), "Byte");
  code.make();
  return { size: code.getModuleCount(), dark: (row, col) => code.isDark(row, col) };
}

/** An SVG path with a unit square per dark module, for a viewBox offset by QUIET. */
export function qrPath(matrix) {
  const parts = [];
  for (let row = 0; row < matrix.size; row += 1) {
    for (let col = 0; col < matrix.size; col += 1) {
      if (matrix.dark(row, col)) parts.push(`M${col + QUIET} ${row + QUIET}h1v1h-1z`);
    }
  }
  return parts.join("");
}

/** An <svg class="qr"> of text, returned at once and drawn when the encoder has
 * loaded (its path.qr-modules appears then); label names it for screen readers. */
export function qrSvg(text, label) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "qr");
  svg.setAttribute("role", "img");
  svg.setAttribute("shape-rendering", "crispEdges");
  if (label) svg.setAttribute("aria-label", label);
  loadEncoder().then((qrcode) => {
    const matrix = qrMatrix(qrcode, text);
    const side = matrix.size + 2 * QUIET;
    svg.setAttribute("viewBox", `0 0 ${side} ${side}`);
    const background = document.createElementNS(SVG, "rect");
    background.setAttribute("width", String(side));
    background.setAttribute("height", String(side));
    background.setAttribute("fill", "#fff");
    const modules = document.createElementNS(SVG, "path");
    modules.setAttribute("class", "qr-modules");
    modules.setAttribute("fill", "#000");
    modules.setAttribute("d", qrPath(matrix));
    svg.append(background, modules);
  }).catch(() => {}); // no code drawn: the link's text and its Copy stay beside it
  return svg;
}
