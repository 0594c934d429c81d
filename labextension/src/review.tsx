/**
 * "Changed since you last reviewed", in the sidebar: each doc (the index too) that differs from
 * the text the user last reviewed, who changed it and when. Opening one shows its diff in the
 * main area, where each change is kept or reverted (reviewdiff). A doc the review's span created
 * offers Retire; a local copy equal to the shipped text offers Drop the local copy.
 */
import * as React from 'react';

import { IReviewItem } from './api';
import { hunkLineCounts, lineCounts, madeBy } from './attribution';
import { DocsModel } from './model';
import { Section } from './section';

const BASES: Record<IReviewItem['base'], string> = {
  reviewed: 'changed since you last reviewed it',
  shipped: 'a local copy, against the shipped text (not reviewed yet)',
  new: 'a new doc (not reviewed yet)'
};

export function docLabel(id: string): string {
  return id === 'index' ? 'index.md' : id;
}

/** What the review compares an item against, in words. */
export function baseText(item: IReviewItem): string {
  if (item.id === 'index' && item.base === 'shipped') {
    return 'against the shipped index it was seeded from (not reviewed yet)';
  }
  return BASES[item.base] ?? item.base;
}

/** The item-wide actions, shared by the sidebar and the diff in the main area. */
export function ItemActions(props: { model: DocsModel; item: IReviewItem }): React.ReactElement {
  const { model, item } = props;
  const busy = (key: string) => model.busy.has(`${key}:${item.id}`);
  const count = item.hunks.length;
  return (
    <>
      {item.actions.includes('looks_good') && count > 0 && (
        <button
          className="jp-biopbDocs-Button"
          disabled={busy('reviewed')}
          onClick={() => void model.markReviewed(item.id, item.sha256)}
          title="Mark every change of it reviewed; the text stays as it is"
        >
          {count === 1 ? 'Keep' : `Keep all ${count}`}
        </button>
      )}
      {item.actions.includes('retire') && (
        <button
          className="jp-biopbDocs-Button jp-mod-warn"
          disabled={busy('retire')}
          onClick={() => void model.retire(item.id)}
          title="Remove its line from the index, so the agent is no longer told of it; the file stays, readable by id"
        >
          Retire
        </button>
      )}
      {item.actions.includes('drop') && (
        <button
          className="jp-biopbDocs-Button jp-mod-warn"
          disabled={busy('drop')}
          onClick={() => void model.dropLocalCopy(item.id, item.sha256)}
          title="Remove your local copy, which equals the shipped text, so later releases of the doc are read"
        >
          Drop the local copy
        </button>
      )}
    </>
  );
}

function ReviewEntry(props: {
  model: DocsModel;
  item: IReviewItem;
  openDiff: (id: string) => void;
}): React.ReactElement {
  const { model, item, openDiff } = props;
  const { added, removed } = hunkLineCounts(item);
  const count = item.hunks.length;
  return (
    <li className="jp-biopbDocs-ReviewItem" data-doc-id={item.id}>
      <div className="jp-biopbDocs-ReviewHeader">
        <button
          className="jp-biopbDocs-EntryId jp-biopbDocs-Link"
          onClick={() => openDiff(item.id)}
          title={`Open the changes to ${docLabel(item.id)} side by side`}
        >
          {docLabel(item.id)}
        </button>
        <span className="jp-biopbDocs-Hook">{baseText(item)}</span>
      </div>
      {count > 0 ? (
        <p className="jp-biopbDocs-ReviewWho">
          {count === 1 ? '1 change' : `${count} changes`} ({lineCounts(added, removed)}){' '}
          {madeBy(item.changes)}
        </p>
      ) : (
        <p className="jp-biopbDocs-ReviewWho">
          Your local copy has the shipped text again, so it only hides later releases of it.
        </p>
      )}
      <div className="jp-biopbDocs-HunkActions">
        {count > 0 && (
          <button className="jp-biopbDocs-Button jp-mod-accept" onClick={() => openDiff(item.id)}>
            Show changes
          </button>
        )}
        <ItemActions model={model} item={item} />
      </div>
    </li>
  );
}

export function ReviewSection(props: {
  model: DocsModel;
  openDiff: (id: string) => void;
}): React.ReactElement {
  const { model, openDiff } = props;
  const review = model.review;
  const count = review ? review.items.length : undefined;
  return (
    <Section name="review" title="Changed since you last reviewed" count={count}>
      {!review && (
        <p className="jp-biopbDocs-Empty">
          The review could not be read; the panel tries again on the next change. Reading docs and the
          index still works.
        </p>
      )}
      {review && review.items.length === 0 && (
        <p className="jp-biopbDocs-Empty">
          Nothing to review: the index and every local doc are as you last reviewed them.
        </p>
      )}
      {review && review.items.length > 0 && (
        <ul className="jp-biopbDocs-Tail">
          {review.items.map(item => (
            <ReviewEntry key={item.id} model={model} item={item} openDiff={openDiff} />
          ))}
        </ul>
      )}
    </Section>
  );
}
