/** Types of readme-blocks.mjs (plain ESM so that `node` can run it without a build). */
export declare const ROOT: string;

export interface Region {
  /** Repository-relative path of the snippet file. */
  file: string;
  /** The region's lines, dedented. */
  text: string;
}

export interface MarkedBlock {
  /** Repository-relative Markdown file the block is in. */
  file: string;
  kind: 'file' | 'snippet';
  name: string;
  /** 1-based line of the opening fence in `file`. */
  line: number;
  open: number;
  close: number;
  actual: string;
  expected: string;
}

export declare function readRegions(root?: string): Map<string, Region>;
export declare function publicSpecifiers(root?: string): Map<string, string>;
export declare function publicFileText(file: string, root?: string): string;
export declare function markdownFiles(root?: string): string[];
export declare function markedBlocks(
  markdown: string,
  root?: string,
  file?: string,
  regions?: Map<string, Region>,
): Promise<MarkedBlock[]>;
export declare function allMarkedBlocks(root?: string): Promise<MarkedBlock[]>;
export declare function writeMarkdown(root?: string): Promise<string[]>;
