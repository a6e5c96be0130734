import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpSessions } from '../../activities/mcp/sessions';
import { WorkspaceFiles } from '../../activities/sandbox/files';
import { requireBubblewrap, sandboxFixture } from '../../activities/sandbox/test-support';
import { WorkspaceGit } from '../../activities/sandbox/workspace-git';
import { workspaceName } from '../../activities/sandbox/workspace-layout';
import { projectRoot } from '../../infra/paths';
import { waitUntil } from '../helpers/wait';

/** One line of the tracer's log (test/fixtures/sandbox/tracer.py). */
interface TracerEvent {
  event: 'started' | 'attached' | 'refused' | 'vanished';
  pid: number;
  name?: string;
  seccomp?: string;
  noNewPrivs?: string;
  cmdline?: string;
  error?: string;
}

const fixtureText = (name: string) => readFileSync(join(projectRoot(), 'test', 'fixtures', 'sandbox', name), 'utf8');

/**
 * A shell that waits until the tracer has attached to it (its pid is in the log), so each probe
 * below is known to have been within the tracer's reach; then it says what its own filter is.
 */
const WAIT_FOR_TRACER = `n=0; while ! grep -q "\\"attached\\", \\"pid\\": $$," /tmp/tracer.log && [ "$n" -lt 600 ]; do sleep 0.05; n=$((n + 1)); done; grep '^Seccomp:' /proc/self/status`;

/**
 * The probe for the wall's entry (issue 31, item 1): a process left running in a workspace
 * tries to attach to every process that enters it afterwards — shell commands, a git step of
 * the worker's, the file tools' helper, a stdio MCP server — and notes the seccomp state of
 * whatever it caught while it held it stopped. Every process it catches must already be filtered
 * (Seccomp 2, no_new_privs): none may be caught between entering the workspace and loading its
 * filter (docs/sandbox.md, "Entering a workspace").
 */
describe('a tracer left running in a workspace', () => {
  let fixture: Awaited<ReturnType<typeof sandboxFixture>>;
  beforeAll(async () => {
    await requireBubblewrap();
    fixture = await sandboxFixture({ isolation: 'bwrap' });
  });
  afterAll(async () => fixture?.cleanup());

  it('catches every later command, git step and MCP server only with its seccomp filter in place', async () => {
    const workspace = fixture.workspace();
    const prepared = await fixture.host.prepare(workspace);
    const files = new WorkspaceFiles(fixture.host, prepared);
    expect(await files.write('/workspace/tracer.py', fixtureText('tracer.py'))).toMatchObject({ ok: true });
    expect(await files.write('/workspace/probe-mcp.py', fixtureText('probe-mcp.py'))).toMatchObject({ ok: true });
    await fixture.activities.bash({
      workspace,
      command: 'setsid -f python3 /workspace/tracer.py /tmp/tracer.log </dev/null >/dev/null 2>&1',
    });
    const events = async (): Promise<TracerEvent[]> => {
      const log = await files.readBytes('/tmp/tracer.log');
      if (!log.ok) return [];
      return log.bytes
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as TracerEvent);
    };
    await waitUntil(events, (seen) => seen.some((event) => event.event === 'started'));

    // Later commands: each waits until the tracer held it, then reports its own filter.
    for (let n = 1; n <= 4; n += 1) {
      const result = await fixture.activities.bash({ workspace, command: `: command-probe-${n}; ${WAIT_FOR_TRACER}` });
      expect(result).toMatchObject({ exitCode: 0 });
      expect(result.output).toMatch(/^Seccomp:\s+2$/m);
    }
    // File tools: the helper never becomes traceable (it never executes anything); it simply works.
    for (let n = 1; n <= 3; n += 1) expect(await files.write(`/workspace/file-${n}.txt`, `file ${n}`)).toMatchObject({ ok: true });
    expect(await files.read('/workspace/file-3.txt')).toMatchObject({ ok: true, content: 'file 3' });

    // A git step of the worker's, as a ship unit's checkout or commit runs.
    const git = new WorkspaceGit(fixture.host, 'http://127.0.0.1:9');
    const step = await git.script(workspaceName(workspace.key), `: git-step-probe; ${WAIT_FOR_TRACER}; g --version`, [], {
      identity: 'read',
      repo: 'acme/widgets',
    });
    expect(step).toMatchObject({ code: 0 });
    expect(step.stdout).toMatch(/^Seccomp:\s+2$/m);
    expect(step.stdout).toMatch(/git version/);

    // A stdio MCP server, started in the run's sandbox by the MCP sessions.
    const sessions = new McpSessions({
      servers: {
        probe: {
          transport: 'stdio',
          command: 'sh',
          args: ['-c', `: mcp-server-probe; ${WAIT_FOR_TRACER} >&2; exec python3 /workspace/probe-mcp.py`],
          env: {},
          startTimeoutMs: 60_000,
          callTimeoutMs: 10_000,
          maxResultChars: 30_000,
        },
      },
      sandboxHost: fixture.host,
    });
    try {
      const session = await sessions.open({ runId: 'traced-entry', workspace }, 'probe');
      const answer = (await session.client.callTool({ name: 'status', arguments: {} })) as { content: Array<{ text: string }> };
      expect(answer.content[0].text).toMatch(/^Seccomp:\s+2$/m);
    } finally {
      await sessions.closeRun('traced-entry');
      await sessions.closeAll();
    }

    const seen = await events();
    const attached = seen.filter((event) => event.event === 'attached');
    // Every process it ever held was filtered already...
    const unfiltered = attached.filter((event) => event.seccomp !== '2' || event.noNewPrivs !== '1');
    expect(unfiltered.map(({ pid, name, seccomp }) => ({ pid, name, seccomp }))).toEqual([]);
    // ...and it was live and held each kind of process.
    const markers = ['command-probe-1', 'command-probe-4', 'git-step-probe', 'mcp-server-probe'];
    expect(markers.filter((marker) => !attached.some((event) => event.cmdline?.includes(marker)))).toEqual([]);
    // The sandbox's init (bubblewrap's pid 1) is within its reach too, and filtered as well.
    expect(attached.find((event) => event.pid === 1)).toMatchObject({ name: 'bwrap', seccomp: '2' });
  });
});
