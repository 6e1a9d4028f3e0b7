// Installs the pinned npm servers with `npm ci` unless node_modules already matches
// package-lock.json (a stamp holding the lock file's sha256 is written after a clean install).
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const lock = join(here, "package-lock.json");
const stamp = join(here, "node_modules", ".cotenant-lock.sha256");
const digest = createHash("sha256").update(readFileSync(lock)).digest("hex");

if (existsSync(stamp) && readFileSync(stamp, "utf8").trim() === digest) {
  console.log("npm servers up to date (package-lock.json " + digest.slice(0, 12) + ")");
  process.exit(0);
}

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const run = spawnSync(npm, ["ci", "--no-audit", "--no-fund"], { cwd: here, stdio: "inherit" });
if (run.error) {
  console.error("could not run npm: " + run.error.message);
  process.exit(1);
}
if (run.status !== 0) {
  console.error("npm ci failed with status " + run.status);
  process.exit(run.status ?? 1);
}
writeFileSync(stamp, digest + "\n");
