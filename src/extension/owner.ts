/**
 * Ownership of registrations: everything the extension registers (providers,
 * commands, listeners, timers, panels) is added to an owner, and disposing
 * the owner disposes all of it, last registered first. Kept free of `vscode`
 * so it is unit-tested directly; `vscode.Disposable` fits `DisposableLike`.
 */

export interface DisposableLike {
  dispose(): unknown;
}

export class Owner implements DisposableLike {
  private items: DisposableLike[] = [];
  private disposed = false;

  /** Takes ownership of `item` and returns it; an item added after disposal is disposed at once. */
  add<T extends DisposableLike>(item: T): T {
    if (this.disposed) disposeQuietly(item);
    else this.items.push(item);
    return item;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Disposes every owned item in reverse order; one failing item does not stop the others. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const items = this.items;
    this.items = [];
    for (let i = items.length - 1; i >= 0; i--) disposeQuietly(items[i]);
  }
}

function disposeQuietly(item: DisposableLike): void {
  try {
    item.dispose();
  } catch {
    // A failing dispose must not keep the remaining registrations alive.
  }
}
