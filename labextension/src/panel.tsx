/**
 * The sidebar panel: a search over the docs, the index the way the agent gets it (headings,
 * entries, markers, the entry count against the cap, where a 2,048-character handshake cuts it),
 * what the agent changed since the user last reviewed, and the loader's two tails with their
 * one-click actions.
 */
import { VDomRenderer } from '@jupyterlab/ui-components';
import { CommandRegistry } from '@lumino/commands';
import * as React from 'react';

import { IIndexEntry, IIndexView } from './api';
import { CommandIDs } from './commands';
import { docsIcon } from './icon';
import { DocsModel } from './model';
import { ReviewSection } from './review';
import { SearchBox } from './search';
import { headingText, Section } from './section';
import { NewShippedSection, StaleSection } from './tails';

const PANEL_ID = 'biopb-kernel-docs-panel';

export class DocsPanel extends VDomRenderer<DocsModel> {
  constructor(model: DocsModel, commands: CommandRegistry) {
    super(model);
    this._commands = commands;
    this.id = PANEL_ID;
    this.addClass('jp-biopbDocs-Panel');
    this.title.icon = docsIcon;
    this.title.caption = 'Kernel Docs: the index your agent reads, and what it changed';
  }

  protected render(): React.ReactElement {
    return <PanelView model={this.model} commands={this._commands} />;
  }

  private _commands: CommandRegistry;
}

interface IViewProps {
  model: DocsModel;
  commands: CommandRegistry;
}

function PanelView({ model, commands }: IViewProps): React.ReactElement {
  const view = model.index;
  const open = (id: string) => void commands.execute(CommandIDs.openDoc, { id });
  const openDiff = (id: string) => void commands.execute(CommandIDs.showReview, { id });
  const openAt = (id: string, section: string | null) =>
    void (id === 'index'
      ? commands.execute(CommandIDs.editIndex)
      : commands.execute(CommandIDs.openDoc, section === null ? { id } : { id, section }));
  return (
    <div className="jp-biopbDocs-Content" aria-busy={model.busy.size > 0}>
      <header className="jp-biopbDocs-Header">
        <h2 className="jp-biopbDocs-Title">Kernel Docs</h2>
        <div className="jp-biopbDocs-Actions">
          <button
            className="jp-biopbDocs-Button"
            onClick={() => void commands.execute(CommandIDs.editIndex)}
            disabled={!view || view.tier !== 'local'}
            title="Open index.md in an editor; saving goes through the store"
          >
            Edit index
          </button>
          <button
            className="jp-biopbDocs-Button"
            onClick={() => void commands.execute(CommandIDs.connectAgent)}
            disabled={!view}
            title="The command and the config that attach an agent to the active notebook's kernel"
          >
            Connect an agent
          </button>
        </div>
      </header>
      {model.error && <ErrorState model={model} />}
      {model.refusal && <Refusal model={model} />}
      {!view && !model.error && <p className="jp-biopbDocs-Empty">Reading the index…</p>}
      {view && (
        <>
          <SearchBox open={openAt} />
          <IndexSummary view={view} />
          <ReviewSection model={model} openDiff={openDiff} />
          <IndexSection view={view} open={open} />
          <NewShippedSection model={model} view={view} open={open} />
          <StaleSection view={view} open={open} commands={commands} />
        </>
      )}
      {!model.pushed && (
        <p className="jp-biopbDocs-Note">
          This Jupyter server offers no event stream, so the panel checks for changes every 3 seconds.
        </p>
      )}
    </div>
  );
}

function ErrorState({ model }: { model: DocsModel }): React.ReactElement {
  const error = model.error!;
  const title =
    error.kind === 'no-extension' ? 'The server extension is missing' : 'The panel cannot read the docs';
  return (
    <div className="jp-biopbDocs-Error" role="alert">
      <strong>{title}</strong>
      <p>{error.message}</p>
      {model.index && <p>The panel below shows the index as it was last read.</p>}
      <button className="jp-biopbDocs-Button" onClick={() => void model.refresh()}>
        Try again
      </button>
    </div>
  );
}

/** The store's refusal of the user's last action, whole, until dismissed or a next action works. */
function Refusal({ model }: { model: DocsModel }): React.ReactElement {
  const box = React.useRef<HTMLDivElement>(null);
  // A block, not an expression: what an effect returns, React calls as its cleanup, and
  // scrollIntoView returns a Promise in Chromium 150 (calling it blanked the panel).
  React.useEffect(() => {
    box.current?.scrollIntoView({ block: 'nearest' });
  }, [model.refusal]);
  return (
    <div className="jp-biopbDocs-Error jp-biopbDocs-Refusal" role="alert" ref={box}>
      <p>{model.refusal}</p>
      <button className="jp-biopbDocs-Button" onClick={() => model.dismissRefusal()}>
        Dismiss
      </button>
    </div>
  );
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

function IndexSummary({ view }: { view: IIndexView }): React.ReactElement {
  const count = view.entries.length;
  const shake = view.handshake;
  const kept = count - shake.left_out.length;
  const full = (count / view.entry_cap) * 100;
  return (
    <div className="jp-biopbDocs-Summary">
      {view.tier === 'shipped' && (
        <div className="jp-biopbDocs-Warning" role="status">
          <strong>The local docs directory cannot be used.</strong> The panel shows the shipped index,
          read-only, because no local index could be created there (the server's reason follows).
          Until that is fixed, nothing (filing, ignoring, editing) can be saved.
        </div>
      )}
      {view.notices.map(notice => (
        <div className="jp-biopbDocs-Warning" role="status" key={notice}>
          {notice}
        </div>
      ))}
      <div className="jp-biopbDocs-Capacity">
        <span>
          <strong>{count}</strong> of {view.entry_cap} entries
        </span>
        <div
          className="jp-biopbDocs-Meter"
          role="meter"
          aria-label="index entries against the cap"
          aria-valuemin={0}
          aria-valuemax={view.entry_cap}
          aria-valuenow={count}
        >
          <div className="jp-biopbDocs-MeterFill" style={{ width: `${Math.min(full, 100)}%` }} />
        </div>
      </div>
      <p className="jp-biopbDocs-Path" title={view.path}>
        <bdi>{view.path}</bdi>
      </p>
      <details className="jp-biopbDocs-Handshake">
        <summary>
          {shake.left_out.length === 0
            ? `A ${shake.budget.toLocaleString('en-US')}-character host (Claude Code) receives the whole index: ${plural(shake.length, 'character')}.`
            : `A ${shake.budget.toLocaleString('en-US')}-character host (Claude Code) receives ${kept} of ${count} entries; the cut is marked below.`}
        </summary>
        <p className="jp-biopbDocs-Note">
          What the agent reads at the start of a session, before any call
          {shake.left_out.length > 0 && '; it can still read the rest with read_doc("index")'}:
        </p>
        <pre className="jp-biopbDocs-HandshakeText">{shake.text}</pre>
      </details>
    </div>
  );
}

function MarkerBadge({ entry }: { entry: IIndexEntry }): React.ReactElement | null {
  if (entry.marker === 'missing') {
    return (
      <span className="jp-biopbDocs-Marker jp-biopbDocs-Marker-missing" title="No file has this id">
        (missing)
      </span>
    );
  }
  if (entry.marker === 'local copy') {
    return (
      <span
        className="jp-biopbDocs-Marker jp-biopbDocs-Marker-local"
        title="Your local copy shadows the shipped doc"
      >
        (local copy)
      </span>
    );
  }
  return null;
}


function IndexSection(props: { view: IIndexView; open: (id: string) => void }): React.ReactElement {
  const { view, open } = props;
  const cut = new Set(view.handshake.left_out);
  const firstCut = view.entries.findIndex(e => cut.has(e.id));
  const groups: { heading: string | null; entries: [IIndexEntry, number][] }[] = [];
  view.entries.forEach((entry, n) => {
    const last = groups[groups.length - 1];
    if (last && last.heading === entry.heading) {
      last.entries.push([entry, n]);
    } else {
      groups.push({ heading: entry.heading, entries: [[entry, n]] });
    }
  });
  return (
    <Section name="index" title="Index" count={view.entries.length}>
      {view.entries.length === 0 && (
        <p className="jp-biopbDocs-Empty">
          The index lists no docs, so the agent is told of none. File a shipped doc from "New shipped
          docs" below, or use Edit index to add lines of the form "- id: when to read it".
        </p>
      )}
      {groups.map(group => (
        <div className="jp-biopbDocs-Group" key={`${group.heading}:${group.entries[0][1]}`}>
          <h4 className="jp-biopbDocs-Heading">{headingText(group.heading)}</h4>
          <ul className="jp-biopbDocs-Entries">
            {group.entries.map(([entry, n]) => (
              <React.Fragment key={`${entry.id}:${entry.line}`}>
                {n === firstCut && (
                  <li className="jp-biopbDocs-CutLine" role="separator">
                    a {view.handshake.budget.toLocaleString('en-US')}-character handshake stops here
                  </li>
                )}
                <li
                  className={`jp-biopbDocs-Entry${cut.has(entry.id) ? ' jp-biopbDocs-mod-cut' : ''}`}
                  data-doc-id={entry.id}
                >
                  {entry.collection ? (
                    <span className="jp-biopbDocs-EntryId">{entry.id}</span>
                  ) : (
                    <button
                      className="jp-biopbDocs-EntryId jp-biopbDocs-Link"
                      onClick={() => open(entry.id)}
                      title={`Open ${entry.id}`}
                    >
                      {entry.id}
                    </button>
                  )}
                  <MarkerBadge entry={entry} />
                  <span className="jp-biopbDocs-Hook">{entry.hook}</span>
                </li>
              </React.Fragment>
            ))}
          </ul>
        </div>
      ))}
      {view.ignored.length > 0 && (
        <p className="jp-biopbDocs-Ignored">
          <span>Ignored (still readable by id):</span>{' '}
          {view.ignored.map(id => (
            <button className="jp-biopbDocs-Link" key={id} onClick={() => open(id)}>
              {id}
            </button>
          ))}
        </p>
      )}
    </Section>
  );
}
