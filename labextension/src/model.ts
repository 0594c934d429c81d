/**
 * What the panel shows, kept current: the index view and the review, fetched again whenever the
 * server extension says the store changed (its jupyter_events event), and the actions on them.
 */
import { Notification } from '@jupyterlab/apputils';
import { Event } from '@jupyterlab/services';
import { VDomModel } from '@jupyterlab/ui-components';
import { Signal } from '@lumino/signaling';

import {
  api,
  CHANGED_SCHEMA,
  DocsAPIError,
  IChangedEvent,
  IIndexView,
  IReviewItem,
  IReviewView,
  IWriteResult
} from './api';

/** How often the panel polls when the server offers no event stream (jupyterlab-git: 3 s). */
const POLL_MS = 3000;

export class DocsModel extends VDomModel {
  constructor(events: Event.IManager | null) {
    super();
    if (events) {
      events.stream.connect(this._onEvent, this);
      this.pushed = true;
    } else {
      this._poll = window.setInterval(() => void this.refresh(), POLL_MS);
    }
  }

  /** The index as the agent gets it, with the handshake cut; null before the first answer. */
  index: IIndexView | null = null;
  /** What changed since the user last reviewed; null before the first answer or if refused. */
  review: IReviewView | null = null;
  /** Why the panel could not read the store (the server extension missing, say). */
  error: DocsAPIError | null = null;
  /** The store's refusal of the user's last action, in full (a notification shows 140 characters). */
  refusal: string | null = null;
  /** Whether changes arrive through the event stream (else the panel polls). */
  readonly pushed: boolean = false;
  /** Keys of the actions in flight, so their buttons show it and cannot be pressed twice. */
  readonly busy = new Set<string>();
  /** Emitted for every change the server reports, so open viewers and editors follow it. */
  readonly docsChanged = new Signal<this, IChangedEvent>(this);

  private _poll = 0;
  private _inFlight: Promise<void> | null = null;
  private _again: Promise<void> | null = null;

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    window.clearInterval(this._poll);
    Signal.clearData(this);
    super.dispose();
  }

  /**
   * Fetch the index and the review again. Calls made while one runs coalesce into one more, and
   * resolve when that one has: what they wait for is a reading made after they were called.
   */
  refresh(): Promise<void> {
    if (!this._inFlight) {
      this._inFlight = this._fetch().finally(() => {
        this._inFlight = null;
      });
      return this._inFlight;
    }
    if (!this._again) {
      this._again = this._inFlight.then(() => {
        this._again = null;
        return this.refresh();
      });
    }
    return this._again;
  }

  private async _fetch(): Promise<void> {
    const [index, review] = await Promise.allSettled([api.index(), api.review()]);
    if (index.status === 'fulfilled') {
      const before = this.index?.sha256;
      this.index = index.value;
      this.error = null;
      if (!this.pushed && before && before !== index.value.sha256) {
        // polling knows only that the index moved: an open editor of index.md follows it
        this.docsChanged.emit({
          schema_id: CHANGED_SCHEMA,
          what: 'index',
          ids: ['index'],
          index_sha256: index.value.sha256
        });
      }
    } else {
      this.error = asAPIError(index.reason);
    }
    this.review = review.status === 'fulfilled' ? review.value : null;
    this.stateChanged.emit();
  }

  private _onEvent(_: Event.IManager, event: Event.Emission): void {
    if (event.schema_id !== CHANGED_SCHEMA) {
      return;
    }
    const changed = event as unknown as IChangedEvent;
    void this.refresh();
    this.docsChanged.emit(changed);
  }

  /** File a new shipped doc under `heading` (an existing one, or a new one at the end). */
  fileDoc(id: string, heading: string): Promise<void> {
    return this._act(`file:${id}`, `Filing ${id}`, index =>
      api.fileDoc(id, heading, index.sha256).then(result => {
        Notification.success(`Filed ${id} under ${result.filed_under ?? heading} in the index.`, {
          autoClose: 4000
        });
      })
    );
  }

  /** Put a shipped doc on the index's ignored: line. */
  ignoreDoc(id: string): Promise<void> {
    return this._act(`ignore:${id}`, `Ignoring ${id}`, index =>
      api.ignoreDoc(id, index.sha256).then(() => {
        Notification.success(
          `Added ${id} to the ignored: line; it stays readable by id. Remove it from that line to list it again.`,
          { autoClose: 5000 }
        );
      })
    );
  }

  /** "Looks good": the hunk (or, without one, the whole doc) counts as reviewed. */
  markReviewed(id: string, sha: string, hunk?: number): Promise<void> {
    const key = hunk === undefined ? `reviewed:${id}` : `reviewed:${id}:${hunk}`;
    return this._act(key, `Marking ${id} reviewed`, () =>
      api.markReviewed(id, sha, hunk).then(review => {
        this.review = review;
      })
    );
  }

  /** "Revert this change": an old/new write that puts the hunk back as it was. */
  revertHunk(id: string, hunk: number, sha: string): Promise<void> {
    return this._act(`revert:${id}:${hunk}`, `Reverting that change to ${id}`, () =>
      api.revertHunk(id, hunk, sha).then((result: IWriteResult) => {
        const what = result.outcome === 'unchanged' ? 'was already as it was' : 'is back as it was';
        Notification.success(`That change to ${id} ${what}.`, { autoClose: 4000 });
      })
    );
  }

  /** Retire a doc: remove its index line (its file stays, readable by id). */
  retire(id: string): Promise<void> {
    return this._act(`retire:${id}`, `Retiring ${id}`, index =>
      api.retire(id, index.sha256).then(() => {
        Notification.success(
          `Retired ${id}: its line left the index, so the agent is no longer told of it. The file stays, readable by id.`,
          { autoClose: 5000 }
        );
      })
    );
  }

  /** Drop a local copy whose text equals the shipped text, so the shipped doc is read again. */
  dropLocalCopy(id: string, sha: string): Promise<void> {
    return this._act(`drop:${id}`, `Dropping the local copy of ${id}`, () =>
      api.dropLocalCopy(id, sha).then(() => {
        Notification.success(`Dropped the local copy of ${id}: the shipped doc (and its later releases) is read again.`, {
          autoClose: 5000
        });
      })
    );
  }

  /** Write version `version` of a doc back (a new version), based on the history's `sha`. */
  restore(id: string, version: number, sha: string | null): Promise<void> {
    return this._act(`restore:${id}`, `Restoring v${version} of ${id}`, () =>
      api.restore(id, version, sha).then(result => {
        const what = result.outcome === 'unchanged' ? 'already had that text' : `has v${version}'s text again`;
        Notification.success(`${id === 'index' ? 'The index' : id} ${what}; the history keeps what it replaced.`, {
          autoClose: 5000
        });
      })
    );
  }

  /** The review item of `id`, or null when nothing of it is left to review. */
  reviewItem(id: string): IReviewItem | null {
    return this.review?.items.find(item => item.id === id) ?? null;
  }

  dismissRefusal(): void {
    this.refusal = null;
    this.stateChanged.emit();
  }

  private async _act(
    key: string,
    what: string,
    action: (index: IIndexView) => Promise<void>
  ): Promise<void> {
    if (this.busy.has(key) || !this.index) {
      return;
    }
    this.busy.add(key);
    this.stateChanged.emit();
    try {
      await action(this.index);
      this.refusal = null;
    } catch (error) {
      const refusal = asAPIError(error);
      // A stale action is said in the panel's words: the store's message names an internal hash.
      this.refusal = refusal.stale
        ? `${what} was refused: it was based on text that changed since the panel showed it, so nothing ` +
          'was changed. The panel now shows the current text; look again, then retry.'
        : refusal.message;
      Notification.error(`${what} was refused; the Kernel Docs panel says why.`, { autoClose: 8000 });
    } finally {
      // busy until the panel shows the store as the action left it
      await this.refresh();
      this.busy.delete(key);
      this.stateChanged.emit();
    }
  }
}

export function asAPIError(error: unknown): DocsAPIError {
  if (error instanceof DocsAPIError) {
    return error;
  }
  return new DocsAPIError(
    `The panel hit an unexpected error (${String(error)}). Refresh the page; if it stays, the browser console has the details.`,
    0,
    'bug'
  );
}
