/**
 * A doc (or index.md) in a JupyterLab code editor whose save goes through the store: a PUT with
 * the sha256 of the text the editor loaded as `if_match`, always, so the caps and the stale check
 * apply, and two tabs of one user (one caller to the store) never overwrite each other. A refusal
 * is said once, in the editor's banner. On a stale save nothing is lost: the edits stay in the
 * editor, "Show what changed" puts the text it started from beside the text on disk, and a
 * reload first sets the unsaved text aside in a tab of its own.
 */
import { Dialog, MainAreaWidget, Notification, showDialog } from '@jupyterlab/apputils';
import { CodeEditor, CodeEditorWrapper, IEditorServices } from '@jupyterlab/codeeditor';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { ReactWidget } from '@jupyterlab/ui-components';
import { Message } from '@lumino/messaging';
import { Panel } from '@lumino/widgets';
import * as React from 'react';

import { api, IChangedEvent, Tier, writtenSha } from './api';
import { markdownLanguage, MergePane } from './mergeview';
import { asAPIError, DocsModel } from './model';

interface IBase {
  text: string;
  /** null: the doc does not exist yet, and the first save creates it. */
  sha256: string | null;
  tier: Tier;
  path: string;
}

interface IEditorState {
  base: IBase | null;
  dirty: boolean;
  /** The doc changed on disk since the text in the editor was loaded (and it has edits). */
  changedOnDisk: boolean;
  /** The last save was refused because of that. */
  staleSave: boolean;
  saving: boolean;
  /** Why the doc could not be loaded. */
  error: string | null;
  /** The store's refusal of the last save, in full (a notification shows 140 characters). */
  refusal: string | null;
}

function Banner(props: {
  id: string;
  state: IEditorState;
  save: () => void;
  reload: () => void;
  showChanges: () => void;
}): React.ReactElement {
  const { id, state } = props;
  const base = state.base;
  const name = id === 'index' ? 'index.md' : `${id}.md`;
  let about: React.ReactNode;
  if (!base) {
    about = state.error ?? 'Loading…';
  } else if (id === 'index') {
    about = (
      <>
        Editing <code>{base.path}</code>. Saving goes through the store: at most 200 entries and 300
        lines, and if the index changed since you opened it, nothing is overwritten.
      </>
    );
  } else if (base.tier === 'shipped') {
    about = (
      <>
        <strong>This is a shipped doc.</strong> Saving creates a local copy of <code>{id}</code> that
        shadows it (the index marks it "(local copy)"); the shipped text itself is never changed.
      </>
    );
  } else if (base.sha256 === null) {
    about = (
      <>
        <code>{id}</code> does not exist yet: saving creates it as a local doc and files it under ##
        Unfiled in the index (at most 300 lines).
      </>
    );
  } else {
    about = (
      <>
        Editing your local doc <code>{base.path}</code> (at most 300 lines).
      </>
    );
  }
  return (
    <div className="jp-biopbDocs-EditorBanner">
      <p className={state.error && !base ? 'jp-biopbDocs-Error' : 'jp-biopbDocs-Note'}>{about}</p>
      {state.refusal && (
        <p className="jp-biopbDocs-Error" role="alert">
          Not saved: {state.refusal} Your edits are still in the editor.
        </p>
      )}
      {state.changedOnDisk && (
        <p className="jp-biopbDocs-Warning" role={state.staleSave ? 'alert' : 'status'}>
          {state.staleSave
            ? `Not saved: ${name} changed on disk since you opened it, and saving would overwrite that change. Your edits are still in the editor.`
            : `${name} changed on disk since you opened it, so saving will be refused.`}{' '}
          <button className="jp-biopbDocs-Link" onClick={props.showChanges}>
            Show what changed
          </button>{' '}
          ·{' '}
          <button className="jp-biopbDocs-Link" onClick={props.reload}>
            Reload (your edits are set aside)
          </button>
        </p>
      )}
      <div className="jp-biopbDocs-Actions">
        <button
          className="jp-biopbDocs-Button jp-mod-accept"
          onClick={props.save}
          disabled={!base || state.saving}
          title="Save through the store (Ctrl+S)"
        >
          {state.saving ? 'Saving…' : state.dirty ? 'Save' : 'Saved'}
        </button>
        <button className="jp-biopbDocs-Button" onClick={props.reload} disabled={state.saving}>
          Reload
        </button>
      </div>
    </div>
  );
}

export class DocEditor extends Panel {
  constructor(options: {
    id: string;
    model: DocsModel;
    editorServices: IEditorServices;
    languages: IEditorLanguageRegistry | null;
    openAside: (widget: MainAreaWidget) => void;
  }) {
    super();
    this.docId = options.id;
    this._languages = options.languages;
    this._openAside = options.openAside;
    this.addClass('jp-biopbDocs-Editor');
    this.title.label = options.id === 'index' ? 'index.md' : `${options.id}.md`;
    this.title.caption = `Kernel doc ${options.id}, saved through the store`;
    this._banner = new BannerWidget(this);
    this.addWidget(this._banner);
    this._editorModel = new CodeEditor.Model({ mimeType: 'text/x-ipythongfm' });
    this._editor = new CodeEditorWrapper({
      factory: options.editorServices.factoryService.newDocumentEditor,
      model: this._editorModel,
      editorOptions: { config: { lineNumbers: true, lineWrap: true } }
    });
    this._editor.addClass('jp-biopbDocs-EditorArea');
    this.addWidget(this._editor);
    this._editorModel.sharedModel.changed.connect(this._onEdit, this);
    options.model.docsChanged.connect(this._onChanged, this);
    this._renderBanner();
    void this.load();
  }

  readonly docId: string;

  get text(): string {
    return this._editorModel.sharedModel.getSource();
  }

  get dirty(): boolean {
    return this._state.dirty;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._editor.dispose();
    this._editorModel.dispose();
    super.dispose();
  }

  /** Load the doc as it is now; unsaved edits are first set aside in a tab of their own. */
  async load(): Promise<void> {
    if (this._state.dirty) {
      this._setAside();
    }
    const shown = this.text;
    try {
      const view = this.docId === 'index' ? await api.index() : await api.doc(this.docId);
      this._state = { ...this._state, error: null, refusal: null };
      if (!this._keptTyping(shown, view.sha256)) {
        this._setBase({ text: view.text, sha256: view.sha256, tier: view.tier, path: view.path });
      }
    } catch (error) {
      const refusal = asAPIError(error);
      if (refusal.status === 404 && this.docId !== 'index') {
        this._state = { ...this._state, error: null, refusal: null };
        if (!this._keptTyping(shown, null)) {
          this._setBase({ text: '', sha256: null, tier: 'local', path: '' });
        }
        return;
      }
      this._state = { ...this._state, error: refusal.message };
      this._renderBanner();
    }
  }

  async save(): Promise<void> {
    const base = this._state.base;
    if (!base || this._state.saving) {
      return;
    }
    const text = this.text;
    this._update({ saving: true });
    try {
      const result = await api.write(this.docId, text, base.sha256);
      const written = result.changes.length ? result.changes[0].after : text;
      const sha = writtenSha(result) ?? base.sha256;
      this._update({ refusal: null, staleSave: false });
      this._setBase({ text: written, sha256: sha, tier: 'local', path: base.path }, text);
      const what =
        result.outcome === 'unchanged'
          ? 'already had this text; nothing was written'
          : result.outcome === 'shadowed'
            ? 'saved as a local copy that now shadows the shipped doc'
            : result.outcome === 'created'
              ? `created${result.filed_under ? ` and filed under ${result.filed_under}` : ''}`
              : 'saved';
      Notification.success(`${this.title.label} ${what}.`, { autoClose: 3000 });
    } catch (error) {
      // Said once, in the banner: the store's stale message names a hash the user never saw.
      const refusal = asAPIError(error);
      if (refusal.stale) {
        this._update({ changedOnDisk: true, staleSave: true, refusal: null });
      } else {
        this._update({ refusal: refusal.message, staleSave: false });
      }
    } finally {
      this._update({ saving: false });
    }
  }

  /** What changed on disk since the text this edit started from. */
  async showChanges(): Promise<void> {
    const base = this._state.base;
    if (!base) {
      return;
    }
    try {
      const now = this.docId === 'index' ? await api.index() : await api.doc(this.docId);
      const body = new MergePane({
        before: base.text,
        after: now.text,
        beforeLabel: 'When you opened it (your edits started from this)',
        afterLabel: 'On disk now',
        language: await markdownLanguage(this._languages)
      });
      body.addClass('jp-biopbDocs-ChangedOnDisk');
      const widget = new MainAreaWidget({ content: body });
      widget.title.label = `${this.title.label}: changed on disk`;
      this._openAside(widget);
    } catch (error) {
      this._update({ refusal: asAPIError(error).message });
    }
  }

  protected onActivateRequest(msg: Message): void {
    this._editor.activate();
  }

  private _setAside(): void {
    const text = this.text;
    const aside = ReactWidget.create(
      <div className="jp-biopbDocs-DiffView">
        <p className="jp-biopbDocs-Note">
          Your unsaved edits to {this.title.label}, set aside when it was reloaded. Copy what you need
          back into the editor.
        </p>
        <pre className="jp-biopbDocs-Aside">{text}</pre>
      </div>
    );
    aside.addClass('jp-biopbDocs-Viewer');
    const widget = new MainAreaWidget({ content: aside });
    widget.title.label = `${this.title.label}: your unsaved edits`;
    this._openAside(widget);
  }

  /**
   * Whether the user typed while a load was answered (the editor no longer shows `shown`): those
   * edits started from the text shown, so they stay, and the next save stays guarded by that
   * text's sha (refused, and said, if the doc moved on to `loadedSha`).
   */
  private _keptTyping(shown: string, loadedSha: string | null): boolean {
    const base = this._state.base;
    if (!base || this.text === shown) {
      return false;
    }
    this._update({ dirty: this.text !== base.text, changedOnDisk: loadedSha !== base.sha256 });
    return true;
  }

  /** The text the next save is based on; the editor shows it unless the user typed since `sent`. */
  private _setBase(base: IBase, sent?: string): void {
    if ((sent === undefined || this.text === sent) && this.text !== base.text) {
      this._loading = true;
      this._editorModel.sharedModel.setSource(base.text);
      this._loading = false;
    }
    this._update({ base, dirty: this.text !== base.text, changedOnDisk: false, staleSave: false });
  }

  private _onEdit(): void {
    if (this._loading || !this._state.base) {
      return;
    }
    const dirty = this.text !== this._state.base.text;
    if (dirty !== this._state.dirty) {
      this._update({ dirty });
    }
  }

  private _onChanged(_: DocsModel, event: IChangedEvent): void {
    if (!event.ids.includes(this.docId) || this._state.saving) {
      return;
    }
    if (!this._state.dirty) {
      void this.load();
      return;
    }
    // Edits in progress: say so now, rather than at the refused save.
    void (this.docId === 'index' ? api.index() : api.doc(this.docId)).then(now => {
      if (this._state.base && now.sha256 !== this._state.base.sha256) {
        this._update({ changedOnDisk: true });
      }
    });
  }

  private _update(patch: Partial<IEditorState>): void {
    this._state = { ...this._state, ...patch };
    this._renderBanner();
  }

  private _renderBanner(): void {
    this.title.className = this._state.dirty ? 'jp-mod-dirty' : '';
    this._banner.update();
  }

  /** @internal what the banner shows */
  _state: IEditorState = {
    base: null,
    dirty: false,
    changedOnDisk: false,
    staleSave: false,
    saving: false,
    error: null,
    refusal: null
  };
  private _loading = false;
  private _banner: BannerWidget;
  private _editorModel: CodeEditor.Model;
  private _editor: CodeEditorWrapper;
  private _openAside: (widget: MainAreaWidget) => void;
  private _languages: IEditorLanguageRegistry | null;
}

class BannerWidget extends ReactWidget {
  constructor(private _editor: DocEditor) {
    super();
    this.addClass('jp-biopbDocs-EditorHeader');
  }

  protected render(): React.ReactElement {
    const editor = this._editor;
    return (
      <Banner
        id={editor.docId}
        state={editor._state}
        save={() => void editor.save()}
        reload={() => void editor.load()}
        showChanges={() => void editor.showChanges()}
      />
    );
  }
}

/** The editor's tab: closing it with unsaved edits asks first. */
export class DocEditorWidget extends MainAreaWidget<DocEditor> {
  protected onCloseRequest(msg: Message): void {
    if (!this.content.dirty) {
      super.onCloseRequest(msg);
      return;
    }
    void showDialog({
      title: `Close ${this.content.title.label} without saving?`,
      body: 'Your edits have not been saved to the store and will be lost.',
      buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Close without saving' })]
    }).then(result => {
      if (result.button.accept) {
        this.dispose();
      }
    });
  }
}
