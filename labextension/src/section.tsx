import * as React from 'react';

/** Collapsible part of the panel; its header is a button, so the keyboard reaches it. */
export function Section(props: {
  name: string;
  title: string;
  count?: number;
  children: React.ReactNode;
}): React.ReactElement {
  const [open, setOpen] = React.useState(true);
  const bodyId = `jp-biopbDocs-section-${props.name}`;
  return (
    <section className={`jp-biopbDocs-Section jp-biopbDocs-Section-${props.name}`}>
      <h3 className="jp-biopbDocs-SectionTitle">
        <button
          className="jp-biopbDocs-SectionToggle"
          aria-expanded={open}
          aria-controls={bodyId}
          onClick={() => setOpen(!open)}
        >
          <span className="jp-biopbDocs-Caret" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          {props.title}
          {props.count !== undefined && <span className="jp-biopbDocs-Count">{props.count}</span>}
        </button>
      </h3>
      <div id={bodyId} hidden={!open}>
        {props.children}
      </div>
    </section>
  );
}

/** A heading line of the index as the panel shows it: without its #s. */
export function headingText(heading: string | null): string {
  return heading ? heading.replace(/^#+\s*/, '') : '(before any heading)';
}
