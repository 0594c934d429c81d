/**
 * The loader's two tails (§2): new shipped docs, each filed under a heading of the user's choice
 * or ignored with one click, and local copies a release may have left behind, with their diffs.
 */
import { CommandRegistry } from '@lumino/commands';
import * as React from 'react';

import { IIndexView, ITailItem } from './api';
import { CommandIDs } from './commands';
import { DocsModel } from './model';
import { headingText, Section } from './section';

/** The heading a new shipped doc is offered under first: Procedures if there is one. */
function defaultHeading(headings: string[]): string {
  const sections = headings.filter(h => !/^#\s/.test(h));
  const choices = sections.length ? sections : headings;
  return (
    choices.find(h => headingText(h) === 'Procedures') ??
    choices.filter(h => headingText(h) !== 'Unfiled').pop() ??
    choices[choices.length - 1] ??
    '## Unfiled'
  );
}

const NEW_HEADING = '\u0000new';

/** A tail item's id, which opens the doc, and the shipped description beside it. */
function TailItemHead(props: { item: ITailItem; open: (id: string) => void }): React.ReactElement {
  const { item, open } = props;
  return (
    <div>
      <button className="jp-biopbDocs-EntryId jp-biopbDocs-Link" onClick={() => open(item.id)}>
        {item.id}
      </button>
      <span className="jp-biopbDocs-Hook">{item.description}</span>
    </div>
  );
}

function NewShippedItem(props: {
  model: DocsModel;
  view: IIndexView;
  item: ITailItem;
  open: (id: string) => void;
}): React.ReactElement {
  const { model, view, item, open } = props;
  const [heading, setHeading] = React.useState(defaultHeading(view.headings));
  const [custom, setCustom] = React.useState('');
  const chosen = heading === NEW_HEADING ? custom.trim() : heading;
  const busy = model.busy.has(`file:${item.id}`) || model.busy.has(`ignore:${item.id}`);
  const readOnly = view.tier !== 'local';
  const selectId = `jp-biopbDocs-heading-${item.id}`;
  return (
    <li className="jp-biopbDocs-TailItem" data-doc-id={item.id}>
      <TailItemHead item={item} open={open} />
      <div className="jp-biopbDocs-TailActions">
        <label htmlFor={selectId} className="jp-biopbDocs-VisuallyHidden">
          Heading to file {item.id} under
        </label>
        <select
          id={selectId}
          className="jp-biopbDocs-Select"
          value={heading}
          onChange={e => setHeading(e.target.value)}
          disabled={busy || readOnly}
        >
          {view.headings.map(h => (
            <option key={h} value={h}>
              {headingText(h)}
            </option>
          ))}
          <option value={NEW_HEADING}>New heading…</option>
        </select>
        {heading === NEW_HEADING && (
          <input
            className="jp-biopbDocs-Input"
            aria-label="Name of the new heading"
            placeholder="Heading name"
            value={custom}
            onChange={e => setCustom(e.target.value)}
          />
        )}
        <button
          className="jp-biopbDocs-Button jp-mod-accept"
          disabled={busy || readOnly || !chosen}
          onClick={() => void model.fileDoc(item.id, chosen)}
          title={`Add "- ${item.id}: …" under ${headingText(chosen || null)} in index.md`}
        >
          File under {chosen ? headingText(chosen) : '…'}
        </button>
        <button
          className="jp-biopbDocs-Button"
          disabled={busy || readOnly}
          onClick={() => void model.ignoreDoc(item.id)}
          title="Add it to the ignored: line; the agent is no longer offered it"
        >
          Ignore
        </button>
      </div>
    </li>
  );
}

export function NewShippedSection(props: {
  model: DocsModel;
  view: IIndexView;
  open: (id: string) => void;
}): React.ReactElement {
  const { view } = props;
  return (
    <Section name="new" title="New shipped docs" count={view.new_shipped.length}>
      {view.new_shipped.length === 0 ? (
        <p className="jp-biopbDocs-Empty">
          Nothing new: every shipped doc is either filed in the index or on its ignored: line.
        </p>
      ) : (
        <>
          <p className="jp-biopbDocs-Note">
            The release ships these, and the index neither lists nor ignores them. File each under a
            heading so the agent is told of it, or ignore it.
          </p>
          <ul className="jp-biopbDocs-Tail">
            {view.new_shipped.map(item => (
              <NewShippedItem key={item.id} {...props} item={item} />
            ))}
          </ul>
        </>
      )}
    </Section>
  );
}

export function StaleSection(props: {
  view: IIndexView;
  open: (id: string) => void;
  commands: CommandRegistry;
}): React.ReactElement {
  const { view, open, commands } = props;
  return (
    <Section name="stale" title="Local copies behind the release" count={view.stale.length}>
      {view.stale.length === 0 ? (
        <p className="jp-biopbDocs-Empty">
          None: no local copy shadows a shipped doc that this release changed.
        </p>
      ) : (
        <>
          <p className="jp-biopbDocs-Note">
            Your local copies of these hide shipped text this release changed. Compare each, then merge
            what you want into your copy, or keep it; the list clears at the next upgrade.
          </p>
          <ul className="jp-biopbDocs-Tail">
            {view.stale.map(item => (
              <li className="jp-biopbDocs-TailItem" key={item.id} data-doc-id={item.id}>
                <TailItemHead item={item} open={open} />
                <div className="jp-biopbDocs-TailActions">
                  <button
                    className="jp-biopbDocs-Button"
                    onClick={() => void commands.execute(CommandIDs.showDiff, { id: item.id })}
                  >
                    Show diff
                  </button>
                </div>
              </li>
            ))}
          </ul>
        </>
      )}
    </Section>
  );
}
