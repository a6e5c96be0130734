import { type WorkspaceLayout } from './workspace-layout';

/**
 * A host folder a workspace's sandbox sees read-only besides its own disk (a repository's object
 * cache, docs/sandbox.md#warm-repositories). The source must be a folder whose every component
 * the worker owns: the bind is made by root, which follows links, so nothing a sandbox wrote may
 * lie on its path.
 */
export interface HolderBind {
  /** The host folder. */
  source: string;
  /** Where the sandbox sees it (read-only). */
  target: string;
  /** What it is, kept in the holder's record: a holder started without it is restarted to get it. */
  label: string;
}

/** What a workspace's holder is started with beyond the defaults. */
export interface HolderSetup {
  binds: HolderBind[];
  /** The workspace's disk is a plain folder owned by its uid, never an image (a cache whose files the worker seals). */
  folderDisk?: boolean;
}

/** Asked each time a holder starts. */
export type HolderSetupProvider = (layout: WorkspaceLayout) => Promise<HolderSetup>;

export const NO_HOLDER_SETUP: HolderSetup = { binds: [] };

/** The labels of a holder's binds, in a stable order (what holder.json keeps). */
export function bindLabels(binds: readonly HolderBind[]): string[] {
  return binds.map((bind) => bind.label).sort();
}
