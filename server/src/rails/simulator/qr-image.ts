/**
 * The QR image of a `qr_code_information` next_action (`image_data_url`): an SVG data URL drawn from uqr's module
 * matrix. One module is one viewBox unit, so the image scales to whatever box the frame gives it. Each run of dark
 * modules in a row is one stroke of width 1 along the row's middle (`m dx 0 h length`), about half the bytes of a
 * rectangle per run; crispEdges keeps the module edges sharp when a unit is not a whole pixel.
 */
import { encode } from 'uqr';

/**
 * The light margin scanners need around the symbol (ISO/IEC 18004: 4 modules). The SVG draws its own white
 * background, because the frame's theme may be dark; the margin only widens the viewBox, it adds no bytes.
 */
const QUIET_ZONE = 4;

/** The QR code of `text` as an SVG document. Error correction M: a screen photographed by a phone is not a clean scan. */
export function qrSvg(text: string): string {
  const { data, size } = encode(text, { ecc: 'M', border: 0 });
  let path = '';
  data.forEach((row, y) => {
    let pen: number | undefined;
    for (let x = 0; x < size; x++) {
      if (!row[x] || row[x - 1]) continue;
      let end = x + 1;
      while (end < size && row[end]) end++;
      path += pen === undefined ? `M${x} ${y + 0.5}h${end - x}` : `m${x - pen} 0h${end - x}`;
      pen = end;
    }
  });
  const side = size + 2 * QUIET_ZONE;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="-${QUIET_ZONE} -${QUIET_ZONE} ${side} ${side}" shape-rendering="crispEdges">` +
    `<rect x="-${QUIET_ZONE}" y="-${QUIET_ZONE}" width="${side}" height="${side}" fill="#fff"/>` +
    `<path stroke="#000" d="${path}"/></svg>`
  );
}

/** `data:image/svg+xml;base64,...` of `qrSvg(text)`: what an <img> in the frame shows. */
export function qrSvgDataUrl(text: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(qrSvg(text), 'utf8').toString('base64')}`;
}
