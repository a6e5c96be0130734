import { getTool, modelToolSchemas, TOOL_NAMES, TOOLS, type ToolName } from './registry';
import { parseToolInput, toolJsonSchema } from './tool';
import { BASH_TIMEOUT_MAX_MS } from './bash';

type JsonSchema = {
  type?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
};

/** Every property at every depth, with its path. */
function properties(schema: JsonSchema, path = ''): Array<[string, JsonSchema]> {
  const own = Object.entries(schema.properties ?? {}).flatMap(([key, value]) => [
    [`${path}${key}`, value] as [string, JsonSchema],
    ...properties(value, `${path}${key}.`),
  ]);
  const items = schema.items ? properties(schema.items, `${path}[].`) : [];
  return [...own, ...items];
}

describe('tool schemas', () => {
  it('names every tool the reference docs name', () => {
    const named = [
      'bash',
      'read_file',
      'write_file',
      'update_status',
      'web_fetch',
      'web_search',
      'list_skills',
      'use_skill',
      'github_repos',
      'github_tree',
      'github_file',
      'github_search_code',
      'github_issue_list',
      'github_issue_get',
      'github_pull_get',
      'github_issue_create',
      'github_issue_comment',
      'github_issue_update',
      'submit_review',
      'submit_description',
      'attach_file',
      'task',
      'wait_for_job',
      'unit_start',
      'unit_inspect',
      'unit_steer',
      'unit_stop',
      'fleet_status',
    ];
    for (const name of named) expect(TOOL_NAMES).toContain(name);
    expect(new Set(TOOL_NAMES).size).toBe(TOOL_NAMES.length);
  });

  it.each(TOOL_NAMES)('%s: an object schema, every field described, with a declared class and executor', (name) => {
    const tool = TOOLS[name];
    expect(tool.name).toBe(name);
    expect(tool.description.length).toBeGreaterThan(20);
    expect(['read', 'write']).toContain(tool.sideEffect);
    expect(['activity', 'workflow', 'child-run']).toContain(tool.executor);
    const { inputSchema } = toolJsonSchema(tool);
    expect(inputSchema.type).toBe('object');
    expect(inputSchema).not.toHaveProperty('$schema');
    for (const [path, property] of properties(inputSchema)) {
      expect([path, typeof property.description]).toEqual([path, 'string']);
    }
  });

  it('publishing tools write; reads never publish', () => {
    for (const tool of Object.values(TOOLS)) {
      if (tool.publishes) expect(tool.sideEffect).toBe('write');
      if (tool.sideEffect === 'read') expect(tool.publishes).toBe(false);
    }
  });

  it.each([
    ['bash', 'activity', 'write', false],
    ['read_file', 'activity', 'read', true],
    ['submit_review', 'workflow', 'write', false],
    ['submit_description', 'workflow', 'write', false],
    ['wait_for_job', 'workflow', 'read', true],
    ['task', 'child-run', 'write', true],
    ['unit_steer', 'workflow', 'write', false],
    ['github_issue_create', 'activity', 'write', false],
  ] as const)('%s runs as %s, class %s, concurrency-safe %s', (name, executor, sideEffect, concurrencySafe) => {
    expect(TOOLS[name]).toMatchObject({ executor, sideEffect, concurrencySafe });
  });

  it('modelToolSchemas keeps order and skips unknown names', () => {
    expect(modelToolSchemas(['web_search', 'nope', 'bash']).map((schema) => schema.name)).toEqual(['web_search', 'bash']);
    expect(getTool('nope')).toBeUndefined();
  });
});

describe('tool input validation returns data', () => {
  const cases: Array<[ToolName, unknown, boolean, RegExp | undefined]> = [
    ['bash', { command: 'ls' }, true, undefined],
    ['bash', { command: 'make', timeoutMs: BASH_TIMEOUT_MAX_MS }, true, undefined],
    ['bash', { command: 'make', timeoutMs: BASH_TIMEOUT_MAX_MS + 1 }, false, /timeoutMs/],
    ['bash', { command: '' }, false, /command/],
    ['bash', { command: 'ls', extra: 1 }, false, /extra/],
    ['task', { agent_type: 'explore', prompt: 'find the parser', name: 'find-parser', mode: 'background' }, true, undefined],
    ['task', { agent_type: 'explore', prompt: 'x', name: 'Find Parser' }, false, /name/],
    ['task', { agent_type: 'explore', prompt: 'x', name: 'a', mode: 'later' }, false, /mode/],
    ['wait_for_job', { exitFile: '/tmp/job.exit', logFile: '/tmp/job.log', pollSeconds: 60 }, true, undefined],
    ['wait_for_job', { jobId: 'run:x/task-1' }, true, undefined],
    ['wait_for_job', { logFile: '/tmp/job.log' }, false, /jobId or an exitFile/],
    ['github_file', { repo: 'acme/api', path: 'README.md' }, true, undefined],
    ['github_file', { repo: 'acme', path: 'README.md' }, false, /repo/],
    ['unit_stop', { unitId: 'unit:acme/api#4', reason: 'asked' }, true, undefined],
    ['unit_stop', { unitId: 'run:acme', reason: 'asked' }, false, /unitId/],
  ];
  it.each(cases)('%s %j -> ok %s', (name, input, ok, message) => {
    const result = parseToolInput(TOOLS[name], input);
    expect(result.ok).toBe(ok);
    if (!result.ok) {
      expect(result.code).toBe('tool_input_invalid');
      expect(result.message).toMatch(message!);
    }
  });

  const finding = {
    severity: 'minor',
    path: 'src/a.ts',
    line: 3,
    title: 'Off by one',
    scenario: 'An empty list',
    impact: 'Crash on startup',
  };
  it.each([
    [{ verdict: 'approve', summary: 'Fine.', findings: [] }, true],
    [{ verdict: 'request_changes', summary: 'One bug.', findings: [finding] }, true],
    [{ verdict: 'reject', summary: 'x', findings: [] }, false],
    [{ verdict: 'comment', summary: 'x', findings: [{ ...finding, severity: 'critical' }] }, false],
    [{ verdict: 'comment', summary: 'x', findings: [{ ...finding, scenario: undefined }] }, false],
    [{ verdict: 'comment', summary: 'x', findings: [{ ...finding, line: 0 }] }, false],
  ])('submit_review %j -> ok %s', (input, ok) => {
    expect(parseToolInput(TOOLS.submit_review, input).ok).toBe(ok);
  });
});
