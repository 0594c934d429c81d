/**
 * A doc's history in the main area: every kept version with who made it, when and how many lines
 * it changed; any two compared side by side (VersionDiff); and Restore, which writes a version's
 * text back as a new version, guarded by the sha256 of the text the history was read with.
 */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { ReactWidget } from '@jupyterlab/ui-components';
import { Extension } from '@codemirror/state';
import { Panel, Widget } from '@lumino/widgets';
import * as React from 'react';

import { api, IChangedEvent, IHistoryView, IVersionDiffView, IVersionInfo } from './api';
import { lineCounts, when } from './attribution';
import { MergePane } from './mergeview';
import { asAPIError, DocsModel } from './model';
import { docLabel } from './review';
import { messageWidget } from './viewer';

/** "v3 · 5 minutes ago · claude-code 2.1 via MCP": one side of a comparison. */
export function versionLabel(version: IVersionInfo | undefined, number: number | null): string {
  if (number === null) {
    return 'Now (the current text)';
  }
  if (!version) {
    return `v${number}`;
  }
  return `v${number} · ${when(version).relative} · ${version.author.label}`;
}

const CURRENT = 'current';

function VersionRow(props: {
  version: IVersionInfo;
  busy: boolean;
  compare: (older: number, newer: number | null) => void;
  restore: (version: IVersionInfo) => void;
}): React.ReactElement {
  const { version, busy, compare, restore } = props;
  const time = when(version);
  const what = version.restores
    ? `restored v${version.restores}`
    : version.after_sha256 === null
      ? 'no doc'
      : version.before_sha256 === null
        ? `${version.lines} ${version.lines === 1 ? 'line' : 'lines'}` // the first text it had
        : lineCounts(version.added, version.removed);
  return (
    <tr className={version.current ? 'jp-biopbDocs-mod-current' : ''} data-version={version.number}>
      <th scope="row">v{version.number}</th>
      <td title={time.exact}>{time.relative}</td>
      <td>{version.author.label}</td>
      <td>
        {what}
        {version.current && <span className="jp-biopbDocs-Marker jp-biopbDocs-Marker-local">current</span>}
        {!version.kept && (
          <span className="jp-biopbDocs-Hook" title="Its text alone was over the byte bound, so only who and when are kept">
            {' '}
            (text not kept)
          </span>
        )}
      </td>
      <td className="jp-biopbDocs-HistoryActions">
        {!version.current && version.kept && (
          <>
            <button
              className="jp-biopbDocs-Button"
              onClick={() => compare(version.number, null)}
              aria-label={`Compare v${version.number} with now`}
            >
              Compare with now
            </button>
            <button
              className="jp-biopbDocs-Button jp-mod-warn"
              disabled={busy || version.after_sha256 === null}
              onClick={() => restore(version)}
              aria-label={`Restore v${version.number}`}
              title="Write this version's text back as a new version; the current text stays in the history"
            >
              Restore
            </button>
          </>
        )}
      </td>
    </tr>
  );
}

function CompareBar(props: {
  versions: IVersionInfo[];
  compare: (older: number, newer: number | null) => void;
}): React.ReactElement | null {
  const kept = props.versions.filter(v => v.kept);
  const [older, setOlder] = React.useState(kept.length > 1 ? String(kept[1].number) : '');
  const [newer, setNewer] = React.useState(CURRENT);
  if (kept.length < 2) {
    return null;
  }
  const newerNumber = newer === CURRENT ? null : Number(newer);
  const valid = older !== '' && (newerNumber === null || Number(older) < newerNumber);
  return (
    <div className="jp-biopbDocs-CompareBar">
      <label>
        Compare{' '}
        <select className="jp-biopbDocs-Select" value={older} onChange={e => setOlder(e.target.value)}>
          {kept.map(v => (
            <option key={v.number} value={v.number}>
              v{v.number}
            </option>
          ))}
        </select>
      </label>{' '}
      <label>
        with{' '}
        <select className="jp-biopbDocs-Select" value={newer} onChange={e => setNewer(e.target.value)}>
          <option value={CURRENT}>now</option>
          {kept.map(v => (
            <option key={v.number} value={v.number}>
              v{v.number}
            </option>
          ))}
        </select>
      </label>{' '}
      <button
        className="jp-biopbDocs-Button jp-mod-accept"
        disabled={!valid}
        onClick={() => props.compare(Number(older), newerNumber)}
        title={valid ? '' : 'Pick an earlier version on the left'}
      >
        Show the diff
      </button>
    </div>
  );
}

function HistoryBody(props: {
  id: string;
  view: IHistoryView | null;
  error: string | null;
  busy: boolean;
  compare: (older: number, newer: number | null) => void;
  restore: (version: IVersionInfo) => void;
}): React.ReactElement {
  const { id, view, error } = props;
  return (
    <div className="jp-biopbDocs-History">
      <h2 className="jp-biopbDocs-Title">History of {docLabel(id)}</h2>
      {error && (
        <p className="jp-biopbDocs-Error" role="alert">
          {error}
        </p>
      )}
      {!view && !error && <p className="jp-biopbDocs-Empty">Reading the history…</p>}
      {view && !view.enabled && (
        <p className="jp-biopbDocs-Warning">
          History is turned off here (DocStore.history_max_versions is 0), so no versions are kept.
        </p>
      )}
      {view && (
        <>
          <p className="jp-biopbDocs-Note">
            {view.versions.length === 1 ? 'One version' : `${view.versions.length} versions`} kept, newest
            first; {view.bounds}.
          </p>
          <CompareBar key={view.sha256 ?? ''} versions={view.versions} compare={props.compare} />
          <table className="jp-biopbDocs-Versions">
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">
                  <span className="jp-biopbDocs-VisuallyHidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {view.versions.map(version => (
                <VersionRow
                  key={version.number}
                  version={version}
                  busy={props.busy}
                  compare={props.compare}
                  restore={props.restore}
                />
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}

/** `<id>@history` in the main area; it follows the doc's changes. */
export class HistoryViewer extends ReactWidget {
  constructor(options: {
    id: string;
    model: DocsModel;
    compare: (id: string, older: number, newer: number | null) => void;
  }) {
    super();
    this.docId = options.id;
    this._model = options.model;
    this._compare = options.compare;
    this.addClass('jp-biopbDocs-Viewer');
    this.title.label = `${docLabel(options.id)}: history`;
    this.title.caption = `The kept versions of ${docLabel(options.id)}`;
    options.model.docsChanged.connect(this._onChanged, this);
    options.model.stateChanged.connect(() => this.update(), this);
    void this.load();
  }

  readonly docId: string;
  view: IHistoryView | null = null;

  async load(): Promise<void> {
    try {
      this.view = await api.history(this.docId);
      this._error = null;
    } catch (error) {
      this._error = asAPIError(error).message;
    }
    this.update();
  }

  protected render(): React.ReactElement {
    return (
      <HistoryBody
        id={this.docId}
        view={this.view}
        error={this._error}
        busy={this._model.busy.has(`restore:${this.docId}`)}
        compare={(older, newer) => this._compare(this.docId, older, newer)}
        restore={version => void this._restore(version)}
      />
    );
  }

  private async _restore(version: IVersionInfo): Promise<void> {
    const view = this.view;
    if (!view) {
      return;
    }
    const answer = await showDialog({
      title: `Restore v${version.number} of ${docLabel(this.docId)}?`,
      body:
        `Its text (${version.lines} ${version.lines === 1 ? 'line' : 'lines'}, from ${when(version).exact} by ` +
        `${version.author.label}) becomes the current text, as a new version; the text it replaces stays ` +
        'in the history. If the doc changed since this history was read, nothing is written.',
      buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Restore' })]
    });
    if (answer.button.accept) {
      await this._model.restore(this.docId, version.number, view.sha256);
      await this.load();
    }
  }

  private _onChanged(_: DocsModel, event: IChangedEvent): void {
    if (event.ids.includes(this.docId) || (this.docId === 'index' && event.what === 'index')) {
      void this.load();
    }
  }

  private _model: DocsModel;
  private _error: string | null = null;
  private _compare: (id: string, older: number, newer: number | null) => void;
}

/** Two versions of a doc side by side (the newer one may be the current text). */
export class VersionDiff extends Panel {
  constructor(options: {
    id: string;
    older: number;
    newer: number | null;
    model: DocsModel;
    language: Extension | null;
  }) {
    super();
    this.docId = options.id;
    this._older = options.older;
    this._newer = options.newer;
    this._language = options.language;
    this.addClass('jp-biopbDocs-ReviewDiff');
    const newer = options.newer === null ? 'now' : `v${options.newer}`;
    this.title.label = `${docLabel(options.id)}: v${options.older} → ${newer}`;
    if (options.newer === null) {
      options.model.docsChanged.connect((_, event) => {
        if (event.ids.includes(this.docId)) {
          void this.load();
        }
      }, this);
    }
    void this.load();
  }

  readonly docId: string;

  async load(): Promise<void> {
    let widgets: Widget[];
    try {
      const [diff, history] = await Promise.all([
        api.diffVersions(this.docId, this._older, this._newer),
        api.history(this.docId)
      ]);
      widgets = [this._pane(diff, history)];
    } catch (error) {
      widgets = [messageWidget(asAPIError(error).message, 'jp-biopbDocs-Error')];
    }
    if (this.isDisposed) {
      return;
    }
    for (const old of [...this.widgets]) {
      old.dispose();
    }
    widgets.forEach(widget => this.addWidget(widget));
  }

  private _pane(diff: IVersionDiffView, history: IHistoryView): MergePane {
    const find = (n: number | null) => history.versions.find(v => v.number === n);
    return new MergePane({
      before: diff.older_text,
      after: diff.newer_text,
      beforeLabel: versionLabel(find(diff.older), diff.older),
      afterLabel: versionLabel(find(diff.newer), diff.newer),
      language: this._language
    });
  }

  private _older: number;
  private _newer: number | null;
  private _language: Extension | null;
}
