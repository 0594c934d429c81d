/** The panel's commands: each is in the command palette under "Kernel Docs". */
export namespace CommandIDs {
  export const openPanel = 'biopb-docs:open-panel';
  export const refresh = 'biopb-docs:refresh';
  /** args: id, and section (what follows '#'); an id such as `flatfield#Steps` works too. */
  export const openDoc = 'biopb-docs:open-doc';
  export const showDiff = 'biopb-docs:show-diff';
  /** args: id; the review item of that doc, side by side, with Keep and Revert per change. */
  export const showReview = 'biopb-docs:show-review';
  /** args: id; the doc's kept versions. */
  export const showHistory = 'biopb-docs:show-history';
  /** args: id, older, newer (absent: the current text). */
  export const compareVersions = 'biopb-docs:compare-versions';
  export const editDoc = 'biopb-docs:edit-doc';
  export const editIndex = 'biopb-docs:edit-index';
  export const saveDoc = 'biopb-docs:save-doc';
  export const connectAgent = 'biopb-docs:connect-agent';
}

export const PALETTE_CATEGORY = 'Kernel Docs';
