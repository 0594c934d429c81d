/**
 * A doc in the main area, rendered by JupyterLab's own markdown renderer. The model is untrusted,
 * so the sanitizer strips scripts and event handlers: a doc is text an agent wrote. `[[id]]`
 * links become buttons that open the linked doc. A doc's diff against the shipped text it shadows
 * is its own view.
 */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ReactWidget } from '@jupyterlab/ui-components';
import { CommandRegistry } from '@lumino/commands';
import { Panel, Widget } from '@lumino/widgets';
import * as React from 'react';

import { api, IChangedEvent, IDiffView, IDocView } from './api';
import { CommandIDs } from './commands';
import { asAPIError, DocsModel } from './model';
import { DiffLines } from './review';

/** `[[id]]` as it stands in a doc's prose; only the ids the store parsed as links are taken. */
const LINK = /\[\[([^[\]\s]+)\]\]/g;

/** Replace `[[id]]` in the rendered text (never inside code or an existing link) with buttons. */
export function linkify(root: HTMLElement, ids: Set<string>, open: (id: string) => void): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: node =>
      node.parentElement?.closest('code, pre, a, button') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT
  });
  const texts: Text[] = [];
  while (walker.nextNode()) {
    texts.push(walker.currentNode as Text);
  }
  for (const node of texts) {
    const text = node.data;
    // matchAll starts from a copy of the pattern, lastIndex 0: no state carried between nodes
    const matches = [...text.matchAll(LINK)].filter(match => ids.has(match[1]));
    if (!matches.length) {
      continue;
    }
    const parts = document.createDocumentFragment();
    let last = 0;
    for (const match of matches) {
      const id = match[1];
      parts.append(text.slice(last, match.index));
      const button = document.createElement('button');
      button.className = 'jp-biopbDocs-DocLink';
      button.textContent = id;
      button.title = `Open ${id}`;
      button.dataset.docId = id;
      button.addEventListener('click', () => open(id));
      parts.append(button);
      last = match.index! + match[0].length;
    }
    parts.append(text.slice(last));
    node.replaceWith(parts);
  }
}

function DocHeader(props: {
  view: IDocView;
  commands: CommandRegistry;
}): React.ReactElement {
  const { view, commands } = props;
  const origin =
    view.tier === 'shipped'
      ? 'shipped with the package'
      : view.shadows_shipped
        ? 'your local copy, shadowing the shipped doc'
        : 'local';
  return (
    <div className="jp-biopbDocs-DocHeader">
      <div className="jp-biopbDocs-DocMeta">
        <code>{view.id}</code> · {origin} · updated {view.updated}
      </div>
      <div className="jp-biopbDocs-Actions">
        <button
          className="jp-biopbDocs-Button"
          onClick={() => void commands.execute(CommandIDs.editDoc, { id: view.id })}
          title={view.tier === 'shipped' ? 'Saving creates a local copy that shadows the shipped doc' : ''}
        >
          {view.tier === 'shipped' ? 'Edit (makes a local copy)' : 'Edit'}
        </button>
        {view.shadows_shipped && (
          <button
            className="jp-biopbDocs-Button"
            onClick={() => void commands.execute(CommandIDs.showDiff, { id: view.id })}
          >
            Show diff against shipped
          </button>
        )}
      </div>
      {view.frontmatter.length > 0 && (
        <details className="jp-biopbDocs-Frontmatter">
          <summary>frontmatter</summary>
          <table>
            <tbody>
              {view.frontmatter.map(([key, value]) => (
                <tr key={key}>
                  <th scope="row">{key}</th>
                  <td>{value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </div>
  );
}

export class DocViewer extends Panel {
  constructor(options: {
    id: string;
    model: DocsModel;
    rendermime: IRenderMimeRegistry;
    commands: CommandRegistry;
  }) {
    super();
    this.docId = options.id;
    this._rendermime = options.rendermime;
    this._commands = options.commands;
    this.addClass('jp-biopbDocs-Viewer');
    this.title.label = options.id;
    this.title.caption = `Kernel doc ${options.id}`;
    options.model.docsChanged.connect(this._onChanged, this);
    void this.load();
  }

  readonly docId: string;
  /** The view last rendered (null while loading or after a refusal). */
  view: IDocView | null = null;

  async load(): Promise<void> {
    let content: Widget[];
    try {
      const view = await api.doc(this.docId);
      content = await this._render(view);
      this.view = view;
      this.title.label = view.title && view.title !== view.id ? `${view.id}: ${view.title}` : view.id;
    } catch (error) {
      this.view = null;
      const refusal = asAPIError(error);
      content = [messageWidget(refusal.message, 'jp-biopbDocs-Error')];
      if (refusal.status === 404) {
        const write = ReactWidget.create(
          <button
            className="jp-biopbDocs-Button"
            onClick={() => void this._commands.execute(CommandIDs.editDoc, { id: this.docId })}
          >
            Write {this.docId}
          </button>
        );
        content.push(write);
      }
    }
    if (this.isDisposed) {
      return;
    }
    for (const old of [...this.widgets]) {
      old.dispose();
    }
    content.forEach(widget => this.addWidget(widget));
  }

  private async _render(view: IDocView): Promise<Widget[]> {
    const header = ReactWidget.create(<DocHeader view={view} commands={this._commands} />);
    const model = this._rendermime.createModel({ data: { 'text/markdown': view.body }, trusted: false });
    const renderer = this._rendermime.createRenderer('text/markdown');
    renderer.addClass('jp-biopbDocs-Rendered');
    await renderer.renderModel(model);
    const open = (id: string) => void this._commands.execute(CommandIDs.openDoc, { id });
    linkify(renderer.node, new Set(view.links), open);
    return [header, renderer];
  }

  private _onChanged(_: DocsModel, event: IChangedEvent): void {
    if (event.ids.includes(this.docId)) {
      void this.load();
    }
  }

  private _rendermime: IRenderMimeRegistry;
  private _commands: CommandRegistry;
}

function messageWidget(message: string, className: string): Widget {
  const widget = new Widget();
  const p = document.createElement('p');
  p.className = className;
  p.setAttribute('role', 'alert');
  p.textContent = message;
  widget.node.appendChild(p);
  return widget;
}

function DiffBody(props: { view: IDiffView }): React.ReactElement {
  const { view } = props;
  return (
    <div className="jp-biopbDocs-DiffView">
      <p className="jp-biopbDocs-Note">
        Your local copy of <code>{view.id}</code> against the current shipped text. Only hashes of
        earlier releases are kept, not their text, so this mixes your own edits with the release's
        changes.
      </p>
      {view.diff ? (
        <DiffLines lines={view.diff.split('\n')} unified />
      ) : (
        <p className="jp-biopbDocs-Empty">No differences: your local copy matches the shipped text.</p>
      )}
    </div>
  );
}

/** `<id>@diff`: a local copy against the shipped text it shadows. */
export class DiffViewer extends Panel {
  constructor(options: { id: string; model: DocsModel }) {
    super();
    this.docId = options.id;
    this.addClass('jp-biopbDocs-Viewer');
    this.title.label = `${options.id}@diff`;
    options.model.docsChanged.connect((_, event) => {
      if (event.ids.includes(this.docId)) {
        void this.load();
      }
    }, this);
    void this.load();
  }

  readonly docId: string;

  async load(): Promise<void> {
    let widget: Widget;
    try {
      const view = await api.diff(this.docId);
      widget = ReactWidget.create(<DiffBody view={view} />);
    } catch (error) {
      widget = messageWidget(asAPIError(error).message, 'jp-biopbDocs-Error');
    }
    if (this.isDisposed) {
      return;
    }
    for (const old of [...this.widgets]) {
      old.dispose();
    }
    this.addWidget(widget);
  }
}

/** Text in a read-only block, for views that show a diff computed in the browser. */
export function TextDiff(props: { title: string; lines: string[] }): React.ReactElement {
  return (
    <div className="jp-biopbDocs-DiffView">
      <p className="jp-biopbDocs-Note">{props.title}</p>
      {props.lines.length ? (
        <DiffLines lines={props.lines} />
      ) : (
        <p className="jp-biopbDocs-Empty">No differences.</p>
      )}
    </div>
  );
}

