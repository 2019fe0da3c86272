/** Tree-sitter parsers for Node hosts of the fuzzer (its script, its workers): grammars read from node_modules. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { initParsers, type Parsers, type WasmName } from '../core/parsers';

const WASM: Record<WasmName, string> = {
  'web-tree-sitter.wasm': 'web-tree-sitter/web-tree-sitter.wasm',
  'tree-sitter-python.wasm': 'tree-sitter-python/tree-sitter-python.wasm',
  'tree-sitter-cuda.wasm': 'tree-sitter-cuda/tree-sitter-cuda.wasm',
};

export const REPO_ROOT = path.join(__dirname, '..', '..');

export function nodeParsers(): Promise<Parsers> {
  return initParsers(async (name) => fs.readFileSync(path.join(REPO_ROOT, 'node_modules', WASM[name])));
}
