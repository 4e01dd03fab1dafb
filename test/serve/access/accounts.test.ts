import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { AccountStore, hashKey } from '../../../serve/access/accounts.js';
import { openServiceDb } from '../../../serve/access/serviceDb.js';
import { PLANS } from '../../../serve/access/plans.js';
import { runCli } from '../../support/cli.js';
import { tempDir } from '../../support/tempDir.js';

const store = suite('account store');

store('keys authenticate to their account and plan, several keys share one account', () => {
  const db = openServiceDb(join(tempDir(), 'service.db'));
  const s = new AccountStore(db);
  const a = s.create('professional', 1);
  assert.match(a.key, /^tv_[A-Za-z0-9_-]{43}$/);
  const second = s.addKey(a.id, 2)!;
  assert.equal(s.authenticate(a.key), { id: a.id, plan: PLANS.professional });
  assert.equal(s.authenticate(second), { id: a.id, plan: PLANS.professional });
  assert.is(s.authenticate('tv_nope'), null);
  assert.is(s.addKey(999, 3), null);
  assert.ok(s.revoke(a.key, 4));
  assert.is(s.revoke(a.key, 5), false, 'already revoked');
  assert.is(s.authenticate(a.key), null, 'revoked');
  assert.ok(s.authenticate(second), 'the other key still works');
  db.close();
});

store('only hashes reach the database files', () => {
  const dir = tempDir();
  const db = openServiceDb(join(dir, 'service.db'), { durable: true });
  const s = new AccountStore(db);
  const keys = [s.create('flagship', 1).key, s.create('trial', 1, 'my-own-chosen-key-123').key];
  const stored = db.prepare('SELECT key_hash FROM api_keys ORDER BY key_hash').pluck().all() as string[];
  assert.equal(stored, keys.map(hashKey).sort());
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  for (const f of readdirSync(dir)) {
    const bytes = readFileSync(join(dir, f)).toString('latin1');
    for (const k of keys) assert.not.ok(bytes.includes(k), `${f} holds a key in clear`);
  }
});

const cli = suite('tickvault accounts');

cli('add prints the key alone on stdout; list shows accounts without keys; revoke', async () => {
  const dataDir = tempDir();
  const add = await runCli(['accounts', 'add', '--plan', 'weekly-card', '--data-dir', dataDir]);
  assert.is(add.code, 0, add.stderr);
  assert.match(add.stdout, /^tv_[A-Za-z0-9_-]{43}\n$/);
  const key = add.stdout.trim();
  const chosen = await runCli(['accounts', 'add', '--plan', 'trial', '--key', 'chosen-key-0001', '--data-dir', dataDir]);
  assert.is(chosen.stdout, 'chosen-key-0001\n');
  const extra = await runCli(['accounts', 'add', '--account', '1', '--data-dir', dataDir]);
  assert.is(extra.code, 0, extra.stderr);
  const list = await runCli(['accounts', 'list', '--data-dir', dataDir]);
  assert.is(list.code, 0);
  const lines = list.stdout.trim().split('\n');
  assert.is(lines[0], 'account\tplan\tkey\tstatus\tcreated');
  assert.is(lines.length, 4);
  assert.match(lines[1], /^1\tweekly-card\ttv_\S{4}…\tactive\t/);
  assert.match(lines[3], /^2\ttrial\tchosen-…\tactive\t/);
  assert.not.ok(list.stdout.includes(key), 'list never shows a key');
  const revoke = await runCli(['accounts', 'revoke', '--key', key, '--data-dir', dataDir]);
  assert.is(revoke.code, 0);
  const after = await runCli(['accounts', 'list', '--data-dir', dataDir]);
  assert.match(after.stdout.split('\n')[1], /\trevoked \d{4}-/);
});

cli('bad arguments exit 2 with a one-line reason', async () => {
  const dataDir = tempDir();
  const cases: [string[], RegExp][] = [
    [['accounts'], /a subcommand is required/],
    [['accounts', 'add'], /--plan is required/],
    [['accounts', 'add', '--plan', 'gold'], /--plan must be one of free, standard, trial, professional, weekly-card, flagship/],
    [['accounts', 'add', '--plan', 'trial', '--key', 'short'], /--key must be 8 to 200 characters/],
    [['accounts', 'add', '--account', '42'], /no account 42/],
    [['accounts', 'revoke'], /--key is required/],
    [['accounts', 'revoke', '--key', 'not-a-known-key'], /no active key matches/],
    [['accounts', 'list', '--plan', 'trial'], /--plan does not apply/],
    [['accounts', 'remove'], /unknown subcommand "remove"/],
  ];
  for (const [args, reason] of cases) {
    const r = await runCli([...args, '--data-dir', dataDir]);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, reason);
    assert.is(r.stderr.trim().split('\n').length, 1);
    assert.is(r.stdout, '');
  }
  await runCli(['accounts', 'add', '--plan', 'trial', '--key', 'duplicate-key', '--data-dir', dataDir]);
  const dup = await runCli(['accounts', 'add', '--plan', 'trial', '--key', 'duplicate-key', '--data-dir', dataDir]);
  assert.is(dup.code, 2);
  assert.match(dup.stderr, /already registered/);
});

store.run();
cli.run();
