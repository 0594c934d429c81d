/**
 * The panel's tabs in the main area (docs, diffs, histories, editors), each under a key such as
 * `doc:flatfield`, so opening what is already open brings its tab to the front instead.
 */
import { ILabShell, JupyterFrontEnd } from '@jupyterlab/application';
import { MainAreaWidget, WidgetTracker } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { docsIcon } from './icon';

export class MainArea {
  constructor(shell: JupyterFrontEnd.IShell | ILabShell) {
    this._shell = shell;
  }

  readonly tracker = new WidgetTracker<MainAreaWidget>({ namespace: 'biopb-kernel-docs' });

  /** The open tab for `key`, brought to the front; null when there is none. */
  reveal(key: string): MainAreaWidget | null {
    const open = this.tracker.find(widget => widget.node.dataset.biopbDocsKey === key) ?? null;
    if (open) {
      this._shell.activateById(open.id);
    }
    return open;
  }

  /** Add `widget` to the main area under `key` (none: a tab that is never revealed again). */
  add(widget: MainAreaWidget, key?: string): void {
    if (key) {
      widget.node.dataset.biopbDocsKey = key;
    }
    widget.title.icon = docsIcon;
    widget.id = widget.id || `biopb-docs-${MainArea._counter++}`;
    this._shell.add(widget, 'main');
    void this.tracker.add(widget);
    this._shell.activateById(widget.id);
  }

  /** `content` in a tab of its own under `key`. */
  open(key: string, content: Widget): MainAreaWidget {
    const widget = new MainAreaWidget({ content });
    this.add(widget, key);
    return widget;
  }

  private _shell: JupyterFrontEnd.IShell | ILabShell;
  private static _counter = 0;
}
