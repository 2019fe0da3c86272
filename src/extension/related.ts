/**
 * Related files in the editor (src/core/related.ts): the project files a
 * kernel file names (`#import config`), read from the workspace — an open
 * editor's text first, so unsaved edits count — relative to the file that
 * names them. Texts are kept until the file changes on disk or in an editor;
 * then every document that read it is analysed again.
 */
import * as vscode from 'vscode';
import type { Language } from '../core/ir';
import { MAX_RELATED_BYTES, maxRelated, relatedFile, relatedRequests, type RelatedFile } from '../core/related';
import type { Owner } from './owner';

export class RelatedFiles {
  /** Text by URI (null: not there or not readable). */
  private readonly texts = new Map<string, string | null>();
  /** Related URI → the documents (URIs) that read it. */
  private readonly readers = new Map<string, Set<string>>();

  /** `changed` gets the documents to analyse again when a file they read changes. */
  constructor(owner: Owner, private readonly changed: (documents: string[]) => void) {
    const watcher = vscode.workspace.createFileSystemWatcher('**/*.{wgsl,py,h,hh,hpp,cuh}');
    owner.add(watcher);
    const touch = (uri: vscode.Uri): void => this.touch(uri.toString());
    owner.add(watcher.onDidChange(touch));
    owner.add(watcher.onDidCreate(touch));
    owner.add(watcher.onDidDelete(touch));
    owner.add(vscode.workspace.onDidChangeTextDocument((e) => this.touch(e.document.uri.toString())));
  }

  /** The texts of the related files `source` (the document at `uri`) names, and of those they name; undefined when it names none. */
  async read(uri: vscode.Uri, language: Language, source: string): Promise<Record<string, RelatedFile> | undefined> {
    const first = relatedRequests(language, source);
    if (first.length === 0) return undefined;
    const out: Record<string, RelatedFile> = {};
    const read = new Set<string>([uri.toString()]);
    const queue = [{ dir: vscode.Uri.joinPath(uri, '..'), requests: first }];
    const max = maxRelated(language);
    while (queue.length && read.size <= max) {
      const { dir, requests } = queue.shift()!;
      for (const r of requests) {
        if (read.size > max) break;
        for (const c of r.candidates) {
          const at = vscode.Uri.joinPath(dir, c);
          if (read.has(at.toString())) break;
          this.note(at.toString(), uri.toString());
          const text = await this.text(at);
          if (text === null) continue;
          const path = vscode.workspace.asRelativePath(at, false);
          // The same spec from another folder names another file: keyed apart (`read` holds the document too).
          out[out[r.spec] ? `${r.spec} ${path}` : r.spec] = relatedFile(language, read.size - 1, path, text);
          read.add(at.toString());
          queue.push({ dir: vscode.Uri.joinPath(at, '..'), requests: relatedRequests(language, text, r.names) });
          break;
        }
      }
    }
    return out;
  }

  private async text(uri: vscode.Uri): Promise<string | null> {
    const key = uri.toString();
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    if (open) return open.getText();
    const known = this.texts.get(key);
    if (known !== undefined) return known;
    let text: string | null = null;
    try {
      const bytes = await vscode.workspace.fs.readFile(uri);
      text = bytes.length <= MAX_RELATED_BYTES ? new TextDecoder().decode(bytes) : null;
    } catch {
      text = null;
    }
    this.texts.set(key, text);
    return text;
  }

  private note(related: string, reader: string): void {
    let set = this.readers.get(related);
    if (!set) this.readers.set(related, (set = new Set()));
    set.add(reader);
  }

  private touch(key: string): void {
    const readers = this.readers.get(key);
    this.texts.delete(key);
    if (readers?.size) this.changed([...readers]);
  }
}
