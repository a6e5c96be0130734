import { z } from 'zod';
import { PlanConfigSchema, ReviewConfigSchema, ShipConfigSchema } from './ship-section';
import { AgentsConfigSchema } from '../../agents/config';
import { ModelsConfigSchema } from './models-section';
import { GitHubConfigSchema } from './github-section';
import { SandboxConfigSchema } from './sandbox-section';
import { SlackConfigSchema } from './slack-section';
import { SkillsConfigSchema, WebConfigSchema } from './web-section';
import { ApiConfigSchema } from './api-section';
import { PayloadsConfigSchema } from './payloads-section';
import { CodecConfigSchema } from './codec-section';
import { PricesConfigSchema } from './prices-section';
import { SpendConfigSchema } from './spend-section';
import { AdmissionConfigSchema } from './admission-section';
import { SessionsConfigSchema } from './sessions-section';
import { RepositoriesConfigSchema } from './repository-section';
import { McpConfigSchema } from './mcp-section';
import { BoardConfigSchema } from './board-section';

/**
 * One schema for all of Switchboard's settings. Every field has a default, so an empty
 * file (or none) is a valid local setup. Secrets are not here: they come from the
 * environment only (see `secrets.ts`).
 */
export const TemporalConfigSchema = z
  .object({
    /** host:port of an existing Temporal; when unset, an embedded dev server is started. */
    address: z
      .string()
      .regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]*)(:\d{1,5})?$/, {
        error: (issue) => `expected host:port (e.g. 127.0.0.1:7233, no scheme), got ${JSON.stringify(issue.input)}`,
      })
      .optional(),
    namespace: z.string().min(1).default('default'),
    /**
     * The profile of Temporal's client config file (TEMPORAL_CONFIG_FILE, else
     * ~/.config/temporalio/temporal.toml) to start from; unset: TEMPORAL_PROFILE, else "default".
     */
    profile: z.string().min(1).optional(),
    /**
     * TLS to the configured Temporal (over the profile's). Files are PEM; relative paths sit
     * next to this config file. An API key comes from TEMPORAL_API_KEY only (a secret).
     */
    tls: z
      .object({
        /** false turns TLS off even when the profile or an API key would turn it on. */
        enabled: z.boolean().optional(),
        serverCaFile: z.string().min(1).optional(),
        clientCertFile: z.string().min(1).optional(),
        clientKeyFile: z.string().min(1).optional(),
        serverName: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
    taskQueue: z.string().min(1).default('switchboard'),
    /** Base URL of the Web UI, used in links (defaults to the embedded UI). */
    uiUrl: z.url().optional(),
    embedded: z
      .object({
        ip: z.string().default('127.0.0.1'),
        port: z.number().int().min(1).max(65535).default(7233),
        uiPort: z.number().int().min(1).max(65535).default(8233),
        ui: z.boolean().default(true),
        /** SQLite file; relative paths are under `dataDir`. */
        dbFile: z.string().default('temporal.sqlite'),
        readyTimeoutMs: z.number().int().positive().default(60_000),
        logLevel: z.enum(['debug', 'info', 'warn', 'error']).default('warn'),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export const HttpConfigSchema = z
  .object({
    host: z.string().default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(3000),
    /** Public base URL of this server, used in links and in the Slack manifest. */
    publicUrl: z.url().optional(),
  })
  .strict();

export const LogConfigSchema = z
  .object({
    level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
    /** `auto`: readable in a terminal, JSON lines otherwise. */
    format: z.enum(['auto', 'json', 'pretty']).default('auto'),
  })
  .strict();

export const ExternalServicesConfigSchema = z
  .object({
    /** Wait before checking again an outside service (Slack, GitHub, a model API) that failed at start; doubles per failure. */
    retryInitialMs: z.number().int().positive().default(1_000),
    /** The longest wait between two checks of a service that is down. */
    retryMaxMs: z.number().int().positive().default(60_000),
  })
  .strict();

export const MetricsConfigSchema = z
  .object({
    /**
     * Port of this process's Prometheus endpoint (GET /metrics): the Temporal runtime's worker
     * and client series and the front ends' own. Unset: no endpoint.
     */
    port: z.number().int().min(0).max(65535).optional(),
    host: z.string().default('127.0.0.1'),
  })
  .strict();

export const ConfigSchema = z
  .object({
    dataDir: z.string().min(1).default('.data'),
    temporal: TemporalConfigSchema.prefault({}),
    http: HttpConfigSchema.prefault({}),
    log: LogConfigSchema.prefault({}),
    agents: AgentsConfigSchema.prefault({}),
    admission: AdmissionConfigSchema.prefault({}),
    models: ModelsConfigSchema.prefault({}),
    github: GitHubConfigSchema.prefault({}),
    review: ReviewConfigSchema.prefault({}),
    ship: ShipConfigSchema.prefault({}),
    plan: PlanConfigSchema.prefault({}),
    slack: SlackConfigSchema.prefault({}),
    web: WebConfigSchema.prefault({}),
    skills: SkillsConfigSchema.prefault({}),
    sandbox: SandboxConfigSchema.prefault({}),
    externalServices: ExternalServicesConfigSchema.prefault({}),
    api: ApiConfigSchema.prefault({}),
    metrics: MetricsConfigSchema.prefault({}),
    payloads: PayloadsConfigSchema.prefault({}),
    codec: CodecConfigSchema.prefault({}),
    prices: PricesConfigSchema.prefault({}),
    spend: SpendConfigSchema.prefault({}),
    sessions: SessionsConfigSchema.prefault({}),
    /** owner/name -> the keys of its `.switchboard.yml`, set by the deployment (the stricter wins where both set one). */
    repositories: RepositoriesConfigSchema.default({}),
    mcp: McpConfigSchema.prefault({}),
    /** Slack channels' team boards (a repository's is its `.switchboard.yml` `board`, or `repositories.<owner/name>.board`). */
    board: BoardConfigSchema,
  })
  .strict()
  .superRefine((config, context) => {
    const ids = new Set(config.api.tokens.map((token) => token.id));
    config.codec.tokenIds?.forEach((id, index) => {
      if (!ids.has(id))
        context.addIssue({ code: 'custom', path: ['codec', 'tokenIds', index], message: `no api.tokens entry has the id ${id}` });
    });
  });

export type SwitchboardConfig = z.infer<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;
