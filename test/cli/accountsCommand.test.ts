import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/tempDir.js';

const data = join(tempDir('tickvault-accounts-'), 'data');
const accounts = (...args: string[]) => runCli(['accounts', ...args, '--data-dir', data]);

const add = suite('tickvault accounts add --plan PLAN [--key KEY] [--account ID], as the README documents');

add("--account adds a key to an account; --plan with it must name that account's plan", async () => {
  const created = await accounts('add', '--plan', 'professional');
  assert.is(created.code, 0, created.stderr);
  const list = await accounts('list');
  const row = list.stdout.split('\n')[1]!.split('\t');
  assert.is(row[1], 'professional');
  const id = row[0]!;

  const same = await accounts('add', '--plan', 'professional', '--account', id, '--key', 'second-key-0001');
  assert.is(same.code, 0, same.stderr);
  assert.is(same.stdout, 'second-key-0001\n');
  const plain = await accounts('add', '--account', id);
  assert.is(plain.code, 0, plain.stderr);

  const other = await accounts('add', '--plan', 'flagship', '--account', id);
  assert.is(other.code, 2);
  assert.match(other.stderr, new RegExp(`account ${id} has the professional plan, not flagship`));
  const none = await accounts('add', '--plan', 'professional', '--account', '999');
  assert.is(none.code, 2);
  assert.match(none.stderr, /no account 999/);

  const keys = (await accounts('list')).stdout.trim().split('\n').slice(1);
  assert.is(keys.length, 3, 'three keys, one account');
  assert.ok(
    keys.every((k) => k.startsWith(`${id}\tprofessional\t`)),
    keys.join('\n'),
  );
});

add.run();
