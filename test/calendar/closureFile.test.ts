import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ClosureFileError, formatClosureFile, mergeImport, parseClosureFile } from '../../calendar/closureFile.js';
import { installClosures, isTradingDay, knownRange, knownRangeWarning, tradingDaysInRange } from '../../calendar/tradingCalendar.js';

// A test fixture, not the exchanges' 2027 calendar (unpublished when this was written): the
// mechanism is what is tested, with dates whose weekdays are checked by hand below.
// 20270101 Fri, 20270104 Mon, 20270105 Tue; 20270102 Sat; 20280103 Mon.

function parseError(text: string, pattern: RegExp): void {
  try {
    parseClosureFile(text, 'f.txt');
  } catch (e) {
    assert.instance(e, ClosureFileError);
    assert.match((e as Error).message, pattern);
    return;
  }
  assert.unreachable(`accepted ${JSON.stringify(text)}`);
}

const parse = suite('parseClosureFile');

parse('dates, blank lines and # comments (whole line or trailing)', () => {
  const r = parseClosureFile('# 2027 closures\n\n20270105\n20270101  # New Year\r\n   \n20270104\n', 'f.txt');
  assert.equal(r.closures, ['20270101', '20270104', '20270105']);
  assert.equal(r.years, [2027]);
});

parse('each bad line is named by file and line number', () => {
  parseError('20270101\n2027-01-04\n', /^f\.txt:2: expected one date YYYYMMDD, got "2027-01-04"$/);
  parseError('20270101\n\n20270230\n', /^f\.txt:3: 20270230 is not a real date$/);
  parseError('# x\n20270102\n', /^f\.txt:2: 20270102 is a weekend day/);
  parseError('20270101\n20270104\n20270101 # again\n', /^f\.txt:3: 20270101 is listed twice \(first on line 1\)$/);
  parseError('20140101\n', /^f\.txt:1: 20140101 is before the calendar's first day 20150101$/);
  parseError('20270101 20270104\n', /^f\.txt:1: expected one date/);
  parseError('# nothing\n\n', /^f\.txt: no closure dates/);
});

parse.run();

const merge = suite('mergeImport');
const shipped = { last: '20261231', imported: null };
const y2027 = parseClosureFile('20270101\n20270104\n', 'a.txt');

merge('a new year right after the known range extends it', () => {
  assert.equal(mergeImport(shipped, y2027, false, 'a.txt'), { years: [2027], closures: ['20270101', '20270104'] });
});

merge('a known year needs --replace; with it the file replaces that year only', () => {
  assert.throws(
    () => mergeImport(shipped, parseClosureFile('20260102\n', 'b.txt'), false, 'b.txt'),
    /b\.txt: 2026 is already known \(the calendar runs through 20261231\); pass --replace/,
  );
  const known = { last: '20271231', imported: { years: [2027], closures: ['20270101', '20270104'] } };
  assert.throws(() => mergeImport(known, y2027, false, 'a.txt'), /2027 is already known/);
  const replaced = mergeImport(known, parseClosureFile('20270105\n20280103\n', 'c.txt'), true, 'c.txt');
  assert.equal(replaced, { years: [2027, 2028], closures: ['20270105', '20280103'] });
});

merge('a year skipped is refused: its holidays would count as trading days', () => {
  assert.throws(() => mergeImport(shipped, parseClosureFile('20280103\n', 'd.txt'), false, 'd.txt'), /d\.txt: names 2028 but not 2027/);
});

merge('the stored text reads back to the same extension', () => {
  const ext = { years: [2027, 2028], closures: ['20270101', '20270104', '20280103'] };
  const text = formatClosureFile(ext, ['header']);
  const back = parseClosureFile(text, 'stored');
  assert.equal({ years: back.years, closures: back.closures }, ext);
});

merge.run();

const install = suite('installClosures: the effective calendar');

install('an extension makes its closures holidays and moves the known range; null restores the shipped list', () => {
  try {
    assert.ok(isTradingDay('20270101'), 'outside the shipped range a weekday counts');
    assert.equal(knownRange(), { first: '20150101', last: '20261231' });
    installClosures({ years: [2027], closures: ['20270101', '20270104'] });
    assert.equal(knownRange(), { first: '20150101', last: '20271231' });
    assert.not.ok(isTradingDay('20270101'));
    assert.equal(tradingDaysInRange('20261230', '20270106'), ['20261230', '20261231', '20270105', '20270106']);
  } finally {
    installClosures(null);
  }
  assert.ok(isTradingDay('20270101'));
  assert.equal(knownRange().last, '20261231');
});

install('replacing a shipped year drops its shipped closures', () => {
  try {
    installClosures({ years: [2026], closures: ['20260102'] });
    assert.ok(isTradingDay('20260101'), 'the shipped closure of 2026-01-01 is replaced');
    assert.not.ok(isTradingDay('20260102'));
    assert.equal(knownRange().last, '20261231');
  } finally {
    installClosures(null);
  }
  assert.not.ok(isTradingDay('20260101'));
});

install('a bad extension throws and leaves the calendar as it was', () => {
  assert.throws(() => installClosures({ years: [2027], closures: ['20270102'] }), /20270102/);
  assert.equal(knownRange().last, '20261231');
});

install('knownRangeWarning: 30 days ahead of the end, and past it', () => {
  const at = (iso: string) => Date.parse(iso);
  assert.is(knownRangeWarning(at('2026-11-30T12:00:00+08:00')), null, '31 days left');
  assert.match(knownRangeWarning(at('2026-12-01T12:00:00+08:00')) ?? '', /known only through 20261231 \(30 days left\).*calendar import/);
  assert.match(knownRangeWarning(at('2027-01-04T09:00:00+08:00')) ?? '', /today \(20270104\) is past it/);
  try {
    installClosures({ years: [2027], closures: ['20270101'] });
    assert.is(knownRangeWarning(at('2026-12-01T12:00:00+08:00')), null);
  } finally {
    installClosures(null);
  }
});

install.run();
