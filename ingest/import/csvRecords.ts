/**
 * CSV records of a chunk of text: one line is one record (the mapped vendor formats have no
 * multi-line fields). A quoted field may hold the delimiter and doubled quotes; a quoted field
 * that does not close before the end of its line makes that line malformed, and reading goes
 * on at the next line. Bounding quotes by the line is what keeps one stray `"` from swallowing
 * the rest of a file into one field (issue 46: 464,709 rows read as 10).
 *
 * Hand-written rather than csv-parse because of speed: csv-parse's sync parser measured
 * 55,600 rows/s of 47-column level-2 rows on this machine, String.split 615,000, and an import
 * must keep up with replay (≥ 95,000 rows/s on two cores). Lines without a quote, which is
 * every line of a numeric vendor file, take String.split; only a line holding a quote is
 * walked field by field.
 */

/** Receives one record: its cells, its line number and its text (for quarantine). */
export type RecordSink = (cells: string[], lineNo: number, raw: string) => void;

/** Receives a line that is no record (a quoted field not closed on its line), with why. */
export type MalformedSink = (lineNo: number, raw: string, reason: string) => void;

/** The quarantine reason of a line whose quoted field runs past the line's end. */
export const UNTERMINATED_QUOTE = 'unterminated quote: a quoted field runs past the end of its line';

/** The quarantine reason of a record with another number of fields than the header. */
export function fieldCountReason(cells: number, header: number): string {
  return `too ${cells > header ? 'many' : 'few'} fields: ${cells}, the header has ${header}`;
}

/**
 * Calls `sink` for each record of `text` and `malformed` for each line that is none; blank
 * lines are skipped. `firstLineNo` is the number of the text's first line. Returns how many
 * blank lines were skipped, so that the caller can check that every line is accounted for.
 */
export function forEachCsvRecord(text: string, delimiter: string, firstLineNo: number, sink: RecordSink, malformed: MalformedSink): number {
  // Two loops rather than one that tracks the next quote: measured, the one loop ran 40× slower
  // (2.2 s a 2 MiB chunk) once V8 re-optimised it for a new sink, on the second call of a worker.
  return text.indexOf('"') === -1 ? splitPlain(text, delimiter, firstLineNo, sink) : splitLines(text, delimiter, firstLineNo, sink, malformed);
}

function splitPlain(text: string, delimiter: string, firstLineNo: number, sink: RecordSink): number {
  let blank = 0;
  let lineNo = firstLineNo;
  for (let start = 0; start < text.length; lineNo++) {
    let nl = text.indexOf('\n', start);
    if (nl === -1) nl = text.length;
    const line = text.charCodeAt(nl - 1) === 13 ? text.slice(start, nl - 1) : text.slice(start, nl);
    start = nl + 1;
    if (line.length === 0) blank++;
    else sink(line.split(delimiter), lineNo, line);
  }
  return blank;
}

/** Like splitPlain, but a line holding a quote is walked field by field. */
function splitLines(text: string, delimiter: string, firstLineNo: number, sink: RecordSink, malformed: MalformedSink): number {
  let blank = 0;
  let lineNo = firstLineNo;
  for (let start = 0; start < text.length; lineNo++) {
    let nl = text.indexOf('\n', start);
    if (nl === -1) nl = text.length;
    const line = text.charCodeAt(nl - 1) === 13 ? text.slice(start, nl - 1) : text.slice(start, nl);
    start = nl + 1;
    if (line.length === 0) {
      blank++;
      continue;
    }
    const cells = line.indexOf('"') === -1 ? line.split(delimiter) : splitQuotedLine(line, delimiter);
    if (cells === null) malformed(lineNo, line, UNTERMINATED_QUOTE);
    else sink(cells, lineNo, line);
  }
  return blank;
}

/** The cells of one line holding a quote, or null when a quoted field is not closed on it. */
function splitQuotedLine(line: string, delimiter: string): string[] | null {
  const n = line.length;
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    // Blanks before an opening quote (`a, "b"`) are a common liberty of hand-written files.
    let k = i;
    while (k < n && line.charCodeAt(k) === 32) k++;
    if (k < n && line.charCodeAt(k) === 34) {
      // Quoted field: up to the closing quote; "" is one quote.
      i = k + 1;
      let from = i;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q === -1) return null;
        if (line.charCodeAt(q + 1) === 34) {
          field += line.slice(from, q + 1);
          i = q + 2;
          from = i;
          continue;
        }
        field += line.slice(from, q);
        i = q + 1;
        break;
      }
    }
    // The unquoted field, or what follows a closing quote, up to the delimiter or the line's end.
    let j = line.indexOf(delimiter, i);
    if (j === -1) j = n;
    cells.push(field + line.slice(i, j));
    if (j === n) return cells;
    i = j + 1;
  }
}

/**
 * Where a buffer of CSV text may be cut: just after its last newline (0 when there is none
 * yet). A line is a record, so no quote can carry a record over a newline.
 */
export function csvCutPoint(buf: Uint8Array): number {
  return buf.lastIndexOf(10) + 1;
}
