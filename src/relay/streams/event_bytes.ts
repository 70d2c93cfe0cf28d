/** SSE bytes of a resumable stream's batches, handled byte by byte (no string per event). */

const encoder = new TextEncoder();
const NEWLINE = 10;

/** Where the event at `from` ends (after its `\n\n`), or `end`; UTF-8 0x0A is always a newline. */
export function eventEnd(buffer: Uint8Array, from: number, end: number): number {
  let stop = buffer.indexOf(NEWLINE, from);
  while (stop >= 0 && stop + 1 < end && buffer[stop + 1] !== NEWLINE) {
    stop = buffer.indexOf(NEWLINE, stop + 1);
  }
  return stop < 0 || stop + 1 >= end ? end : stop + 2;
}

export function idLineBytes(id: number): number {
  let digits = 1;
  for (let n = id; n >= 10; n = Math.floor(n / 10)) digits++;
  return 5 + digits;
}

/** Writes `id: <id>\n` at `at`; returns where it ends. */
export function writeIdLine(buffer: Uint8Array, at: number, id: number): number {
  const end = at + idLineBytes(id) - 1;
  buffer[at] = 105; // i
  buffer[at + 1] = 100; // d
  buffer[at + 2] = 58; // :
  buffer[at + 3] = 32; // space
  for (let i = end - 1, n = id; i >= at + 4; i--, n = Math.floor(n / 10)) buffer[i] = 48 + n % 10;
  buffer[end] = NEWLINE;
  return end + 1;
}

/** The offset of event `id` in a batch: every event starts with its `id:` line. */
export function eventStart(data: Uint8Array, id: number): number {
  const needle = encoder.encode(`\n\nid: ${id}\n`);
  // JSON data holds no raw newline, so the needle occurs only where an event starts.
  outer: for (let i = 0; i + needle.length <= data.length; i++) {
    for (let j = 0; j < needle.length; j++) {
      if (data[i + j] !== needle[j]) continue outer;
    }
    return i + 2;
  }
  return data.length;
}
