/**
 * Review of what the agent changed: each doc (the index too) that differs from the text the user
 * last reviewed, hunk by hunk, with "Looks good" (mark it reviewed) and "Revert this change" (an
 * old/new write that puts the hunk back).
 */
import * as React from 'react';

import { IHunk, IReviewItem } from './api';
import { diffLineKinds } from './diff';
import { DocsModel } from './model';
import { Section } from './section';

const BASES: Record<IReviewItem['base'], string> = {
  reviewed: 'changed since you last reviewed it',
  shipped: 'a local copy, against the shipped text (not reviewed yet)',
  new: 'a new doc (not reviewed yet)'
};

/** A hunk's lines, coloured by kind; used by the review and by every diff view. */
export function DiffLines(props: { lines: string[]; unified?: boolean }): React.ReactElement {
  const kinds = diffLineKinds(props.lines, props.unified);
  return (
    <pre className="jp-biopbDocs-Diff">
      {props.lines.map((line, n) => (
        <div className={`jp-biopbDocs-DiffLine jp-biopbDocs-DiffLine-${kinds[n]}`} key={n}>
          {line === '' ? ' ' : line}
        </div>
      ))}
    </pre>
  );
}

function HunkView(props: { model: DocsModel; item: IReviewItem; hunk: IHunk }): React.ReactElement {
  const { model, item, hunk } = props;
  const busy =
    model.busy.has(`reviewed:${item.id}:${hunk.index}`) ||
    model.busy.has(`revert:${item.id}:${hunk.index}`) ||
    model.busy.has(`reviewed:${item.id}`);
  return (
    <div className="jp-biopbDocs-Hunk" data-hunk={hunk.index}>
      <DiffLines lines={[hunk.header, ...hunk.lines]} />
      <div className="jp-biopbDocs-HunkActions">
        <button
          className="jp-biopbDocs-Button jp-mod-accept"
          disabled={busy}
          onClick={() => void model.markReviewed(item.id, item.sha256, hunk.index)}
        >
          Looks good
        </button>
        <button
          className="jp-biopbDocs-Button jp-mod-warn"
          disabled={busy}
          onClick={() => void model.revertHunk(item.id, hunk.index, item.sha256)}
          title="Write this part of the doc back as it was; the rest stays"
        >
          Revert this change
        </button>
      </div>
    </div>
  );
}

export function ReviewSection(props: { model: DocsModel; open: (id: string) => void }): React.ReactElement {
  const { model, open } = props;
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
      {review &&
        review.items.map(item => (
          <div className="jp-biopbDocs-ReviewItem" key={item.id} data-doc-id={item.id}>
            <div className="jp-biopbDocs-ReviewHeader">
              <button className="jp-biopbDocs-EntryId jp-biopbDocs-Link" onClick={() => open(item.id)}>
                {item.id === 'index' ? 'index.md' : item.id}
              </button>
              <span className="jp-biopbDocs-Hook">
                {item.id === 'index' && item.base === 'shipped'
                  ? 'against the shipped index it was seeded from (not reviewed yet)'
                  : (BASES[item.base] ?? item.base)}
              </span>
              {item.hunks.length > 1 && (
                <button
                  className="jp-biopbDocs-Button"
                  disabled={model.busy.has(`reviewed:${item.id}`)}
                  onClick={() => void model.markReviewed(item.id, item.sha256)}
                >
                  All {item.hunks.length} look good
                </button>
              )}
            </div>
            {item.hunks.map(hunk => (
              <HunkView key={hunk.index} model={model} item={item} hunk={hunk} />
            ))}
          </div>
        ))}
    </Section>
  );
}
