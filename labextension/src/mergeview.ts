/**
 * Two texts side by side in JupyterLab's own CodeMirror 6, through `@codemirror/merge`: the
 * review's diff, a doc against an earlier version, a local copy against the shipped text. Both
 * sides are read-only; what changes a doc goes through the store, never through this editor.
 *
 * The editors take JupyterLab's theme (its CSS variables, so light and dark both hold) and its
 * Markdown language from the editor language registry. When the server's hunks are given, the
 * view shows exactly those (so hunk n of the view is hunk n of the review, which the keep and
 * revert operations name), each with its controls above it.
 */
import { Change, MergeView, presentableDiff } from '@codemirror/merge';
import { EditorState, Extension, Range } from '@codemirror/state';
import { Decoration, EditorView, lineNumbers, WidgetType } from '@codemirror/view';
import { IEditorLanguageRegistry, jupyterTheme } from '@jupyterlab/codemirror';
import { Widget } from '@lumino/widgets';

/** 0-based lines [start, end) of a text. */
export interface ILineRange {
  start: number;
  end: number;
}

/** One hunk: the lines it replaced in the text before and the lines it holds in the text after. */
export interface IDiffHunk {
  before: ILineRange;
  after: ILineRange;
}

const HEADER = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@/;

/**
 * A review hunk's line ranges, from its header: `@@ -a,n +b,m @@` names the first changed line of
 * each side (1-based) and how many lines changed there (the store's review writes no context
 * into the counts). Null for a header of another shape.
 */
export function hunkRanges(header: string): IDiffHunk | null {
  const match = HEADER.exec(header);
  if (!match) {
    return null;
  }
  const [a, n, b, m] = match.slice(1).map(Number);
  return { before: { start: a - 1, end: a - 1 + n }, after: { start: b - 1, end: b - 1 + m } };
}

/** Where each line starts, plus the text's length: `starts[k]` for line k, clamped to the end. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
    starts.push(at + 1);
  }
  return starts;
}

function offset(starts: number[], text: string, line: number): number {
  return line < starts.length ? starts[line] : text.length;
}

/**
 * The changes the view shows for the server's hunks: inside each hunk, the word-level diff
 * CodeMirror would present; nothing outside the hunks.
 */
function changesOf(before: string, after: string, hunks: IDiffHunk[]): Change[] {
  const a = lineStarts(before);
  const b = lineStarts(after);
  const changes: Change[] = [];
  for (const hunk of hunks) {
    const fromA = offset(a, before, hunk.before.start);
    const toA = offset(a, before, hunk.before.end);
    const fromB = offset(b, after, hunk.after.start);
    const toB = offset(b, after, hunk.after.end);
    for (const change of presentableDiff(before.slice(fromA, toA), after.slice(fromB, toB))) {
      changes.push(new Change(change.fromA + fromA, change.toA + fromA, change.fromB + fromB, change.toB + fromB));
    }
  }
  return changes;
}

/** A hunk's bar, above its first line on one side. */
class ControlWidget extends WidgetType {
  constructor(
    readonly hunk: number,
    readonly dom: HTMLElement
  ) {
    super();
  }

  eq(other: ControlWidget): boolean {
    return other.dom === this.dom;
  }

  toDOM(): HTMLElement {
    return this.dom;
  }

  /** Clicks and keys on the controls are the controls', not the editor's. */
  ignoreEvent(): boolean {
    return true;
  }
}

export interface IMergePaneOptions {
  before: string;
  after: string;
  /** What each side is, shown above it ("Last reviewed", "v3 · 2 hours ago · claude-code via MCP"). */
  beforeLabel: string;
  afterLabel: string;
  /** The server's hunks; without them CodeMirror finds the differences itself. */
  hunks?: IDiffHunk[];
  /**
   * The bars of hunk n, shown above it: one on each side, of one fixed height (set in CSS), so
   * the two sides stay aligned; together they read as one bar across the view.
   */
  controls?: (hunk: number) => { before: HTMLElement; after: HTMLElement } | null;
  /** Extra extensions for both editors: the language, say. */
  language?: Extension | null;
}

/** The side-by-side view, in a widget that scrolls it. */
export class MergePane extends Widget {
  constructor(options: IMergePaneOptions) {
    super();
    this.addClass('jp-biopbDocs-Merge');
    const labels = document.createElement('div');
    labels.className = 'jp-biopbDocs-MergeLabels';
    for (const [side, text] of [
      ['before', options.beforeLabel],
      ['after', options.afterLabel]
    ]) {
      const label = document.createElement('div');
      label.className = `jp-biopbDocs-MergeLabel jp-biopbDocs-MergeLabel-${side}`;
      label.textContent = text;
      labels.appendChild(label);
    }
    this.node.appendChild(labels);
    const holder = document.createElement('div');
    holder.className = 'jp-biopbDocs-MergeHolder';
    this.node.appendChild(holder);

    const shared: Extension[] = [
      jupyterTheme,
      lineNumbers(),
      EditorView.lineWrapping,
      EditorState.readOnly.of(true),
      EditorView.editable.of(false),
      options.language ?? []
    ];
    const hunks = options.hunks;
    const bars: { before: Range<Decoration>[]; after: Range<Decoration>[] } = { before: [], after: [] };
    if (hunks && options.controls) {
      const starts = { before: lineStarts(options.before), after: lineStarts(options.after) };
      hunks.forEach((hunk, n) => {
        const dom = options.controls!(n);
        for (const side of dom ? (['before', 'after'] as const) : []) {
          const line = hunk[side].start;
          const widget = Decoration.widget({
            widget: new ControlWidget(n, dom![side]),
            block: true,
            side: line >= starts[side].length ? 1 : -1 // past the last line: below it
          });
          bars[side].push(widget.range(offset(starts[side], options[side], line)));
        }
      });
    }
    const decorate = (side: 'before' | 'after') => EditorView.decorations.of(Decoration.set(bars[side], true));
    this.view = new MergeView({
      a: { doc: options.before, extensions: [shared, decorate('before')] },
      b: { doc: options.after, extensions: [shared, decorate('after')] },
      parent: holder,
      gutter: true,
      highlightChanges: true,
      collapseUnchanged: { margin: 3, minSize: 8 },
      diffConfig: hunks ? { override: (a, b) => changesOf(a, b, hunks) } : { scanLimit: 500 }
    });
  }

  readonly view: MergeView;

  /** What scrolls: the merge view itself (its two editors grow with their text). */
  get scroller(): HTMLElement {
    return this.view.dom;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.view.destroy();
    super.dispose();
  }
}

let markdown: Promise<Extension | null> | null = null;

/** JupyterLab's Markdown language for the editors, loaded once (null: no registry, plain text). */
export function markdownLanguage(languages: IEditorLanguageRegistry | null): Promise<Extension | null> {
  if (!languages) {
    return Promise.resolve(null);
  }
  if (!markdown) {
    markdown = languages
      .getLanguage('markdown')
      .then(language => language?.support ?? null)
      .catch(() => null);
  }
  return markdown;
}
