import { type CgroupLayout } from './cgroups';

// What the isolation probe (./isolation) found, on its own so that what is derived from it
// (./bounds, which ./isolation's readiness carries) imports the shape without the probe.

/** How commands are confined: `bwrap` (namespaces) or `none` (unisolated, only by explicit configuration). */
export type IsolationMode = 'bwrap' | 'none';

export interface IsolationCheck {
  mode: IsolationMode;
  /** Why bubblewrap cannot be used here, when it cannot. */
  reason?: string;
  /** Whether setpriv is here to tie a call's command to the worker's life. */
  setpriv: boolean;
  /** Isolated: the architecture the seccomp filter is built for. */
  seccomp?: string;
  /** Isolated: where per-workspace cgroups go (`version: 'none'` without the controllers). */
  cgroups?: CgroupLayout;
  /** Isolated: whether workspace disks can be loop-mounted images (else folders, with no total bound). */
  diskImages?: boolean;
  diskImagesReason?: string;
}
