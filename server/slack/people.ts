import { type SlackWebClient } from '../../activities/slack';

/** How long a person's name is reused before Slack is asked again. */
const NAME_TTL_MS = 3_600_000;
const MAX_NAMES = 5_000;

/**
 * People's names by Slack user id (`users.info`, the `users:read` scope), cached: what cards,
 * session pages and records show instead of an id. Unknown (Slack would not say) is remembered
 * as such for a while too, so a failing lookup costs one call an hour, never a message.
 */
export function slackNames(reader: SlackWebClient, now: () => number = Date.now): (userId: string) => Promise<string | undefined> {
  const cache = new Map<string, { name?: string; at: number }>();
  return async (userId) => {
    const cached = cache.get(userId);
    if (cached && now() - cached.at < NAME_TTL_MS) return cached.name;
    let name: string | undefined;
    try {
      const { user } = await reader.users.info({ user: userId });
      const profile = user?.profile;
      name = [profile?.display_name, profile?.real_name, user?.real_name, user?.name].find((candidate) => candidate?.trim())?.trim();
    } catch {
      name = undefined;
    }
    cache.delete(userId);
    cache.set(userId, { ...(name ? { name } : {}), at: now() });
    if (cache.size > MAX_NAMES) cache.delete(cache.keys().next().value!);
    return name;
  };
}
