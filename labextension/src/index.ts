/**
 * biopb-kernel-docs in JupyterLab: a sidebar panel where the user reviews what the agent knows
 * (the index and its tails) and what it changed, searches, opens and edits docs, reads their
 * history, and connects an agent.
 */
import { ILayoutRestorer, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Dialog, ICommandPalette, InputDialog, MainAreaWidget, showDialog } from '@jupyterlab/apputils';
import { IEditorServices } from '@jupyterlab/codeeditor';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { Widget } from '@lumino/widgets';

import { api } from './api';
import { CommandIDs, PALETTE_CATEGORY } from './commands';
import { connectAgent } from './connect';
import { DocEditor, DocEditorWidget } from './editor';
import { docsIcon } from './icon';
import { HistoryViewer, VersionDiff } from './history';
import { MainArea } from './mainarea';
import { markdownLanguage } from './mergeview';
import { asAPIError, DocsModel } from './model';
import { DocsPanel } from './panel';
import { docLabel } from './review';
import { ReviewDiff } from './reviewdiff';
import { DiffViewer, DocViewer, splitSection } from './viewer';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'biopb-kernel-docs:plugin',
  description: 'The Kernel Docs panel: the index an agent reads, its tails, and a review of its changes.',
  autoStart: true,
  requires: [IRenderMimeRegistry, IEditorServices],
  optional: [ICommandPalette, INotebookTracker, ILayoutRestorer, IEditorLanguageRegistry],
  activate: (
    app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    editorServices: IEditorServices,
    palette: ICommandPalette | null,
    notebooks: INotebookTracker | null,
    restorer: ILayoutRestorer | null,
    languages: IEditorLanguageRegistry | null
  ) => {
    const { commands, shell } = app;
    const model = new DocsModel(app.serviceManager.events ?? null);
    const panel = new DocsPanel(model, commands);
    shell.add(panel, 'left', { rank: 850 });
    restorer?.add(panel, 'biopb-kernel-docs:panel'); // open again after a reload if it was open
    void model.refresh();
    const main = new MainArea(shell);
    const language = () => markdownLanguage(languages);

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
        const target = (args.id as string) ?? (await Private.askId('Open a kernel doc (id, or id#Heading)'));
        if (!target) {
          return;
        }
        // `flatfield#Steps` names a section, as a [[flatfield#Steps]] link does
        const split = splitSection(target);
        const section = (args.section as string | undefined) ?? split.section;
        const open = main.reveal(`doc:${split.id}`);
        if (open) {
          if (section !== null && open.content instanceof DocViewer) {
            await open.content.showSection(section);
          }
          return;
        }
        main.open(`doc:${split.id}`, new DocViewer({ id: split.id, model, rendermime, commands, section }));
      }
    });
    commands.addCommand(CommandIDs.showDiff, {
      label: args => (args.id ? `Diff ${args.id} against the shipped text` : 'Diff a local copy…'),
      execute: async args => {
        const id = (args.id as string) ?? (await Private.askId('Diff a local copy against shipped'));
        if (!id || main.reveal(`diff:${id}`)) {
          return;
        }
        main.open(`diff:${id}`, new DiffViewer({ id, model, language: await language() }));
      }
    });
    commands.addCommand(CommandIDs.showReview, {
      label: args => (args.id ? `Review the changes to ${docLabel(args.id as string)}` : 'Review a doc’s changes…'),
      execute: async args => {
        const id = (args.id as string) ?? (await Private.askId('Review the changes to a doc'));
        if (!id || main.reveal(`review:${id}`)) {
          return;
        }
        main.open(`review:${id}`, new ReviewDiff({ id, model, commands, language: await language() }));
      }
    });
    commands.addCommand(CommandIDs.compareVersions, {
      label: 'Compare two versions of a kernel doc',
      execute: async args => {
        const id = args.id as string;
        const older = Number(args.older);
        const newer = args.newer === undefined || args.newer === null ? null : Number(args.newer);
        const key = `versions:${id}:${older}:${newer ?? 'now'}`;
        if (!main.reveal(key)) {
          main.open(key, new VersionDiff({ id, older, newer, model, language: await language() }));
        }
      }
    });
    commands.addCommand(CommandIDs.showHistory, {
      label: args => (args.id ? `History of ${docLabel(args.id as string)}` : 'History of a kernel doc…'),
      caption: 'Every kept version, who made it and when; compare any two, restore one',
      execute: async args => {
        const id = (args.id as string) ?? (await Private.askId('The history of a kernel doc (or index)'));
        if (!id || main.reveal(`history:${id}`)) {
          return;
        }
        const compare = (doc: string, older: number, newer: number | null) =>
          void commands.execute(CommandIDs.compareVersions, { id: doc, older, newer });
        main.open(`history:${id}`, new HistoryViewer({ id, model, compare }));
      }
    });
    const openEditor = (id: string) => {
      if (main.reveal(`edit:${id}`)) {
        return;
      }
      const content = new DocEditor({ id, model, editorServices, languages, openAside: w => main.add(w) });
      const widget = new DocEditorWidget({ content });
      main.add(widget, `edit:${id}`);
    };
    commands.addCommand(CommandIDs.editDoc, {
      label: args => (args.id ? `Edit kernel doc ${args.id}` : 'Edit a kernel doc…'),
      execute: async args => {
        const id = (args.id as string) ?? (await Private.askId('Edit a kernel doc'));
        if (!id) {
          return;
        }
        if (id !== 'index' && !main.reveal(`edit:${id}`)) {
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
        CommandIDs.showHistory,
        CommandIDs.editIndex,
        CommandIDs.connectAgent
      ]) {
        palette.addItem({ command, category: PALETTE_CATEGORY });
      }
    }
  }
};

namespace Private {
  export function currentEditor(widget: Widget | null): DocEditor | null {
    return widget instanceof MainAreaWidget && widget.content instanceof DocEditor ? widget.content : null;
  }

  export async function askId(title: string): Promise<string | null> {
    const answer = await InputDialog.getText({ title, label: 'Doc id, such as flatfield or my-lab/nuclei' });
    return answer.button.accept && answer.value ? answer.value.trim() : null;
  }
}

export default plugin;
