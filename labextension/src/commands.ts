/** The panel's commands: each is in the command palette under "Kernel Docs". */
export namespace CommandIDs {
  export const openPanel = 'biopb-docs:open-panel';
  export const refresh = 'biopb-docs:refresh';
  export const openDoc = 'biopb-docs:open-doc';
  export const showDiff = 'biopb-docs:show-diff';
  export const editDoc = 'biopb-docs:edit-doc';
  export const editIndex = 'biopb-docs:edit-index';
  export const saveDoc = 'biopb-docs:save-doc';
  export const connectAgent = 'biopb-docs:connect-agent';
}

export const PALETTE_CATEGORY = 'Kernel Docs';
