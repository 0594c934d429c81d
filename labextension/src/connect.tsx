/**
 * "Connect an agent": the `claude mcp add` line and the JSON config that attach an agent's MCP
 * server to the active notebook's kernel, each with a copy button.
 */
import { Clipboard, Dialog, showDialog } from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ReactWidget } from '@jupyterlab/ui-components';
import * as React from 'react';

import { api, IConnectInfo } from './api';
import { asAPIError } from './model';

function CopyBlock(props: { label: string; text: string; name: string }): React.ReactElement {
  const [copied, setCopied] = React.useState(false);
  return (
    <div className={`jp-biopbDocs-CopyBlock jp-biopbDocs-CopyBlock-${props.name}`}>
      <div className="jp-biopbDocs-CopyHeader">
        <span>{props.label}</span>
        <button
          className="jp-biopbDocs-Button"
          onClick={() => {
            Clipboard.copyToSystem(props.text);
            setCopied(true);
            window.setTimeout(() => setCopied(false), 2000);
          }}
          aria-label={`Copy ${props.label}`}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <pre className="jp-biopbDocs-Code">{props.text}</pre>
    </div>
  );
}

function ConnectBody(props: { info: IConnectInfo; notebook: string }): React.ReactElement {
  const { info, notebook } = props;
  return (
    <div className="jp-biopbDocs-Connect">
      <p>
        An agent connected this way reads and writes the docs inside the kernel of{' '}
        <strong>{notebook}</strong>, the one your notebook uses, so it sees what you see.
      </p>
      <CopyBlock name="claude" label="Claude Code: run in a terminal" text={info.claude} />
      <CopyBlock
        name="json"
        label="Other MCP hosts: add to their JSON config"
        text={JSON.stringify(info.json, null, 2)}
      />
      <p className="jp-biopbDocs-Note">
        Kernel connection file: <code>{info.connection_file}</code>. After a kernel restart the file
        stays the same; after you shut the kernel down and start another, connect again.
      </p>
    </div>
  );
}

export async function connectAgent(notebooks: INotebookTracker | null): Promise<void> {
  const panel = notebooks?.currentWidget ?? null;
  if (!panel) {
    await showDialog({
      title: 'Connect an agent',
      body:
        'Open a notebook (or click into one) first: the agent connects to the kernel of the active ' +
        'notebook, so that you and it share one kernel and one store of docs.',
      buttons: [Dialog.okButton({ label: 'Close' })]
    });
    return;
  }
  await panel.sessionContext.ready;
  const kernel = panel.sessionContext.session?.kernel;
  let body: React.ReactElement;
  if (!kernel) {
    body = (
      <p>
        {panel.title.label} has no running kernel. Start one (Kernel → Restart Kernel, or pick a
        kernel in the notebook's toolbar), then connect again.
      </p>
    );
  } else {
    try {
      const info = await api.connect(kernel.id);
      body = <ConnectBody info={info} notebook={panel.title.label} />;
    } catch (error) {
      body = (
        <p className="jp-biopbDocs-Error" role="alert">
          {asAPIError(error).message}
        </p>
      );
    }
  }
  await showDialog({
    title: 'Connect an agent',
    body: ReactWidget.create(body),
    buttons: [Dialog.okButton({ label: 'Close' })]
  });
}
