/**
 * What `tickvault COMMAND --help` says of one option: its meaning, default and environment
 * variable. Every flag a command parses has one (test/cli/help.test.ts checks both ways).
 */
import { OPTIONS, type OptionSpec } from '../shared/config.js';

export interface OptionDoc {
  /** Flag without dashes. */
  readonly flag: string;
  /** Placeholder of its value (`N`, `FILE`); omitted for a boolean switch. */
  readonly value?: string;
  readonly help: string;
  /** The default as shown; omitted when there is none. */
  readonly default?: string;
  readonly env?: string;
}

/** The doc of an option that has an OptionSpec (flags, env and default come from one place). */
export function docOf<T>(spec: OptionSpec<T>, value = spec.value ?? 'VALUE', defaultText = spec.defaultText): OptionDoc {
  const text = defaultText ?? (spec.defaultValue === null ? '' : String(spec.defaultValue));
  const shown = text === '' ? undefined : text;
  return { flag: spec.flag, value, help: spec.help, ...(shown === undefined ? {} : { default: shown }), ...(spec.env ? { env: spec.env } : {}) };
}

/** Options every command takes. */
export const COMMON_DOCS: readonly OptionDoc[] = [
  docOf(OPTIONS.dataDir, 'DIR'),
  docOf(OPTIONS.logLevel, 'LEVEL'),
  docOf(OPTIONS.progress, 'auto|on|off'),
  docOf(OPTIONS.now, 'ISO-INSTANT', 'the system clock'),
  { flag: 'help', help: 'show this help and exit' },
];

function formatDocs(docs: readonly OptionDoc[]): string[] {
  const heads = docs.map((d) => `  --${d.flag}${d.value ? ` ${d.value}` : ''}`);
  const width = Math.max(...heads.map((h) => h.length)) + 2;
  return docs.map((d, i) => {
    const extra = [d.default !== undefined ? `default ${d.default}` : '', d.env ? `env ${d.env}` : ''].filter((x) => x !== '');
    return `${heads[i]!.padEnd(width)}${d.help}${extra.length > 0 ? ` [${extra.join('; ')}]` : ''}`;
  });
}

/** The full `--help` text of a command. */
export function formatHelp(usage: string, summary: string, docs: readonly OptionDoc[]): string {
  const lines = [`usage: ${usage}`, '', summary, ''];
  if (docs.length > 0) lines.push('options:', ...formatDocs(docs), '');
  lines.push('options of every command:', ...formatDocs(COMMON_DOCS), '');
  lines.push('Flags win over environment variables, which win over defaults. Bad arguments exit 2, failures exit 1.');
  return lines.join('\n');
}
