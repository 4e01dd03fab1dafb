import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { csvCutPoint, forEachCsvRecord, UNTERMINATED_QUOTE } from '../../../ingest/import/csvRecords.js';

type Seen = [string[], number, string] | ['malformed', number, string, string];

const records = (text: string, delimiter = ',', first = 1): Seen[] => {
  const out: Seen[] = [];
  forEachCsvRecord(
    text,
    delimiter,
    first,
    (cells, lineNo, raw) => out.push([cells, lineNo, raw]),
    (lineNo, raw, reason) => out.push(['malformed', lineNo, raw, reason]),
  );
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

t('quoted cells: delimiters and doubled quotes inside, blanks before the quote, a trailing empty cell', () => {
  const text = 'sym,note\n"600000.SH","a, ""b"""\r\nlast, "q",\n';
  assert.equal(records(text), [
    [['sym', 'note'], 1, 'sym,note'],
    [['600000.SH', 'a, "b"'], 2, '"600000.SH","a, ""b"""'],
    [['last', 'q', ''], 3, 'last, "q",'],
  ]);
});

t('a line is a record: a quote not closed on its line makes that line malformed, and the next line is read', () => {
  const text = ['h1,h2,h3', 'a,b,c', 'd,"e,f', 'g,h,i', '"j""k,l,m', 'n,o,"p"', '"two', 'lines",q,r', 's,t,u', ''].join('\n');
  assert.equal(records(text), [
    [['h1', 'h2', 'h3'], 1, 'h1,h2,h3'],
    [['a', 'b', 'c'], 2, 'a,b,c'],
    ['malformed', 3, 'd,"e,f', UNTERMINATED_QUOTE],
    [['g', 'h', 'i'], 4, 'g,h,i'],
    ['malformed', 5, '"j""k,l,m', UNTERMINATED_QUOTE],
    [['n', 'o', 'p'], 6, 'n,o,"p"'],
    ['malformed', 7, '"two', UNTERMINATED_QUOTE],
    // The closing half of a would-be multi-line field: a quote inside a field is text.
    [['lines"', 'q', 'r'], 8, 'lines",q,r'],
    [['s', 't', 'u'], 9, 's,t,u'],
  ]);
});

t('the number of blank lines skipped is returned: with the records, every line is accounted for', () => {
  let n = 0;
  const blank = forEachCsvRecord(
    'a\n\n\r\nb\n"c\n\nd',
    ',',
    1,
    () => n++,
    () => n++,
  );
  assert.is(blank, 3);
  assert.is(n, 4);
});

t('csvCutPoint: after the last newline, quotes or not (a line is a record); 0 when none', () => {
  const enc = (s: string) => Buffer.from(s);
  assert.is(csvCutPoint(enc('a,b\nc,d\ne')), 8);
  assert.is(csvCutPoint(enc('a,"b\nc",d\ne,"f\ng')), 15);
  assert.is(csvCutPoint(enc('"a\nb')), 3);
  assert.is(csvCutPoint(enc('no newline')), 0);
});

t.run();
