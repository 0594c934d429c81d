/**
 * A doc in the main area, rendered by JupyterLab's own markdown renderer. The model is untrusted,
 * so the sanitizer strips scripts and event handlers: a doc is text an agent wrote. `[[id]]` and
 * `[[id#Heading]]` links become buttons that open the linked doc (at that section). A viewer can
 * open at a section (a search result, a link, an id such as `flatfield#Steps`): it resolves the
 * section through the store, by the store's own rule, and scrolls its heading into view. A doc's
 * diff against the shipped text it shadows is its own view, side by side.
 */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ReactWidget } from '@jupyterlab/ui-components';
import { CommandRegistry } from '@lumino/commands';
import { Panel, Widget } from '@lumino/widgets';
import * as React from 'react';

import { Extension } from '@codemirror/state';
import { Message } from '@lumino/messaging';

import { api, IChangedEvent, IDiffView, IDocView, ISectionView } from './api';
import { CommandIDs } from './commands';
import { MergePane } from './mergeview';
import { asAPIError, DocsModel } from './model';

/**
 * `[[id]]` or `[[id#Heading]]` as it stands in a doc's prose; only the links the store parsed
 * are taken (a heading may hold spaces, never brackets or a line break).
 */
const LINK = /\[\[([^[\]\s#]+(?:#[^[\]\n]+)?)\]\]/g;

/** A link or an id as a doc and a section: `flatfield#Steps` is doc flatfield at its section Steps. */
export function splitSection(target: string): { id: string; section: string | null } {
  const at = target.indexOf('#');
  return at === -1 ? { id: target, section: null } : { id: target.slice(0, at), section: target.slice(at + 1) };
}

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
      button.title = id.includes('#') ? `Open ${splitSection(id).id} at its section ${splitSection(id).section}` : `Open ${id}`;
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
        <button
          className="jp-biopbDocs-Button"
          onClick={() => void commands.execute(CommandIDs.showHistory, { id: view.id })}
          title="Every kept version of it, who made it and when; compare any two, restore one"
        >
          History
        </button>
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

/** A heading's text as the outline names it: no anchor mark, emphasis or code marks, case. */
function headingKey(text: string): string {
  return text
    .replace(/\u00b6\s*$/, '')
    .replace(/[*_`]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/**
 * The rendered heading of `section`: the heading at its place in the outline when its text
 * agrees, else the first heading with its text. The rendered body has no frontmatter, and
 * headings in code fences are neither rendered as headings nor in the outline.
 */
export function findHeading(root: HTMLElement, section: ISectionView): HTMLElement | null {
  const headings = [...root.querySelectorAll<HTMLElement>('h1, h2, h3, h4, h5, h6')];
  const title = headingKey(section.section.title);
  const placed = headings[section.position - 1];
  if (placed && headingKey(placed.textContent ?? '') === title) {
    return placed;
  }
  return headings.find(h => headingKey(h.textContent ?? '') === title) ?? placed ?? null;
}

export class DocViewer extends Panel {
  constructor(options: {
    id: string;
    model: DocsModel;
    rendermime: IRenderMimeRegistry;
    commands: CommandRegistry;
    section?: string | null;
  }) {
    super();
    this.docId = options.id;
    this._rendermime = options.rendermime;
    this._commands = options.commands;
    this._section = options.section ?? null;
    this.addClass('jp-biopbDocs-Viewer');
    this.title.label = options.id;
    this.title.caption = `Kernel doc ${options.id}`;
    options.model.docsChanged.connect(this._onChanged, this);
    void this.load().then(() => this.showSection(this._section));
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
    this._note = null;
    content.forEach(widget => this.addWidget(widget));
  }

  /**
   * Scroll to a section (`Steps/Confirm input`, `Example[2]`), resolved by the store's rule; an
   * unknown one is said at the top, with the store's nearest headings. Null: the top.
   */
  async showSection(anchor: string | null): Promise<void> {
    this._section = anchor;
    this._target?.classList.remove('jp-biopbDocs-mod-target');
    this._target = null;
    let note: string | null = null;
    let className = 'jp-biopbDocs-Note';
    if (anchor !== null && this.view) {
      try {
        const section = await api.section(this.docId, anchor);
        const rendered = this.node.querySelector<HTMLElement>('.jp-biopbDocs-Rendered');
        this._target = rendered ? findHeading(rendered, section) : null;
        note = `Opened at \u00a7 ${section.position} of ${section.of}: ${section.section.path.join(' \u203a ')}`;
      } catch (error) {
        note = asAPIError(error).message;
        className = 'jp-biopbDocs-Warning';
      }
    }
    if (this.isDisposed) {
      return;
    }
    this._note?.dispose();
    this._note = note === null ? null : messageWidget(note, className, 'status');
    if (this._note) {
      this._note.addClass('jp-biopbDocs-SectionNote');
      this.insertWidget(1, this._note);
    }
    this._target?.classList.add('jp-biopbDocs-mod-target');
    this._scroll();
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    this._scroll();
  }

  /** Bring the target heading (or the top) into view, once the viewer is on screen. */
  private _scroll(): void {
    if (!this.isVisible) {
      return; // onAfterShow scrolls when it shows
    }
    if (this._target) {
      this._target.scrollIntoView({ block: 'start' });
    } else if (this._section === null) {
      this.node.scrollTop = 0;
    }
  }

  private async _render(view: IDocView): Promise<Widget[]> {
    const header = ReactWidget.create(<DocHeader view={view} commands={this._commands} />);
    const model = this._rendermime.createModel({ data: { 'text/markdown': view.body }, trusted: false });
    const renderer = this._rendermime.createRenderer('text/markdown');
    renderer.addClass('jp-biopbDocs-Rendered');
    await renderer.renderModel(model);
    const open = (link: string) => void this._commands.execute(CommandIDs.openDoc, splitSection(link));
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
  private _section: string | null;
  private _target: HTMLElement | null = null;
  private _note: Widget | null = null;
}

export function messageWidget(message: string, className: string, role = 'alert'): Widget {
  const widget = new Widget();
  const p = document.createElement('p');
  p.className = className;
  p.setAttribute('role', role);
  p.textContent = message;
  widget.node.appendChild(p);
  return widget;
}

/** `<id>@diff`: a local copy beside the shipped text it shadows. */
export class DiffViewer extends Panel {
  constructor(options: { id: string; model: DocsModel; language: Extension | null }) {
    super();
    this.docId = options.id;
    this._language = options.language;
    this.addClass('jp-biopbDocs-ReviewDiff');
    this.title.label = `${options.id}@diff`;
    this.title.caption = `Your local copy of ${options.id} beside the shipped text`;
    options.model.docsChanged.connect((_, event) => {
      if (event.ids.includes(this.docId)) {
        void this.load();
      }
    }, this);
    void this.load();
  }

  readonly docId: string;

  async load(): Promise<void> {
    let widgets: Widget[];
    try {
      widgets = this._widgets(await api.diff(this.docId));
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

  private _widgets(view: IDiffView): Widget[] {
    const note = messageWidget(
      view.local_text === view.shipped_text
        ? `No differences: your local copy of ${view.id} matches the shipped text.`
        : `Your local copy of ${view.id} beside the current shipped text. Only hashes of earlier releases ` +
            'are kept, not their text, so this mixes your own edits with the release\'s changes.',
      'jp-biopbDocs-Note',
      'note'
    );
    note.addClass('jp-biopbDocs-DiffHeader');
    const pane = new MergePane({
      before: view.shipped_text,
      after: view.local_text,
      beforeLabel: 'The shipped text',
      afterLabel: 'Your local copy',
      language: this._language
    });
    return [note, pane];
  }

  private _language: Extension | null;
}
