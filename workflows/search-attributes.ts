import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes, so operators can list Switchboard's workflows in the Web UI
 * (`SwitchboardKind="run" AND Agent="explore"`). Registered by the embedded server at
 * start and checked by `switchboard doctor`.
 */
export const SwitchboardKind = defineSearchAttributeKey('SwitchboardKind', SearchAttributeType.KEYWORD);
export const Agent = defineSearchAttributeKey('Agent', SearchAttributeType.KEYWORD);
export const Repo = defineSearchAttributeKey('Repo', SearchAttributeType.KEYWORD);
export const Thread = defineSearchAttributeKey('Thread', SearchAttributeType.KEYWORD);
export const Requester = defineSearchAttributeKey('Requester', SearchAttributeType.KEYWORD);
export const Phase = defineSearchAttributeKey('Phase', SearchAttributeType.KEYWORD);
export const Outcome = defineSearchAttributeKey('Outcome', SearchAttributeType.KEYWORD);
export const PullRequest = defineSearchAttributeKey('PullRequest', SearchAttributeType.INT);

export const SEARCH_ATTRIBUTE_KEYS = [SwitchboardKind, Agent, Repo, Thread, Requester, Phase, Outcome, PullRequest];
