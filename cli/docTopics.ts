/**
 * Where the terminal leads to the documentation: each command's section of the docs (the last
 * line of `tickvault COMMAND --help`) and the topics `tickvault help TOPIC` knows. Paths are
 * relative to the package's root, where the docs ship; test/cli/docTopics.test.ts holds every
 * page and anchor to the docs as they are.
 */

/** A page of the docs, and the heading's anchor within it (GitHub's slug), if any. */
export interface DocPlace {
  readonly page: string;
  readonly anchor?: string;
}

/** The section documenting each command. */
export const COMMAND_DOCS: Readonly<Record<string, DocPlace>> = {
  generate: { page: 'docs/cli.md', anchor: 'the-feed' },
  replay: { page: 'docs/cli.md', anchor: 'the-feed' },
  import: { page: 'docs/cli.md', anchor: 'bringing-history-in' },
  mirror: { page: 'docs/cli.md', anchor: 'mirror-a-service' },
  restate: { page: 'docs/cli.md', anchor: 'correcting-a-day' },
  'prune-versions': { page: 'docs/cli.md', anchor: 'correcting-a-day' },
  seal: { page: 'docs/cli.md', anchor: 'command-line' },
  calendar: { page: 'docs/cli.md', anchor: 'the-trading-calendar' },
  ingest: { page: 'docs/cli.md', anchor: 'kafka-ingest' },
  produce: { page: 'docs/cli.md', anchor: 'kafka-ingest' },
  serve: { page: 'docs/api.md' },
  accounts: { page: 'docs/api.md', anchor: 'plans-and-limits' },
  doctor: { page: 'docs/operations.md', anchor: 'tickvault-doctor' },
  days: { page: 'docs/cli.md', anchor: 'day-status' },
  quarantine: { page: 'docs/cli.md', anchor: 'bringing-history-in' },
  demo: { page: 'README.md', anchor: 'a-five-minute-tour' },
  backup: { page: 'docs/operations.md', anchor: 'backup-and-restore' },
  repair: { page: 'docs/operations.md', anchor: 'repair-a-damaged-file' },
  upload: { page: 'docs/operations.md', anchor: 'running-with-a-store' },
  offload: { page: 'docs/operations.md', anchor: 'running-with-a-store' },
  attach: { page: 'docs/operations.md', anchor: 'another-host-from-the-same-bucket' },
};

/** Topics that are not a command, with a line saying what they cover. */
export const TOPIC_DOCS: Readonly<Record<string, DocPlace & { readonly about: string }>> = {
  api: { page: 'docs/api.md', about: 'every interface, parameter and error, with examples' },
  contract: { page: 'docs/api-contract.md', about: "the rulings where the vendor's interface is silent" },
  mappings: { page: 'docs/import-mappings.md', about: "reading a vendor's CSV: the mapping format" },
  corrections: { page: 'docs/cli.md', anchor: 'correcting-a-day', about: 'correcting a sealed day as a new version' },
  'two-sites': { page: 'docs/operations.md', anchor: 'two-cities-one-service', about: 'several sites serving one API' },
  'shared-state': { page: 'docs/operations.md', anchor: 'several-sites-shared-state-in-postgresql', about: 'accounts and limits in PostgreSQL' },
  disk: { page: 'docs/operations.md', anchor: 'a-full-or-read-only-disk', about: 'what a full or read-only disk does' },
  damage: { page: 'docs/operations.md', anchor: 'damaged-files', about: 'a stored file that is not what the catalog says' },
  metrics: { page: 'docs/operations.md', anchor: 'metrics', about: 'the /metrics list' },
  files: { page: 'docs/architecture.md', anchor: 'files', about: 'what is on disk' },
  duckdb: { page: 'docs/operations.md', anchor: 'reading-the-files-directly', about: 'reading the files with DuckDB or pandas' },
  architecture: { page: 'docs/architecture.md', about: 'the map of the code' },
  benchmarks: { page: 'docs/benchmarks.md', about: 'the figures, with machine and date' },
};

export function placeText(p: DocPlace): string {
  return p.anchor === undefined ? p.page : `${p.page}#${p.anchor}`;
}

/** What `tickvault help TOPIC` prints for a topic that is not a command; null when unknown. */
export function topicText(topic: string, root: string): string | null {
  const place = Object.hasOwn(TOPIC_DOCS, topic) ? TOPIC_DOCS[topic] : undefined;
  if (place === undefined) return null;
  return `${topic}: ${place.about}\n  see ${placeText(place)} (in ${root})`;
}

/** The topics line of `tickvault help`. */
export function topicsLine(): string {
  return `Topics (tickvault help TOPIC): ${Object.keys(TOPIC_DOCS).join(', ')}, or a command's name.`;
}
