/** `node dist/scripts/bench/seed-only.js`: seeds .bench/data (or reports the existing seed) without running benchmarks. */
import { seededDataDir } from './seed';

seededDataDir().then(
  (info) => console.log(JSON.stringify(info, (k, v) => (k === 'operators' ? `${v.length} operators` : v), 2)),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
