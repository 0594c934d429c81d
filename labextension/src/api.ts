/**
 * The REST API of the biopb-kernel-docs server extension, and the values it returns.
 *
 * Every value is the JSON of a frozen value of `biopb_kernel_docs/core/values.py`: the panel reads
 * fields, it never parses the agent's text.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

/** The jupyter_events schema the server extension emits on every change of the store. */
export const CHANGED_SCHEMA = 'https://biopb.org/schemas/kernel-docs/changed';

export type Tier = 'shipped' | 'local';
export type Marker = 'missing' | 'local copy';

export interface IIndexEntry {
  id: string;
  hook: string;
  heading: string | null;
  line: number;
  marker: Marker | null;
  collection: boolean;
}

export interface ITailItem {
  id: string;
  description: string;
}

/** What a host with a bounded `instructions` field receives of the index. */
export interface IHandshake {
  budget: number;
  text: string;
  length: number;
  left_out: string[];
}

export interface IIndexView {
  type: 'IndexView';
  text: string;
  sha256: string;
  updated: string;
  path: string;
  tier: Tier;
  entries: IIndexEntry[];
  headings: string[];
  ignored: string[];
  new_shipped: ITailItem[];
  stale: ITailItem[];
  entry_cap: number;
  notices: string[];
  handshake: IHandshake;
}

export interface IDocView {
  type: 'DocView';
  id: string;
  tier: Tier;
  title: string;
  description: string;
  updated: string;
  shadows_shipped: boolean;
  sha256: string;
  text: string;
  body: string;
  frontmatter: [string, string][];
  links: string[];
  path: string;
  /** How many headings it has (each a section the viewer can open at). */
  sections: number;
}

/** One heading of a doc and the section it opens (lines are the file's, 1-based). */
export interface IOutlineEntry {
  level: number;
  title: string;
  path: string[];
  /** What follows `#` in a read of exactly this section: `Steps/Confirm input`, `Example[2]`. */
  anchor: string;
  line: number;
  end: number;
  line_count: number;
}

/** `docs/<id>%23<heading>`: one section of a doc, and where it sits in the outline. */
export interface ISectionView {
  type: 'SectionView';
  id: string;
  title: string;
  sha256: string;
  section: IOutlineEntry;
  /** 1-based place of the section among the doc's headings. */
  position: number;
  of: number;
  text: string;
}

export interface ISearchLine {
  line: number;
  text: string;
  /** [start, end) of each match in `text`. */
  spans: [number, number][];
}

export interface ISearchGroup {
  id: string;
  path: string[];
  /** What follows `#` to read that section; null: the lines sit before any heading. */
  anchor: string | null;
  section_line: number | null;
  lines: ISearchLine[];
}

export interface ISearchResult {
  type: 'SearchResult';
  query: string;
  regex: boolean;
  case_sensitive: boolean;
  docs_searched: number;
  groups: ISearchGroup[];
  matching_lines: number;
  matching_docs: number;
  more_lines: number;
  more_docs: number;
  counted_all: boolean;
  skipped: [string, string][];
}

/** Who made a version; `label` is the server's words for it (`claude-code 2.1 via MCP`). */
export interface IAuthor {
  surface: string;
  name: string | null;
  version: string | null;
  where: string | null;
  label: string;
}

export interface IVersionInfo {
  number: number;
  /** Seconds since the epoch. */
  time: number;
  author: IAuthor;
  before_sha256: string | null;
  after_sha256: string | null;
  added: number;
  removed: number;
  lines: number;
  size: number;
  /** False: the text alone was over the byte bound, so only who and when are kept. */
  kept: boolean;
  local: boolean;
  restores: number | null;
  current: boolean;
}

export interface IHistoryView {
  type: 'HistoryView';
  id: string;
  versions: IVersionInfo[];
  /** Of the current text: a restore's `if_match`. */
  sha256: string | null;
  enabled: boolean;
  /** The bounds in words ("at most 100 versions and 2 MiB per doc are kept, ..."). */
  bounds: string;
}

export interface IVersionDiffView {
  type: 'VersionDiffView';
  id: string;
  older: number;
  newer: number | null;
  older_text: string;
  newer_text: string;
}

export interface IDiffView {
  type: 'DiffView';
  id: string;
  local_sha256: string;
  shipped_sha256: string;
  local_text: string;
  shipped_text: string;
  diff: string;
}

export interface IFileChange {
  id: string;
  before: string | null;
  after: string;
  before_sha256: string | null;
  after_sha256: string;
  base_tier: Tier | null;
  version?: number | null;
}

export interface IWriteResult {
  type: 'WriteResult';
  id: string;
  outcome: 'created' | 'shadowed' | 'updated' | 'unchanged' | 'removed';
  filed_under: string | null;
  already_listed: boolean;
  changes: IFileChange[];
  diffs?: string[];
  /** The version a restore put back. */
  restored?: number | null;
}

export interface IHunk {
  index: number;
  /** `@@ -<first line>,<count> +<first line>,<count> @@`, 1-based, counting changed lines only. */
  header: string;
  lines: string[];
  /** The versions that made it (empty: before history was kept). */
  versions: number[];
}

/** What the panel offers for a review item. */
export type ReviewAction = 'looks_good' | 'revert' | 'retire' | 'drop';

export interface IReviewItem {
  id: string;
  sha256: string;
  base: 'reviewed' | 'shipped' | 'new';
  hunks: IHunk[];
  /** Who changed it and when: the versions its hunks came from, newest first. */
  changes: IVersionInfo[];
  actions: ReviewAction[];
  same_as_shipped: boolean;
  /** The text the hunks are against (null: a new doc) and the current text, from one reading. */
  baseline: string | null;
  text: string;
}

export interface IReviewView {
  type: 'ReviewView';
  items: IReviewItem[];
}

export interface IConnectInfo {
  claude: string;
  json: Record<string, unknown>;
  connection_file: string;
}

/** The changed event, as the event stream delivers it (its data fields beside `schema_id`). */
export interface IChangedEvent {
  schema_id: string;
  what: 'index' | 'doc';
  ids: string[];
  index_sha256: string;
}

/**
 * A refusal of the API (its `message` is product copy, phrased for the panel), or the
 * server extension missing altogether (`kind` is `"no-extension"`).
 */
export class DocsAPIError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly kind: string
  ) {
    super(message);
    this.name = 'DocsAPIError';
  }

  get stale(): boolean {
    return this.status === 409;
  }
}

export const NO_EXTENSION =
  'The biopb-kernel-docs server extension is not running in this Jupyter server, so the panel ' +
  'has nothing to show. Install biopb-kernel-docs in the environment JupyterLab runs from, check ' +
  '`jupyter server extension list` shows biopb_kernel_docs enabled, and restart JupyterLab.';

/** The sha256 of the doc a write left behind: the next write's `if_match`. */
export function writtenSha(result: IWriteResult): string | null {
  return result.changes.length ? result.changes[0].after_sha256 : null;
}

/** A doc id as a path of the API: its `/` separators stay, everything else is escaped. */
export function docPath(id: string): string {
  return id.split('/').map(encodeURIComponent).join('/');
}

/**
 * Call the API at `{base_url}biopb-kernel-docs/api/<endPoint>`; the XSRF token and the
 * authorization of the page go with it (ServerConnection.makeRequest).
 */
export async function requestAPI<T>(
  endPoint: string,
  init: RequestInit = {},
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<T> {
  const url = URLExt.join(settings.baseUrl, 'biopb-kernel-docs', 'api', endPoint);
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, init, settings);
  } catch (error) {
    throw new DocsAPIError(
      `The Jupyter server did not answer (${String(error)}). Check that JupyterLab is still running, then refresh.`,
      0,
      'network'
    );
  }
  const text = await response.text();
  let data: any = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (response.ok) {
    return data as T;
  }
  if (data && typeof data.message === 'string') {
    throw new DocsAPIError(data.message, response.status, String(data.kind ?? 'error'));
  }
  if (response.status === 404) {
    // tornado's own 404 page, not a refusal of ours: the route is not registered.
    throw new DocsAPIError(NO_EXTENSION, 404, 'no-extension');
  }
  throw new DocsAPIError(
    `The docs API answered ${response.status} ${response.statusText} without an explanation; the ` +
      'Jupyter server log has the details.',
    response.status,
    'error'
  );
}

function post<T>(name: string, args: Record<string, unknown>): Promise<T> {
  return requestAPI<T>(`ops/${name}`, { method: 'POST', body: JSON.stringify(args) });
}

/** The calls the panel makes, one per route of the contract. */
export const api = {
  index: (): Promise<IIndexView> => requestAPI<IIndexView>('index'),
  doc: (id: string): Promise<IDocView> => requestAPI<IDocView>(`docs/${docPath(id)}`),
  diff: (id: string): Promise<IDiffView> => requestAPI<IDiffView>(`docs/${docPath(id)}@diff`),
  write: (id: string, body: string, ifMatch: string | null): Promise<IWriteResult> =>
    requestAPI<IWriteResult>(`docs/${docPath(id)}`, {
      method: 'PUT',
      body: JSON.stringify(ifMatch ? { body, if_match: ifMatch } : { body })
    }),
  fileDoc: (id: string, heading: string, ifMatch: string): Promise<IWriteResult> =>
    post<IWriteResult>('file_doc', { id, heading, if_match: ifMatch }),
  ignoreDoc: (id: string, ifMatch: string): Promise<IWriteResult> =>
    post<IWriteResult>('ignore_doc', { id, if_match: ifMatch }),
  review: (): Promise<IReviewView> => requestAPI<IReviewView>('review'),
  markReviewed: (id: string, sha: string, hunk?: number): Promise<IReviewView> =>
    post<IReviewView>('mark_reviewed', hunk === undefined ? { id, sha } : { id, sha, hunk }),
  revertHunk: (id: string, hunk: number, ifMatch: string): Promise<IWriteResult> =>
    post<IWriteResult>('revert_hunk', { id, hunk, if_match: ifMatch }),
  /** One section of a doc; `anchor` is what follows `#` (`Steps/Confirm input`). */
  section: (id: string, anchor: string): Promise<ISectionView> =>
    requestAPI<ISectionView>(`docs/${docPath(`${id}#${anchor}`)}`),
  search: (query: string, regex: boolean): Promise<ISearchResult> =>
    requestAPI<ISearchResult>(`search?q=${encodeURIComponent(query)}&regex=${regex ? 1 : 0}`),
  history: (id: string): Promise<IHistoryView> => requestAPI<IHistoryView>(`docs/${docPath(id)}@history`),
  diffVersions: (id: string, older: number, newer: number | null): Promise<IVersionDiffView> =>
    post<IVersionDiffView>('diff_versions', newer === null ? { id, older } : { id, older, newer }),
  /** Write `version` back; `ifMatch` is the sha256 the history was read with (null: no doc now). */
  restore: (id: string, version: number, ifMatch: string | null): Promise<IWriteResult> =>
    post<IWriteResult>('restore_doc', ifMatch ? { id, version, if_match: ifMatch } : { id, version }),
  /** Remove a doc's index line; `ifMatch` is the index's sha256. */
  retire: (id: string, ifMatch: string): Promise<IWriteResult> =>
    post<IWriteResult>('retire_doc', { id, if_match: ifMatch }),
  /** Remove a local copy equal to the shipped text; `ifMatch` is the copy's sha256. */
  dropLocalCopy: (id: string, ifMatch: string): Promise<IWriteResult> =>
    post<IWriteResult>('drop_local_copy', { id, if_match: ifMatch }),
  connect: (kernelId: string): Promise<IConnectInfo> =>
    requestAPI<IConnectInfo>(`connect?kernel_id=${encodeURIComponent(kernelId)}`)
};
