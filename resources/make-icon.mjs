// Draws resources/icon.png (512×512 RGBA): a loyalty punch card on a teal tile. No dependencies.
// Run from the repository root: node resources/make-icon.mjs
/* global URL, console */
import { Buffer } from 'node:buffer';
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const SIZE = 512;
const TEAL = [31, 122, 109];
const WHITE = [250, 250, 247];
const RING = [196, 204, 200];

/** Signed distance to a rounded rectangle (negative inside). */
function roundedRect(x, y, left, top, right, bottom, radius) {
  const cx = (left + right) / 2;
  const cy = (top + bottom) / 2;
  const qx = Math.abs(x - cx) - ((right - left) / 2 - radius);
  const qy = Math.abs(y - cy) - ((bottom - top) / 2 - radius);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - radius;
}
const circle = (x, y, cx, cy, r) => Math.hypot(x - cx, y - cy) - r;
const coverage = (distance) => Math.min(1, Math.max(0, 0.5 - distance));

const holes = [136, 196, 256, 316, 376].map((cx, i) => ({ cx, cy: 300, punched: i < 3 }));

const pixels = Buffer.alloc(SIZE * SIZE * 4);
for (let py = 0; py < SIZE; py++) {
  for (let px = 0; px < SIZE; px++) {
    const x = px + 0.5;
    const y = py + 0.5;
    let rgb = TEAL;
    let alpha = coverage(roundedRect(x, y, 0, 0, SIZE, SIZE, 104));
    const blend = (color, amount) => {
      rgb = rgb.map((c, i) => c + (color[i] - c) * amount);
    };
    // The card, with a header stripe.
    blend(WHITE, coverage(roundedRect(x, y, 80, 136, 432, 376, 32)));
    blend(TEAL, coverage(roundedRect(x, y, 112, 176, 300, 212, 10)) * 0.55);
    // Five stamps: three punched through to the tile, two still to earn.
    for (const hole of holes) {
      const d = circle(x, y, hole.cx, hole.cy, 22);
      if (hole.punched) blend(TEAL, coverage(d));
      else blend(RING, coverage(Math.abs(d) - 3));
    }
    const o = (py * SIZE + px) * 4;
    pixels[o] = Math.round(rgb[0]);
    pixels[o + 1] = Math.round(rgb[1]);
    pixels[o + 2] = Math.round(rgb[2]);
    pixels[o + 3] = Math.round(alpha * 255);
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buffer) {
  let c = 0xffffffff;
  for (const byte of buffer) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header[8] = 8; // bit depth
header[9] = 6; // RGBA
const rows = Buffer.alloc(SIZE * (SIZE * 4 + 1));
for (let y = 0; y < SIZE; y++) pixels.copy(rows, y * (SIZE * 4 + 1) + 1, y * SIZE * 4, (y + 1) * SIZE * 4);

const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', header),
  chunk('IDAT', deflateSync(rows, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(new URL('./icon.png', import.meta.url), png);
console.log(`resources/icon.png written (${png.length} bytes)`);
