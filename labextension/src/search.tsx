/**
 * The panel's search box (§7's search_docs): literal and case-insensitive unless the query has an
 * upper-case letter, or an RE2 pattern; results grouped by doc and section, grep-shaped, each
 * group opening the doc at its section. It searches what the agent's search_docs does: the docs
 * the index lists, those under its collections, and the index itself.
 */
import * as React from 'react';

import { api, ISearchGroup, ISearchLine, ISearchResult } from './api';
import { asAPIError } from './model';

/** A line with its matches marked. */
function MarkedLine({ line }: { line: ISearchLine }): React.ReactElement {
  const parts: React.ReactNode[] = [];
  let at = 0;
  line.spans.forEach(([start, end], n) => {
    parts.push(line.text.slice(at, start));
    parts.push(<mark key={n}>{line.text.slice(start, end)}</mark>);
    at = end;
  });
  parts.push(line.text.slice(at));
  return (
    <li className="jp-biopbDocs-SearchLine">
      <span className="jp-biopbDocs-LineNumber">L{line.line}</span>
      <span className="jp-biopbDocs-SearchText">{parts}</span>
    </li>
  );
}

function where(group: ISearchGroup): string {
  return group.path.length ? `\u00a7 ${group.path.join(' \u203a ')}` : '';
}

function Group(props: {
  group: ISearchGroup;
  open: (id: string, section: string | null) => void;
}): React.ReactElement {
  const { group, open } = props;
  const label = group.id === 'index' ? 'index.md' : group.id;
  return (
    <li className="jp-biopbDocs-SearchGroup" data-doc-id={group.id}>
      <button
        className="jp-biopbDocs-Link jp-biopbDocs-SearchTarget"
        onClick={() => open(group.id, group.anchor)}
        title={group.anchor ? `Open ${label} at its section ${group.anchor}` : `Open ${label}`}
      >
        <span className="jp-biopbDocs-EntryId">{label}</span>
        <span className="jp-biopbDocs-Hook">{where(group)}</span>
      </button>
      <ul className="jp-biopbDocs-SearchLines">
        {group.lines.map(line => (
          <MarkedLine key={line.line} line={line} />
        ))}
      </ul>
    </li>
  );
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

function Summary({ result }: { result: ISearchResult }): React.ReactElement {
  const searched = plural(result.docs_searched, 'doc');
  const skipped = result.skipped.length
    ? ` ${plural(result.skipped.length, 'file')} could not be searched: ${result.skipped.map(([id, why]) => `${id} (${why})`).join(', ')}.`
    : '';
  if (!result.groups.length) {
    return (
      <p className="jp-biopbDocs-Empty" role="status">
        No line matches in the {searched} searched.{skipped}
      </p>
    );
  }
  const atLeast = result.counted_all ? '' : 'At least ';
  const elsewhere = result.more_docs ? ` in ${plural(result.more_docs, 'more doc')}` : '';
  const more = result.more_lines
    ? ` ${atLeast}${plural(result.more_lines, 'more match', 'more matches')}${elsewhere} not shown: narrow the query.`
    : '';
  const found = `${plural(result.matching_lines, 'matching line')} in ${plural(result.matching_docs, 'doc')}`;
  return (
    <p className="jp-biopbDocs-Note" role="status">
      {atLeast ? `${atLeast}${found}` : found[0].toUpperCase() + found.slice(1)} of the {searched} searched
      {result.case_sensitive ? ' (case-sensitive: the query has an upper-case letter)' : ''}.{more}
      {skipped}
    </p>
  );
}

export function SearchBox(props: { open: (id: string, section: string | null) => void }): React.ReactElement {
  const [query, setQuery] = React.useState('');
  const [regex, setRegex] = React.useState(false);
  const [result, setResult] = React.useState<ISearchResult | null>(null);
  const [error, setError] = React.useState<string | null>(null);
  const [busy, setBusy] = React.useState(false);
  const run = async () => {
    setBusy(true);
    try {
      setResult(await api.search(query, regex));
      setError(null);
    } catch (failure) {
      setResult(null);
      setError(asAPIError(failure).message);
    } finally {
      setBusy(false);
    }
  };
  const clear = () => {
    setQuery('');
    setResult(null);
    setError(null);
  };
  return (
    <div className="jp-biopbDocs-Search">
      <form
        role="search"
        className="jp-biopbDocs-SearchForm"
        onSubmit={event => {
          event.preventDefault();
          void run();
        }}
      >
        <input
          className="jp-biopbDocs-Input jp-biopbDocs-SearchInput"
          type="search"
          aria-label="Search the docs"
          placeholder="Search the docs"
          value={query}
          onChange={event => setQuery(event.target.value)}
          onKeyDown={event => {
            if (event.key === 'Escape' && (query || result || error)) {
              event.stopPropagation();
              clear();
            }
          }}
        />
        <label className="jp-biopbDocs-SearchRegex" title="Take the query as an RE2 regular expression">
          <input type="checkbox" checked={regex} onChange={event => setRegex(event.target.checked)} /> regex
        </label>
        <button className="jp-biopbDocs-Button" type="submit" disabled={busy}>
          Search
        </button>
      </form>
      {error && (
        <p className="jp-biopbDocs-Error" role="alert">
          {error}
        </p>
      )}
      {result && (
        <div className="jp-biopbDocs-SearchResults">
          <div className="jp-biopbDocs-SearchSummary">
            <Summary result={result} />
            <button className="jp-biopbDocs-Link" onClick={clear} aria-label="Clear the search">
              Clear
            </button>
          </div>
          <ul className="jp-biopbDocs-Tail">
            {result.groups.map(group => (
              <Group key={`${group.id}#${group.anchor ?? ''}:${group.lines[0]?.line}`} group={group} open={props.open} />
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
