/**
 * A review item in the main area: what the doc was when last reviewed (or the shipped text, or
 * nothing for a new doc) beside what it is now, with each change's author and time and its own
 * Keep and Revert. It follows the review: a kept or reverted change leaves the view, and when
 * nothing is left it says so.
 */
import { ReactWidget } from '@jupyterlab/ui-components';
import { CommandRegistry } from '@lumino/commands';
import { Extension } from '@codemirror/state';
import { Panel } from '@lumino/widgets';
import * as React from 'react';

import { IReviewItem } from './api';
import { madeBy, versionsOf } from './attribution';
import { CommandIDs } from './commands';
import { hunkRanges, IDiffHunk, MergePane } from './mergeview';
import { DocsModel } from './model';
import { baseText, docLabel, ItemActions } from './review';

const BEFORE: Record<IReviewItem['base'], string> = {
  reviewed: 'When you last reviewed it',
  shipped: 'The shipped text',
  new: 'Nothing (a new doc)'
};

function ReviewHeader(props: {
  id: string;
  item: IReviewItem | null;
  model: DocsModel;
  commands: CommandRegistry;
}): React.ReactElement {
  const { id, item, model, commands } = props;
  return (
    <div className="jp-biopbDocs-DocHeader">
      <div className="jp-biopbDocs-DocMeta">
        <strong>{docLabel(id)}</strong>
        {item ? <> · {baseText(item)}</> : null}
      </div>
      {item && item.hunks.length > 0 && (
        <p className="jp-biopbDocs-Note">
          {item.hunks.length === 1 ? 'One change' : `${item.hunks.length} changes`},{' '}
          {madeBy(item.changes)}. Keep a change to mark it reviewed; Revert writes that part back as it
          was (recorded in the history like any write).
        </p>
      )}
      {item && item.hunks.length === 0 && (
        <p className="jp-biopbDocs-Note" role="status">
          Your local copy of {id} has the shipped text again, so it only hides later releases of it: drop
          it to read the shipped doc again.
        </p>
      )}
      {!item && (
        <p className="jp-biopbDocs-Note jp-biopbDocs-ReviewDone" role="status">
          Nothing left to review in {docLabel(id)}.
        </p>
      )}
      <div className="jp-biopbDocs-Actions">
        {item && <ItemActions model={model} item={item} />}
        {id !== 'index' && (
          <button className="jp-biopbDocs-Button" onClick={() => void commands.execute(CommandIDs.openDoc, { id })}>
            Open {id}
          </button>
        )}
        <button className="jp-biopbDocs-Button" onClick={() => void commands.execute(CommandIDs.showHistory, { id })}>
          History
        </button>
      </div>
    </div>
  );
}

export class ReviewDiff extends Panel {
  constructor(options: {
    id: string;
    model: DocsModel;
    commands: CommandRegistry;
    language: Extension | null;
  }) {
    super();
    this.docId = options.id;
    this._model = options.model;
    this._language = options.language;
    this.addClass('jp-biopbDocs-ReviewDiff');
    this.title.label = `${docLabel(options.id)}: review`;
    this.title.caption = `What changed in ${docLabel(options.id)} since you last reviewed it`;
    this._header = new HeaderWidget(this, options.model, options.commands);
    this.addWidget(this._header);
    options.model.stateChanged.connect(this._follow, this);
    this._follow();
  }

  readonly docId: string;

  /** The item as the view shows it (null: nothing left to review). */
  get item(): IReviewItem | null {
    return this._model.reviewItem(this.docId);
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._model.stateChanged.disconnect(this._follow, this);
    super.dispose();
  }

  /** Rebuild the diff when the item's text or hunks moved; update the buttons' busy state always. */
  private _follow(): void {
    const item = this.item;
    const key = item ? JSON.stringify([item.sha256, item.base, item.hunks.map(h => h.header)]) : '';
    if (key !== this._shown) {
      this._shown = key;
      const scrolled = this._pane?.scroller.scrollTop ?? 0;
      this._pane?.dispose();
      this._pane = item && item.hunks.length ? this._build(item) : null;
      if (this._pane) {
        this.addWidget(this._pane);
        this._pane.scroller.scrollTop = scrolled;
      }
    }
    for (const [key, button] of this._buttons) {
      button.disabled = this._model.busy.has(key) || this._model.busy.has(`reviewed:${this.docId}`);
    }
    this._header.update();
  }

  private _build(item: IReviewItem): MergePane {
    this._buttons = new Map();
    const hunks = item.hunks.map(h => hunkRanges(h.header)).filter((h): h is IDiffHunk => h !== null);
    const exact = hunks.length === item.hunks.length;
    return new MergePane({
      before: item.baseline ?? '',
      after: item.text,
      beforeLabel: BEFORE[item.base],
      afterLabel: 'Now',
      hunks: exact ? hunks : undefined,
      controls: exact ? n => this._controls(item, n) : undefined,
      language: this._language
    });
  }

  /** Change n's bar: who made it (over the text before), its Keep and Revert (over the text now). */
  private _controls(item: IReviewItem, n: number): { before: HTMLElement; after: HTMLElement } {
    const hunk = item.hunks[n];
    const bar = (side: string) => {
      const div = document.createElement('div');
      div.className = `jp-biopbDocs-HunkBar jp-biopbDocs-HunkBar-${side}`;
      div.dataset.hunk = String(n);
      return div;
    };
    const before = bar('before');
    const who = document.createElement('span');
    who.className = 'jp-biopbDocs-HunkWho';
    who.textContent = `Change ${n + 1} of ${item.hunks.length}, ${madeBy(versionsOf(item, hunk.versions))}`;
    who.title = who.textContent;
    before.appendChild(who);
    const after = bar('after');
    const add = (label: string, key: string, title: string, className: string, act: () => void) => {
      const button = document.createElement('button');
      button.className = `jp-biopbDocs-Button ${className}`;
      button.textContent = label;
      button.title = title;
      button.setAttribute('aria-label', `${label} change ${n + 1}`);
      button.addEventListener('click', act);
      this._buttons.set(key, button);
      after.appendChild(button);
    };
    if (item.actions.includes('looks_good')) {
      add('Keep', `reviewed:${item.id}:${n}`, 'Looks good: mark this change reviewed', 'jp-mod-accept', () =>
        void this._model.markReviewed(item.id, item.sha256, n)
      );
    }
    if (item.actions.includes('revert')) {
      add(
        'Revert',
        `revert:${item.id}:${n}`,
        'Write this part of the doc back as it was; the rest stays',
        'jp-mod-warn',
        () => void this._model.revertHunk(item.id, n, item.sha256)
      );
    }
    return { before, after };
  }

  private _model: DocsModel;
  private _language: Extension | null;
  private _header: HeaderWidget;
  private _pane: MergePane | null = null;
  private _shown: string | null = null;
  private _buttons = new Map<string, HTMLButtonElement>();
}

/** The header, drawn again from the review at every update (a new element each render). */
class HeaderWidget extends ReactWidget {
  constructor(
    private _diff: ReviewDiff,
    private _model: DocsModel,
    private _commands: CommandRegistry
  ) {
    super();
    this.addClass('jp-biopbDocs-DiffHeader');
  }

  protected render(): React.ReactElement {
    const diff = this._diff;
    return <ReviewHeader id={diff.docId} item={diff.item} model={this._model} commands={this._commands} />;
  }
}
