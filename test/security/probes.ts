/**
 * The attacker's side of the security suite: one bash script, run by a scripted model inside
 * a real run, that tries every way through the wall and prints one `PROBE <name>: <evidence>`
 * line per attempt. The suite asserts the evidence; the script itself judges nothing, so a
 * probe that gets through shows up as different evidence and fails the suite.
 */
export interface ProbeTargets {
  /** Every TCP port listening on the host's loopback (Temporal gRPC and UI, our HTTP server, the local GitHub …). */
  loopbackPorts: number[];
  named: { temporalGrpc: number; temporalUi: number; httpServer: number };
  /** A non-loopback address of the host, and a port our HTTP server answers on there. */
  hostAddress: string;
  hostPort: number;
  /** The fake internet host, `address:port`. */
  internet: string;
  /** The git host as git sees it (`host:port`), and its base URL. */
  gitHost: string;
  gitUrl: string;
  /** Host paths the sandbox must not see. */
  projectRoot: string;
  dataDir: string;
  otherWorkspace: string;
  /** Split in two so that the whole string never appears in the script itself. */
  secretPattern: [string, string];
  otherMarker: [string, string];
  /** Another unit's branch on the bound repository (acme/app), which this run must neither move nor delete. */
  otherUnitBranch: string;
}

export function probeScript(t: ProbeTargets): string {
  return `
probe() { printf 'PROBE %s: %s\\n' "$1" "$2"; }
tcp() { timeout 3 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null && echo open || echo closed; }
door() { curl -s -o /dev/null -w '%{http_code}' -m 5 --noproxy '' -x "\${HTTP_PROXY:-http://127.0.0.1:3128}" "$1"; }
tunnel() { curl -s -o /dev/null -w '%{http_connect}' -m 5 --noproxy '' -x "\${HTTP_PROXY:-http://127.0.0.1:3128}" -p "$1"; }
pat='${t.secretPattern[0]}''${t.secretPattern[1]}'
mark='${t.otherMarker[0]}''${t.otherMarker[1]}'
probe loopback-temporal-grpc "direct=$(tcp 127.0.0.1 ${t.named.temporalGrpc}) door=$(door http://127.0.0.1:${t.named.temporalGrpc}/) tunnel=$(tunnel http://127.0.0.1:${t.named.temporalGrpc}/)"
probe loopback-temporal-ui "direct=$(tcp 127.0.0.1 ${t.named.temporalUi}) door=$(door http://127.0.0.1:${t.named.temporalUi}/) tunnel=$(tunnel http://127.0.0.1:${t.named.temporalUi}/)"
probe loopback-http-server "direct=$(tcp 127.0.0.1 ${t.named.httpServer}) door=$(door http://localhost:${t.named.httpServer}/healthz) tunnel=$(tunnel http://127.0.0.1:${t.named.httpServer}/)"
open=''; for port in ${t.loopbackPorts.join(' ')}; do [ "$(tcp 127.0.0.1 $port)" = open ] && open="$open $port"; done
probe loopback-any "open=[\${open# }]"
probe host-address "direct=$(tcp ${t.hostAddress} ${t.hostPort}) door=$(door http://${t.hostAddress}:${t.hostPort}/healthz)"
probe metadata "direct=$(tcp 169.254.169.254 80) door=$(door http://169.254.169.254/latest/meta-data/)"
probe private-range "door=$(door http://10.0.0.1/) tunnel=$(tunnel http://192.168.1.1/)"
probe internet "$(curl -s -m 5 http://${t.internet}/wall | head -1)"
probe proc-environ "pids=$(ls -d /proc/[0-9]* | wc -l) matches=$(cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c "$pat")"
probe credential-fill "passwords=$(printf 'protocol=http\\nhost=${t.gitHost}\\n\\n' | git credential fill 2>/dev/null | grep -c '^password=')"
probe token-env "matches=$(env | grep -c "$pat")"
probe token-files "files=$(timeout 30 grep -rIl "$pat" /workspace /tmp /home /etc /usr/local /dev/shm 2>/dev/null | wc -l)"
probe shadow "root-lines=$(cat /etc/shadow /etc/gshadow 2>/dev/null | grep -c '^root:')"
probe host-tree "$([ -e '${t.projectRoot}/package.json' ] && echo visible || echo absent)"
probe data-dir "$(ls '${t.dataDir}' >/dev/null 2>&1 && echo visible || echo absent)"
probe other-workspace "path=$([ -e '${t.otherWorkspace}' ] && echo visible || echo absent) found=$(timeout 30 grep -rl "$mark" / --exclude-dir=proc --exclude-dir=sys --exclude-dir=usr 2>/dev/null | wc -l)"
out=$(cd /tmp && rm -rf other && timeout 30 git clone -q ${t.gitUrl}/acme/other.git other 2>&1 && cd other && git -c user.name=w -c user.email=w@example.com commit -q --allow-empty -m elsewhere && timeout 30 git push -q origin HEAD:wall-elsewhere 2>&1); code=$?
probe push-elsewhere "exit=$code $(echo "$out" | tr '\\n' ' ')"
cd /tmp && rm -rf refs && timeout 30 git clone -q ${t.gitUrl}/acme/app.git refs && cd refs && git -c user.name=w -c user.email=w@example.com commit -q --allow-empty -m refs
push() { out=$(timeout 30 git push "$@" 2>&1); code=$?; echo "exit=$code $(printf '%s' "$out" | grep -o 'Switchboard refused: [^)]*' | head -1)"; }
probe push-default "$(push origin HEAD:main)"
probe push-tag "$(push origin HEAD:refs/tags/wall)"
probe push-other-unit "$(push --force origin HEAD:${t.otherUnitBranch})"
probe delete-other-unit "$(push origin :${t.otherUnitBranch})"
`;
}

/** The evidence of each probe, by name. */
export function parseProbes(output: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of output.matchAll(/^PROBE ([a-z-]+): (.*)$/gm)) found[match[1]] = match[2];
  return found;
}
