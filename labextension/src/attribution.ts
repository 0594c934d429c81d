/**
 * Who made a version and when, in the panel's words: the server labels each author
 * (`claude-code 2.1 via MCP`, `panel as alice`); the panel adds the time, relative and exact.
 */
import { Time } from '@jupyterlab/coreutils';

import { IReviewItem, IVersionInfo } from './api';

export function versionDate(version: IVersionInfo): Date {
  return new Date(version.time * 1000);
}

/** "5 minutes ago" ("just now" within a minute), with the exact time for a tooltip. */
export function when(version: IVersionInfo): { relative: string; exact: string } {
  const date = versionDate(version);
  const recent = Math.abs(Date.now() - date.getTime()) < 60_000;
  return { relative: recent ? 'just now' : Time.formatHuman(date), exact: Time.format(date) };
}

/** "+3 −1 lines" (a version's own count of what it changed). */
export function lineCounts(added: number, removed: number): string {
  return `+${added} \u2212${removed} ${added + removed === 1 ? 'line' : 'lines'}`;
}

/** The versions of `item` that made hunk `numbers`, newest first. */
export function versionsOf(item: IReviewItem, numbers: number[]): IVersionInfo[] {
  return item.changes.filter(version => numbers.includes(version.number));
}

/**
 * One line naming who made these versions and when: "claude-code 2.1 via MCP, 5 minutes ago (v4)";
 * several authors are listed newest first. Empty versions: made before history was kept.
 */
export function madeBy(versions: IVersionInfo[]): string {
  if (!versions.length) {
    return 'made before history was kept';
  }
  const byAuthor = new Map<string, IVersionInfo[]>();
  for (const version of versions) {
    const label = version.author.label;
    byAuthor.set(label, [...(byAuthor.get(label) ?? []), version]);
  }
  const parts = [...byAuthor].map(([label, made]) => {
    const numbers = made.map(v => `v${v.number}`).join(', ');
    return `${label}, ${when(made[0]).relative} (${numbers})`;
  });
  return `by ${parts.join('; ')}`;
}

/** +/- line counts of a review item's hunks. */
export function hunkLineCounts(item: IReviewItem): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const hunk of item.hunks) {
    for (const line of hunk.lines) {
      added += line.startsWith('+') ? 1 : 0;
      removed += line.startsWith('-') ? 1 : 0;
    }
  }
  return { added, removed };
}
