import path from 'node:path';
import { isSingleExecutable } from './executable';

/** First line of every unit `wip install --systemd` writes: `wip uninstall` removes only such a unit. */
export const UNIT_MARKER = '# Written by "wip install --systemd"; "wip uninstall" removes it (never the data).';
export const UNIT_NAME = 'wip.service';
export const DEFAULT_UNIT_DIR = '/etc/systemd/system';

export interface UnitOptions {
  /** the command that starts the daemon, without `serve` and its flags */
  command: string[];
  dataDir: string;
  user: string;
  group: string;
  /** the daemon listens on a port below 1024: keep CAP_NET_BIND_SERVICE */
  bindsPrivilegedPort: boolean;
}

/** How this very program is started again: the executable itself, or node + bin/wip from a source install. */
export function currentCommand(): string[] {
  if (isSingleExecutable()) return [process.execPath];
  return [process.execPath, path.resolve(__dirname, '..', '..', '..', 'bin', 'wip')];
}

/**
 * A hardened service unit: the daemon runs as an unprivileged user, sees the
 * file system read-only except its data directory, gets no new privileges,
 * no devices, no kernel tunables, and is restarted when it fails. Not
 * MemoryDenyWriteExecute: V8's JIT needs writable executable memory.
 */
export function renderUnit(options: UnitOptions): string {
  const execStart = [...options.command, '--data-dir', options.dataDir, 'serve'].map((w) => quote(w, true)).join(' ');
  const paths = [options.dataDir, ...options.command];
  const under = (roots: string[]) => paths.some((p) => roots.some((root) => p === root || p.startsWith(root + '/')));
  // hide home directories and /tmp unless the data or the program lives there
  const protectHome = under(['/home', '/root', '/run/user']) ? 'read-only' : 'yes';
  const privateTmp = under(['/tmp', '/var/tmp']) ? 'no' : 'yes';
  const capabilities = options.bindsPrivilegedPort
    ? ['CapabilityBoundingSet=CAP_NET_BIND_SERVICE', 'AmbientCapabilities=CAP_NET_BIND_SERVICE']
    : ['CapabilityBoundingSet=', 'AmbientCapabilities='];
  return [
    UNIT_MARKER,
    '[Unit]',
    'Description=wip work-instruction platform',
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `User=${options.user}`,
    `Group=${options.group}`,
    `ExecStart=${execStart}`,
    // a single path, taken literally (no quotes)
    `WorkingDirectory=${options.dataDir.replace(/%/g, '%%')}`,
    'Restart=on-failure',
    'RestartSec=5s',
    'TimeoutStopSec=30s',
    'KillSignal=SIGTERM',
    'UMask=0077',
    'LimitNOFILE=65536',
    '# hardening',
    'NoNewPrivileges=yes',
    'ProtectSystem=strict',
    `ReadWritePaths=${quote(options.dataDir)}`,
    `ProtectHome=${protectHome}`,
    `PrivateTmp=${privateTmp}`,
    'PrivateDevices=yes',
    'ProtectKernelTunables=yes',
    'ProtectKernelModules=yes',
    'ProtectKernelLogs=yes',
    'ProtectControlGroups=yes',
    'ProtectClock=yes',
    'ProtectHostname=yes',
    'RestrictSUIDSGID=yes',
    'RestrictRealtime=yes',
    'RestrictNamespaces=yes',
    'LockPersonality=yes',
    'RemoveIPC=yes',
    'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX',
    'SystemCallArchitectures=native',
    'SystemCallFilter=@system-service',
    'SystemCallErrorNumber=EPERM',
    ...capabilities,
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/** systemd's quoting: specifiers (%) and, on Exec lines, variables ($) doubled; anything but plain words in double quotes with \ and " escaped. */
function quote(word: string, inExec = false): string {
  const specifiersEscaped = word.replace(/%/g, '%%');
  // only Exec lines expand $VARIABLES
  const escaped = inExec ? specifiersEscaped.replace(/\$/g, '$$$$') : specifiersEscaped;
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(escaped)) return escaped;
  return `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
