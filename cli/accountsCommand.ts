/**
 * `tickvault accounts add|list|revoke`: account and key management in the state store
 * (service.db, or PostgreSQL with --state-url). `add` prints the new key alone on stdout (it
 * is shown only this once: the store keeps a hash). `--account ID` adds another key to an existing account, sharing its plan, limits
 * and request slot.
 */
import { mkdirSync } from 'node:fs';
import { layoutFor } from '../storage/layout.js';
import { DuplicateKeyError, validKeyText } from '../serve/access/accounts.js';
import { isPlanName, PLAN_NAMES } from '../serve/access/plans.js';
import { openStateStore } from '../serve/access/openState.js';
import { resolveOption, STATE_URL_OPTION } from '../shared/config.js';
import { docOf } from './helpText.js';
import { UsageError, type Command } from './command.js';

const USAGE = 'tickvault accounts add --plan PLAN [--key KEY] [--account ID] | accounts list | accounts revoke --key KEY  [--state-url URL]';

export const accountsCommand: Command = {
  name: 'accounts',
  summary: 'create accounts and API keys (--account: another key of an existing account), list them, revoke keys',
  usage: USAGE,
  options: { plan: { type: 'string' }, key: { type: 'string' }, account: { type: 'string' }, [STATE_URL_OPTION.flag]: { type: 'string' } },
  help: [
    { flag: 'plan', value: 'PLAN', help: `add: the new account's plan (${PLAN_NAMES.join(', ')}); with --account it must match that account's plan` },
    { flag: 'key', value: 'KEY', help: 'add: use this key (8-200 of A-Z a-z 0-9 _ - . ~) instead of a random one; revoke: the key to revoke' },
    { flag: 'account', value: 'ID', help: 'add: add another key to this existing account' },
    docOf(STATE_URL_OPTION, 'URL', 'service.db in the data directory'),
  ],
  positionals: 'any',
  async run(ctx) {
    const [sub, ...extra] = ctx.positionals;
    if (sub === undefined) throw new UsageError(`a subcommand is required: ${USAGE}`);
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
    const flag = (name: string): string | undefined => {
      const v = ctx.flags[name];
      return typeof v === 'string' ? v : undefined;
    };
    const allow = (...names: string[]) => {
      for (const n of ['plan', 'key', 'account']) {
        if (!names.includes(n) && ctx.flags[n] !== undefined) throw new UsageError(`--${n} does not apply to "accounts ${sub}"`);
      }
    };
    const stateUrl = resolveOption(STATE_URL_OPTION, ctx.flags, ctx.env);
    const layout = layoutFor(ctx.config.dataDir);
    if (stateUrl === '') mkdirSync(layout.dataDir, { recursive: true });
    const store = await openStateStore({ url: stateUrl, dataDir: layout.dataDir, durable: true });
    const now = ctx.config.clock.nowMs();
    try {
      switch (sub) {
        case 'add': {
          allow('plan', 'key', 'account');
          const key = flag('key');
          if (key !== undefined && !validKeyText(key)) {
            throw new UsageError('--key must be 8 to 200 characters from A-Z a-z 0-9 _ - . ~');
          }
          const accountText = flag('account');
          const plan = flag('plan');
          try {
            if (accountText !== undefined) {
              if (!/^\d+$/.test(accountText)) throw new UsageError(`--account must be an account id, got "${accountText}"`);
              // A new key shares its account's plan; --plan with --account is a check of it.
              const account = (await store.listAccounts()).find((a) => a.id === Number(accountText));
              if (account === undefined) throw new UsageError(`no account ${accountText}`);
              if (plan !== undefined && plan !== account.plan) {
                throw new UsageError(`account ${accountText} has the ${account.plan} plan, not ${plan} (a new key shares its account's plan)`);
              }
              const added = await store.addKey(Number(accountText), now, key);
              if (added === null) throw new UsageError(`no account ${accountText}`);
              ctx.log.info({ account: Number(accountText) }, 'key added');
              ctx.out(added);
            } else {
              if (plan === undefined) throw new UsageError(`--plan is required (${PLAN_NAMES.join(', ')})`);
              if (!isPlanName(plan)) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}, got "${plan}"`);
              const created = await store.createAccount(plan, now, key);
              ctx.log.info({ account: created.id, plan }, 'account created');
              ctx.out(created.key);
            }
          } catch (e) {
            if (e instanceof DuplicateKeyError) throw new UsageError('--key is already registered');
            throw e;
          }
          return 0;
        }
        case 'list': {
          allow();
          ctx.out(['account', 'plan', 'key', 'status', 'created'].join('\t'));
          for (const a of await store.listAccounts()) {
            for (const k of a.keys) {
              const status = k.revokedAtMs === null ? 'active' : `revoked ${new Date(k.revokedAtMs).toISOString()}`;
              ctx.out([a.id, a.plan, k.hint, status, new Date(k.createdAtMs).toISOString()].join('\t'));
            }
          }
          return 0;
        }
        case 'revoke': {
          allow('key');
          const key = flag('key');
          if (key === undefined) throw new UsageError('--key is required');
          if (!(await store.revokeKey(key, now))) throw new UsageError('no active key matches --key');
          ctx.out('revoked');
          return 0;
        }
        default:
          throw new UsageError(`unknown subcommand "${sub}": ${USAGE}`);
      }
    } finally {
      await store.close();
    }
  },
};
