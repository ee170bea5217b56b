/**
 * A JPEG's structure, walked marker by marker from SOI (ITU-T T.81, annex B): every
 * segment's length within the file, one frame header (SOF) with its size before the
 * first scan, at least one scan (SOS) with entropy-coded data after it, and an EOI that
 * closes the image. A file cut short anywhere, a header alone, or a frame whose height
 * is left to a later DNL segment (0) fails. The entropy-coded data is not decoded.
 *
 * Bytes after EOI are not read: phones and editors append trailers of their own there
 * (Samsung's, motion photos), and a decoder stops at EOI, so refusing them would refuse
 * ordinary photos while keeping nothing out (the upload's size is capped anyway).
 */
import type { ImageStructure } from './image-structure.js';

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
/** The frame headers: SOF0-SOF15 but DHT (C4), JPG (C8) and DAC (CC). */
const isFrame = (code: number) =>
  code >= 0xc0 && code <= 0xcf && code !== 0xc4 && code !== 0xc8 && code !== 0xcc;
/** Markers that stand alone, without a length: TEM, and the restart markers inside scans. */
const isRestart = (code: number) => code >= 0xd0 && code <= 0xd7;

export function jpegStructure(data: Buffer): ImageStructure | undefined {
  if (data[0] !== 0xff || data[1] !== SOI) return undefined;
  let frame: ImageStructure | undefined;
  let scans = 0;
  let at = 2;
  for (;;) {
    if (data[at] !== 0xff) return undefined;
    // Any number of 0xFF fill bytes may come before a marker's code (B.1.1.2).
    while (data[at] === 0xff) at++;
    if (at >= data.length) return undefined;
    const code = data[at++]!;
    if (code === EOI) return frame && scans > 0 ? frame : undefined;
    if (code === 0x01) continue;
    if (code === 0x00 || code === SOI || isRestart(code)) return undefined;
    if (at + 2 > data.length) return undefined;
    const length = data.readUInt16BE(at);
    if (length < 2 || at + length > data.length) return undefined;
    const body = data.subarray(at + 2, at + length);
    at += length;
    if (isFrame(code)) {
      // One frame: a second SOF is a hierarchical file, which no provider here reads.
      if (frame) return undefined;
      frame = frameOf(body);
      if (!frame) return undefined;
    } else if (code === SOS) {
      if (!frame || !isScanHeader(body)) return undefined;
      const end = entropyEnd(data, at);
      if (end === undefined || end === at) return undefined;
      at = end;
      scans++;
    }
  }
}

/** A frame header's size (B.2.2): precision, height, width, then three bytes per component. */
function frameOf(body: Buffer): ImageStructure | undefined {
  if (body.length < 6) return undefined;
  const height = body.readUInt16BE(1);
  const width = body.readUInt16BE(3);
  const components = body[5]!;
  if (components < 1 || components > 4 || body.length !== 6 + 3 * components) return undefined;
  return width > 0 && height > 0 ? { width, height } : undefined;
}

/** A scan header (B.2.3): one to four components, two bytes each, then three more bytes. */
function isScanHeader(body: Buffer): boolean {
  const components = body[0] ?? 0;
  return components >= 1 && components <= 4 && body.length === 1 + 2 * components + 3;
}

/**
 * Where the entropy-coded data that starts at `from` ends: at the next marker, which is
 * 0xFF followed by neither 0x00 (a stuffed 0xFF of the data) nor a restart marker.
 * Undefined when the file ends first: it was cut short.
 */
function entropyEnd(data: Buffer, from: number): number | undefined {
  let at = from;
  for (;;) {
    at = data.indexOf(0xff, at);
    if (at < 0 || at + 1 >= data.length) return undefined;
    const next = data[at + 1]!;
    if (next === 0x00 || isRestart(next)) at += 2;
    // A fill byte: the marker's code comes after the last 0xFF.
    else if (next === 0xff) at += 1;
    else return at;
  }
}
