/** Types of readme-blocks.mjs (plain ESM so that `node` can run it without a build). */
export declare const ROOT: string;

export interface Region {
  /** Repository-relative path of the snippet file. */
  file: string;
  /** The region's lines, dedented. */
  text: string;
}

export interface MarkedBlock {
  kind: 'file' | 'snippet';
  name: string;
  /** 1-based README line of the opening fence. */
  line: number;
  open: number;
  close: number;
  actual: string;
  expected: string;
}

export declare function readRegions(root?: string): Map<string, Region>;
export declare function publicSpecifiers(root?: string): Map<string, string>;
export declare function publicFileText(file: string, root?: string): string;
export declare function markedBlocks(readme: string, root?: string): Promise<MarkedBlock[]>;
export declare function writeReadme(root?: string): Promise<string[]>;
