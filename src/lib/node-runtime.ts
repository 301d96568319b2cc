/**
 * What the product runs on, and until when that runtime is maintained.
 *
 * The table is compiled into every build (the single executable carries it in
 * its bundle): an air-gapped appliance cannot ask nodejs.org, and the dates of
 * a release line are fixed when the line becomes LTS (the Node.js Release
 * Working Group's schedule, github.com/nodejs/Release). A line it does not
 * name (an odd, never-LTS line, or one newer than the build) has no known end
 * of life: `supportedUntil` is null and `wip doctor` warns.
 *
 * Taking a new line: add its date here (and the pinned runtime, see
 * docs/operating/runtime-policy.md).
 */
export const NODE_END_OF_LIFE: Readonly<Record<number, string>> = Object.freeze({
  20: '2026-04-30',
  22: '2027-04-30',
  24: '2028-04-30',
  26: '2029-04-30',
});

/** `wip doctor` warns this many days before the end of life (and after it). */
export const END_OF_LIFE_WARNING_DAYS = 90;

/** The shape `GET /api/client/version`, `wip --version --json`, `wip doctor` and the support bundle report. */
export interface RuntimeInfo {
  name: 'node';
  /** e.g. `24.21.0` */
  version: string;
  /** the end-of-life date (YYYY-MM-DD) of the version's release line; null when the build does not know the line */
  supportedUntil: string | null;
}

export function runtimeInfo(version: string = process.versions.node): RuntimeInfo {
  const major = Number(version.split('.')[0]);
  return { name: 'node', version, supportedUntil: Object.hasOwn(NODE_END_OF_LIFE, major) ? NODE_END_OF_LIFE[major] : null };
}

/**
 * The doctor's verdict on a runtime at `now`: OK while its line is maintained
 * for more than END_OF_LIFE_WARNING_DAYS, WARN within them, past the end of
 * life, or when the line is unknown. Never FAIL: the appliance still works,
 * it just no longer gets security fixes.
 */
export function runtimeSupport(info: RuntimeInfo, now: Date): { status: 'OK' | 'WARN'; message: string } {
  const what = `Node.js ${info.version}`;
  if (info.supportedUntil === null) {
    return {
      status: 'WARN',
      message: `${what}: not a release line this build knows the end of life of (an odd, never-LTS line?); use the wip build for a supported LTS line`,
    };
  }
  // the line is maintained through its last day (UTC)
  const end = Date.parse(`${info.supportedUntil}T23:59:59.999Z`);
  const days = Math.ceil((end - now.getTime()) / 86_400_000);
  if (days <= 0) {
    return {
      status: 'WARN',
      message: `${what}: its release line reached end of life on ${info.supportedUntil} and gets no security fixes; update wip to a build on a maintained Node.js line`,
    };
  }
  if (days <= END_OF_LIFE_WARNING_DAYS) {
    return {
      status: 'WARN',
      message: `${what}: its release line reaches end of life on ${info.supportedUntil} (in ${days} day(s)); plan the update to a wip build on a newer Node.js line`,
    };
  }
  return { status: 'OK', message: `${what}, release line supported until ${info.supportedUntil}` };
}
