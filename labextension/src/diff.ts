/**
 * A line diff for the editor's "what changed" view: the text an edit started from against the
 * text on disk now. Docs are capped at 300 lines, so a plain LCS table is small enough.
 */
import type { IHunk } from './api';

const CONTEXT = 3;

type Op = ' ' | '-' | '+';

function lines(text: string): string[] {
  const all = text.split('\n');
  if (all.length && all[all.length - 1] === '') {
    all.pop();
  }
  return all;
}

function script(a: string[], b: string[]): [Op, string][] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: length of the longest common subsequence of a[i:] and b[j:]
  const lcs: Uint16Array[] = [];
  for (let i = 0; i <= n; i++) {
    lcs.push(new Uint16Array(m + 1));
  }
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: [Op, string][] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push([' ', a[i]]);
      i++;
      j++;
    } else if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out.push(['+', b[j]]);
      j++;
    } else {
      out.push(['-', a[i]]);
      i++;
    }
  }
  return out;
}

/** The hunks (unified-diff style, three lines of context) that turn `before` into `after`. */
export function lineDiff(before: string, after: string): IHunk[] {
  const ops = script(lines(before), lines(after));
  const changed = ops.map(([op]) => op !== ' ');
  const hunks: IHunk[] = [];
  let k = 0;
  while (k < ops.length) {
    if (!changed[k]) {
      k++;
      continue;
    }
    const start = Math.max(0, k - CONTEXT);
    let end = k;
    // extend while the next change is within two contexts of the last one
    while (end < ops.length) {
      let next = end;
      while (next < ops.length && !changed[next]) {
        next++;
      }
      if (next === ops.length || next - end > 2 * CONTEXT) {
        break;
      }
      end = next + 1;
    }
    end = Math.min(ops.length, end + CONTEXT);
    // line numbers of the hunk's first line in each text
    let aLine = 1;
    let bLine = 1;
    for (let p = 0; p < start; p++) {
      aLine += ops[p][0] !== '+' ? 1 : 0;
      bLine += ops[p][0] !== '-' ? 1 : 0;
    }
    const slice = ops.slice(start, end);
    const aCount = slice.filter(([op]) => op !== '+').length;
    const bCount = slice.filter(([op]) => op !== '-').length;
    hunks.push({
      index: hunks.length,
      header: `@@ -${aCount ? aLine : aLine - 1},${aCount} +${bCount ? bLine : bLine - 1},${bCount} @@`,
      lines: slice.map(([op, text]) => op + text)
    });
    k = end;
  }
  return hunks;
}

export type DiffLineKind = 'add' | 'remove' | 'hunk' | 'file' | 'context';

/**
 * The kind of each line of a diff. In a whole unified diff (`unified`), the lines before the
 * first `@@` are file headers; inside a hunk only the first character counts, so a removed
 * `---` frontmatter line is a removal, not a header.
 */
export function diffLineKinds(lines: string[], unified = false): DiffLineKind[] {
  let inHunk = !unified;
  return lines.map(line => {
    if (line.startsWith('@@')) {
      inHunk = true;
      return 'hunk';
    }
    if (!inHunk) {
      return 'file';
    }
    if (line.startsWith('+')) {
      return 'add';
    }
    if (line.startsWith('-')) {
      return 'remove';
    }
    return 'context';
  });
}
