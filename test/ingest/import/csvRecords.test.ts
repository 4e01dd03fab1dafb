import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { csvCutPoint, forEachCsvRecord } from '../../../ingest/import/csvRecords.js';

const records = (text: string, delimiter = ',', first = 1) => {
  const out: [string[], number, string][] = [];
  forEachCsvRecord(text, delimiter, first, (cells, lineNo, raw) => out.push([cells, lineNo, raw]));
  return out;
};

const t = suite('CSV records');

t('plain lines: cells by delimiter, CRLF and blank lines, line numbers from the first', () => {
  assert.equal(records('a,b,c\r\n\r\n1,,3\n4,5,6', ',', 10), [
    [['a', 'b', 'c'], 10, 'a,b,c'],
    [['1', '', '3'], 12, '1,,3'],
    [['4', '5', '6'], 13, '4,5,6'],
  ]);
  assert.equal(records('x\ty\n', '\t'), [[['x', 'y'], 1, 'x\ty']]);
});

t('quoted cells: delimiters, doubled quotes and newlines inside; a record spanning lines keeps its first line number', () => {
  const text = 'sym,note\n"600000.SH","a, ""b"""\n"x","two\nlines"\r\nlast,"q"\n';
  assert.equal(records(text), [
    [['sym', 'note'], 1, 'sym,note'],
    [['600000.SH', 'a, "b"'], 2, '"600000.SH","a, ""b"""'],
    [['x', 'two\nlines'], 3, '"x","two\nlines"'],
    [['last', 'q'], 5, 'last,"q"'],
  ]);
});

t('csvCutPoint: after the last newline outside quotes, 0 when none', () => {
  const enc = (s: string) => Buffer.from(s);
  assert.is(csvCutPoint(enc('a,b\nc,d\ne')), 8);
  assert.is(csvCutPoint(enc('a,"b\nc",d\ne,"f\ng')), 10);
  assert.is(csvCutPoint(enc('"a\nb')), 0);
  assert.is(csvCutPoint(enc('no newline')), 0);
});

t.run();
