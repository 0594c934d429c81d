/**
 * biopb-kernel-docs in JupyterLab: a sidebar panel where the user reviews what the agent knows
 * (the index and its tails) and what it changed, opens and edits docs, and connects an agent.
 */
import { ILayoutRestorer, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import {
  Dialog,
  ICommandPalette,
  InputDialog,
  MainAreaWidget,
  showDialog,
  WidgetTracker
} from '@jupyterlab/apputils';
import { IEditorServices } from '@jupyterlab/codeeditor';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { Widget } from '@lumino/widgets';

import { api } from './api';
import { CommandIDs, PALETTE_CATEGORY } from './commands';
import { connectAgent } from './connect';
import { DocEditor, DocEditorWidget } from './editor';
import { docsIcon } from './icon';
import { asAPIError, DocsModel } from './model';
import { DocsPanel } from './panel';
import { DiffViewer, DocViewer } from './viewer';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'biopb-kernel-docs:plugin',
  description: 'The Kernel Docs panel: the index an agent reads, its tails, and a review of its changes.',
  autoStart: true,
  requires: [IRenderMimeRegistry, IEditorServices],
  optional: [ICommandPalette, INotebookTracker, ILayoutRestorer],
  activate: (
    app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    editorServices: IEditorServices,
    palette: ICommandPalette | null,
    notebooks: INotebookTracker | null,
    restorer: ILayoutRestorer | null
  ) => {
    const { commands, shell } = app;
    const model = new DocsModel(app.serviceManager.events ?? null);
    const panel = new DocsPanel(model, commands);
    shell.add(panel, 'left', { rank: 850 });
    restorer?.add(panel, 'biopb-kernel-docs:panel'); // open again after a reload if it was open
    void model.refresh();

    const viewers = new WidgetTracker<MainAreaWidget>({ namespace: 'biopb-kernel-docs' });
    const addToMain = (widget: MainAreaWidget) => {
      widget.title.icon = docsIcon;
      widget.id = widget.id || `biopb-docs-${Private.counter++}`;
      shell.add(widget, 'main');
      void viewers.add(widget);
      shell.activateById(widget.id);
    };
    /** The open tab for `key`, brought to the front, or null. */
    const reveal = (key: string): boolean => {
      const open = viewers.find(w => w.node.dataset.biopbDocsKey === key);
      if (open) {
        shell.activateById(open.id);
      }
      return !!open;
    };
    const openIn = (key: string, widget: MainAreaWidget) => {
      widget.node.dataset.biopbDocsKey = key;
      addToMain(widget);
    };

    commands.addCommand(CommandIDs.openPanel, {
      label: 'Show the Kernel Docs panel',
      caption: 'The index your agent reads, what it changed, and the new shipped docs',
      icon: docsIcon,
      execute: () => shell.activateById(panel.id)
    });
    commands.addCommand(CommandIDs.refresh, {
      label: 'Refresh the Kernel Docs panel',
      execute: () => model.refresh()
    });
    commands.addCommand(CommandIDs.openDoc, {
      label: args => (args.id ? `Open kernel doc ${args.id}` : 'Open a kernel doc…'),
      execute: async args => {
        const id = (args.id as string) ?? (await Private.askId('Open a kernel doc'));
        if (!id || reveal(`doc:${id}`)) {
          return;
        }
        openIn(`doc:${id}`, new MainAreaWidget({ content: new DocViewer({ id, model, rendermime, commands }) }));
      }
    });
    commands.addCommand(CommandIDs.showDiff, {
      label: args => (args.id ? `Diff ${args.id} against the shipped text` : 'Diff a local copy…'),
      execute: async args => {
        const id = (args.id as string) ?? (await Private.askId('Diff a local copy against shipped'));
        if (!id || reveal(`diff:${id}`)) {
          return;
        }
        openIn(`diff:${id}`, new MainAreaWidget({ content: new DiffViewer({ id, model }) }));
      }
    });
    const openEditor = (id: string) => {
      if (reveal(`edit:${id}`)) {
        return;
      }
      const content = new DocEditor({ id, model, editorServices, openAside: addToMain });
      openIn(`edit:${id}`, new DocEditorWidget({ content }));
    };
    commands.addCommand(CommandIDs.editDoc, {
      label: args => (args.id ? `Edit kernel doc ${args.id}` : 'Edit a kernel doc…'),
      execute: async args => {
        const id = (args.id as string) ?? (await Private.askId('Edit a kernel doc'));
        if (!id) {
          return;
        }
        if (id !== 'index' && !reveal(`edit:${id}`)) {
          try {
            const view = await api.doc(id);
            if (view.tier === 'shipped') {
              const answer = await showDialog({
                title: `${id} is a shipped doc`,
                body:
                  `Editing it creates a local copy in your docs directory when you save. The copy ` +
                  `shadows the shipped text (the index marks it "(local copy)"), and the shipped ` +
                  `file itself is never changed.`,
                buttons: [Dialog.cancelButton(), Dialog.okButton({ label: 'Edit a local copy' })]
              });
              if (!answer.button.accept) {
                return;
              }
            }
          } catch (error) {
            // A doc that does not exist yet is created by its first save.
            if (asAPIError(error).status !== 404) {
              throw error;
            }
          }
        }
        openEditor(id);
      }
    });
    commands.addCommand(CommandIDs.editIndex, {
      label: 'Edit the docs index (index.md)',
      caption: 'index.md in an editor whose save goes through the store',
      execute: () => openEditor('index')
    });
    commands.addCommand(CommandIDs.saveDoc, {
      label: 'Save the kernel doc through the store',
      isEnabled: () => Private.currentEditor(shell.currentWidget) !== null,
      execute: () => Private.currentEditor(shell.currentWidget)?.save()
    });
    commands.addKeyBinding({
      command: CommandIDs.saveDoc,
      keys: ['Accel S'],
      selector: '.jp-biopbDocs-Editor'
    });
    commands.addCommand(CommandIDs.connectAgent, {
      label: 'Connect an agent to this notebook’s kernel',
      caption: 'The claude mcp add line and the JSON config for the active notebook’s kernel',
      execute: () => connectAgent(notebooks)
    });

    if (palette) {
      for (const command of [
        CommandIDs.openPanel,
        CommandIDs.refresh,
        CommandIDs.openDoc,
        CommandIDs.editIndex,
        CommandIDs.connectAgent
      ]) {
        palette.addItem({ command, category: PALETTE_CATEGORY });
      }
    }
  }
};

namespace Private {
  export let counter = 0;

  export function currentEditor(widget: Widget | null): DocEditor | null {
    return widget instanceof MainAreaWidget && widget.content instanceof DocEditor ? widget.content : null;
  }

  export async function askId(title: string): Promise<string | null> {
    const answer = await InputDialog.getText({ title, label: 'Doc id, such as flatfield or my-lab/nuclei' });
    return answer.button.accept && answer.value ? answer.value.trim() : null;
  }
}

export default plugin;
