// Installs the pinned npm servers with `npm ci` unless node_modules already matches
// package-lock.json (a stamp holding the lock file's sha256 is written after a clean install).
// Then makes sure the tests' own npm cache holds an npx install of each spec in NPX_SPECS, made
// by npx itself (`npm exec --package SPEC`), as an operator's first `npx -y SPEC` leaves it.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const lock = join(here, "package-lock.json");
const stamp = join(here, "node_modules", ".cotenant-lock.sha256");
const digest = createHash("sha256").update(readFileSync(lock)).digest("hex");

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
// Exact versions (the lock file's): an npx install is keyed by the spec as written.
const NPX_SPECS = ["time-mcp@1.0.6"];
const npxCache = join(here, "node_modules", ".npx-cache");

function npxKey(specs) {
  return createHash("sha512").update([...specs].sort().join("\n")).digest("hex").slice(0, 16);
}

function ensureNpxCache() {
  for (const spec of NPX_SPECS) {
    const dir = join(npxCache, "_npx", npxKey([spec]));
    if (existsSync(join(dir, "package-lock.json"))) {
      continue;
    }
    rmSync(dir, { recursive: true, force: true });
    // Run outside this project, whose node_modules would satisfy the spec without an npx install.
    const away = mkdtempSync(join(tmpdir(), "cotenant-npx-"));
    const r = spawnSync(npm, ["exec", "--yes", "--no-audit", "--no-fund", "--cache", npxCache, "--package", spec, "-c", "true"],
      { cwd: away, stdio: "inherit" });
    rmSync(away, { recursive: true, force: true });
    if (r.error || r.status !== 0) {
      console.error("npx could not install " + spec + " into " + npxCache + ": " + (r.error ? r.error.message : "status " + r.status));
      process.exit(r.status || 1);
    }
    console.log("npx cache for the tests holds " + spec);
  }
}

if (existsSync(stamp) && readFileSync(stamp, "utf8").trim() === digest) {
  console.log("npm servers up to date (package-lock.json " + digest.slice(0, 12) + ")");
  ensureNpxCache();
  process.exit(0);
}

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
ensureNpxCache();
