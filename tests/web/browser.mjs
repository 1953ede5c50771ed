// browser.mjs -- the web calculator in headless Chromium (Debian's), driven
// by puppeteer-core: every answer the page gives is compared with the
// kvbudget command's --json output for the same inputs, run here.
//
//   node browser.mjs --dist DIR --cli KVBUDGET --gguf FILE --config FILE
//                    --out DIR [--bench N]
//
// Prints one line per check ("ok ..." / "FAIL ..."), a "bench" line per
// timing, writes the screenshots (wide, phone) into --out, and exits 1 on
// any failure.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import puppeteer from "puppeteer-core";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => {
    if (a.startsWith("--")) acc.push([a.slice(2), all[i + 1]]);
    return acc;
  }, []));
const dist = resolve(args.dist);
const cli = resolve(args.cli);
const out = resolve(args.out);
const chromium = process.env.KVB_CHROMIUM || "/usr/bin/chromium";
let failures = 0;

function check(ok, what, detail) {
  console.log(`${ok ? "ok" : "FAIL"} ${what}`);
  if (!ok) {
    failures++;
    if (detail) console.log(detail);
  }
}

// The options -> argv mapping the page's API documents, for the command.
function argvOf(cmd, opts) {
  const argv = [cmd];
  for (const [k, v] of Object.entries(opts)) {
    if (v === false || v === null || v === undefined || v === "") continue;
    argv.push("--" + k.replace(/_/g, "-"));
    if (v !== true) argv.push(String(v));
  }
  return argv.concat("--json");
}

function cliJSON(argv) {
  try {
    return JSON.parse(execFileSync(cli, argv,
      { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
  } catch (e) {
    if (e.stdout && e.stdout.trim().startsWith("{")) return JSON.parse(e.stdout);
    return { error: (e.stderr || String(e)).trim() };
  }
}

function firstDiff(a, b, path = "") {
  if (isDeepStrictEqual(a, b)) return null;
  if (a && b && typeof a === "object" && typeof b === "object") {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDiff(a[k], b[k], path + "." + k);
      if (d) return d;
    }
  }
  return `${path || "."}: page ${JSON.stringify(a)} vs command ${JSON.stringify(b)}`;
}

// ---- a static server for dist/ (the service worker needs http) ----
const TYPES = { ".html": "text/html", ".js": "text/javascript",
  ".css": "text/css", ".wasm": "application/wasm", ".png": "image/png" };
const server = createServer((req, res) => {
  const path = new URL(req.url, "http://x").pathname;
  // /bench/: the WebAssembly build of bench/bench_plan.c, beside dist/.
  const root = path.startsWith("/bench/") ? resolve(dist, "..") : dist;
  const file = join(root, path === "/" ? "index.html" :
    path.replace(/^\/bench\//, "/"));
  if (!file.startsWith(root) || !existsSync(file)) {
    res.writeHead(404);
    res.end();
    return;
  }
  res.writeHead(200, { "content-type": TYPES[extname(file)] || "application/octet-stream" });
  res.end(readFileSync(file));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const origin = `http://127.0.0.1:${server.address().port}`;

const profile = mkdtempSync(join(tmpdir(), "kvb-chromium-"));
const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  userDataDir: profile,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
    "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage"],
});

async function openPage(url, errors) {
  const page = await browser.newPage();
  page.on("console", (m) => {
    if (m.type() === "error") errors.push("console: " + m.text());
  });
  page.on("pageerror", (e) => errors.push("pageerror: " + e.message));
  page.on("requestfailed", (r) =>
    errors.push("requestfailed: " + r.url() + " " + r.failure()?.errorText));
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(() => document.body.dataset.state, { timeout: 30000 });
  return page;
}

try {
  // ---- 1. the page loads, over http and from file://, without errors ----
  const errors = [];
  const page = await openPage(origin + "/", errors);
  const state = await page.evaluate(() => document.body.dataset.state);
  check(state === "ready" && errors.length === 0,
    "page loads over http and renders the default plan", errors.join("\n"));
  const fileErrors = [];
  const filePage = await openPage("file://" + join(dist, "index.html"), fileErrors);
  check(await filePage.evaluate(() => document.body.dataset.state) === "ready" &&
    fileErrors.length === 0, "page loads from file://", fileErrors.join("\n"));
  await filePage.close();

  // ---- 2. kvbudget.plan() is the command's JSON, on a grid ----
  const presets = await page.evaluate(() => kvbudget.presets());
  check(isDeepStrictEqual(presets.models, cliJSON(["list", "models", "--json"])) &&
    isDeepStrictEqual(presets.gpus, cliJSON(["list", "gpus", "--json"])) &&
    isDeepStrictEqual(presets.instances, cliJSON(["list", "instances", "--json"])) &&
    isDeepStrictEqual(presets.quants, cliJSON(["list", "quants", "--json"])),
  "presets() is `kvbudget list ... --json`");

  const models = ["Llama-3.1-8B", "Llama-3.1-70B", "Qwen3-30B-A3B",
    "DeepSeek-V3", "Mixtral-8x7B", "gemma-2-27b"].filter((m) =>
    presets.models.some((p) => p.name.toLowerCase() === m.toLowerCase()));
  const grid = [];
  for (const model of models.length ? models : [presets.models[0].name])
    for (const [gpu, quant, len, tp] of [["A10G", "awq-4", 32768, 1],
      ["H100", "", 8192, 2], ["L4", "fp8", 4096, 1], ["A100-80GB:4", "", 16384, 4],
      ["T4", "q4_k_m", 2048, 1]])
      grid.push({ model, gpu, quant, max_model_len: len, tensor_parallel_size: tp });
  grid.push({ model: "Llama-3.1-8B", instance: "g5.xlarge", max_model_len: 16384,
    gpu_memory_utilization: 0.85, enforce_eager: true, kv_cache_dtype: "fp8" });
  grid.push({ model: "Llama-3.1-8B", gpu: "A10G", engine: "vllm@0.7.3",
    max_num_seqs: 64 });
  grid.push({ model: "Llama-3.1-8B", gpu: "A10G", max_model_len: 99999999 });
  let same = 0;
  const diffs = [];
  for (const opts of grid) {
    const mine = await page.evaluate((o) => {
      try { return kvbudget.plan(o); } catch (e) { return { error: e.message }; }
    }, opts);
    const theirs = cliJSON(argvOf("plan", opts));
    const d = firstDiff(mine, theirs);
    if (d) diffs.push(JSON.stringify(opts) + "\n  " + d); else same++;
  }
  check(diffs.length === 0, `plan() equals \`kvbudget plan --json\` on ${same}/${grid.length} cases`,
    diffs.slice(0, 5).join("\n"));

  const fixOpts = { model: "Llama-3.1-70B", gpu: "A10G", max_model_len: 32768 };
  check(!firstDiff(await page.evaluate((o) => kvbudget.fix(o), fixOpts),
    cliJSON(argvOf("fix", fixOpts))), "fix() equals `kvbudget fix --json`");

  const logFile = resolve("tests/data/logs/seed_max_len.log");
  if (existsSync(logFile)) {
    const log = readFileSync(logFile, "utf8");
    const mine = await page.evaluate((t) => kvbudget.explain(t, { gpu: "A10G" }), log);
    check(!firstDiff(mine, cliJSON(["explain", logFile, "--gpu", "A10G", "--json"])),
      "explain() equals `kvbudget explain FILE --json`");
  }

  // ---- 3. model files given as File objects, headers only ----
  const input = await page.evaluateHandle(() => {
    const i = document.createElement("input");
    i.type = "file";
    i.id = "test-files";
    document.body.appendChild(i);
    return i;
  });
  for (const [what, path] of [["GGUF", args.gguf], ["config.json", args.config]]) {
    if (!path) continue;
    await input.uploadFile(resolve(path));
    for (const opts of [{ gpu: "L4", max_model_len: 4096 },
      { gpu: "A100-80GB", max_model_len: 8192, tensor_parallel_size: 1 }]) {
      const mine = await page.evaluate(async (o) => {
        try {
          return await kvbudget.plan(Object.assign({
            model: document.getElementById("test-files").files[0] }, o));
        } catch (e) { return { error: e.message }; }
      }, opts);
      const theirs = cliJSON(argvOf("plan", { model: resolve(path), ...opts }));
      const d = firstDiff(mine, theirs);
      check(!d && !theirs.error, `a ${what} File gives the command's plan (${opts.gpu})`, d);
    }
  }

  // The page's own file picker: the plan it renders is the command's.
  if (args.gguf) {
    const picker = await page.$("#file");
    await page.evaluate(() => { document.body.dataset.state = ""; });
    await picker.uploadFile(resolve(args.gguf));
    await page.waitForFunction(() => document.body.dataset.state, { timeout: 30000 });
    const o = await page.evaluate(() => {
      const q = Object.fromEntries(new URLSearchParams(location.search));
      return { text: document.getElementById("verdict").textContent, q };
    });
    delete o.q.model;
    const theirs = cliJSON(argvOf("plan", { model: resolve(args.gguf), ...o.q }));
    check(o.text.includes(theirs.message), "a GGUF picked in the page renders the command's plan",
      o.text + "\n" + theirs.message);
  }

  // ---- 4. a URL with a query renders its plan ----
  const q = { model: "Qwen3-8B", gpu: "L4", max_model_len: 16384, quant: "fp8" };
  if (!presets.models.some((m) => m.name === q.model)) q.model = presets.models[0].name;
  const urlErrors = [];
  const urlPage = await openPage(origin + "/?" + new URLSearchParams(q), urlErrors);
  const shown = await urlPage.evaluate(() => ({
    verdict: document.getElementById("verdict").textContent,
    model: document.getElementById("model").value,
    len: document.getElementById("max_model_len").value,
    search: location.search,
  }));
  const expect = cliJSON(argvOf("plan", q));
  check(shown.model === q.model && shown.len === String(q.max_model_len) &&
    shown.verdict.includes(expect.message) && urlErrors.length === 0,
  "a URL query renders its plan", JSON.stringify(shown) + urlErrors.join("\n"));
  // The page writes its state back: the link reproduces the answer.
  await urlPage.select("#gpu", "H100");
  await urlPage.waitForFunction(() => location.search.includes("gpu=H100"));
  check(true, "changing the form updates the URL");

  // ---- 5. screenshots: wide and phone ----
  await urlPage.goto(origin + "/?" + new URLSearchParams({ model: "Llama-3.1-70B",
    quant: "awq-4", gpu: "A10G", gpus: 4, tensor_parallel_size: 4, max_model_len: 32768 }));
  await urlPage.waitForFunction(() => document.body.dataset.state === "ready");
  await urlPage.screenshot({ path: join(out, "web.png"), fullPage: true });
  await urlPage.setViewport({ width: 390, height: 844, deviceScaleFactor: 2, isMobile: true });
  await urlPage.reload();
  await urlPage.waitForFunction(() => document.body.dataset.state === "ready");
  const overflow = await urlPage.evaluate(() =>
    document.documentElement.scrollWidth > window.innerWidth + 1);
  // The answer as a phone shows it (the form above it is left out).
  await (await urlPage.$("#result")).screenshot({ path: join(out, "web-phone.png") });
  check(!overflow, "no horizontal scrolling at a phone's width (390 px)");

  // ---- 6. offline once loaded (the service worker) ----
  await page.goto(origin + "/");
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.setOfflineMode(true);
  await page.reload();
  await page.waitForFunction(() => document.body.dataset.state, { timeout: 30000 });
  check(await page.evaluate(() => document.body.dataset.state) === "ready",
    "the page reloads and plans offline");
  await page.setOfflineMode(false);

  // ---- 7. speed: plan() per call, in the page ----
  const n = Number(args.bench || 200);
  const t = await page.evaluate((n) => {
    const o = { model: "Llama-3.1-70B", gpu: "H100:4", tensor_parallel_size: 4,
      max_model_len: 32768 };
    for (let i = 0; i < 20; i++) kvbudget.plan(o);
    let best = Infinity;
    for (let r = 0; r < 5; r++) {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) kvbudget.plan(o);
      best = Math.min(best, (performance.now() - t0) / n);
    }
    return best;
  }, n);
  console.log(`bench web.plan_json ${n} ${(t * 1e6).toFixed(0)} ${(1000 / t).toFixed(0)}`);
  check(t < 1, `kvbudget.plan() takes ${(t * 1000).toFixed(0)} us in the page (< 1 ms)`);

  // bench/bench_plan.c itself, native and in the page, same arguments.
  const benchArgs = ["--reps", "3", "--sample", String(args["bench-sample"] || 20000)];
  if (existsSync(join(dist, "..", "bench_plan.js")) && args["bench-native"] &&
      existsSync(args["bench-native"])) {
    const wasm = await page.evaluate(async (argv) => {
      await new Promise((ok, bad) => {
        const s = document.createElement("script");
        s.src = "/bench/bench_plan.js";
        s.onload = ok;
        s.onerror = bad;
        document.head.appendChild(s);
      });
      const lines = [];
      const m = await kvbBenchCreate({ print: (l) => lines.push(l),
        printErr: (l) => lines.push(l), locateFile: (p) => "/bench/" + p });
      m.callMain(argv);
      return lines;
    }, benchArgs);
    const native = execFileSync(args["bench-native"], benchArgs,
      { encoding: "utf8" }).trim().split("\n");
    const pick = (ls, c) => ls.find((l) => l.startsWith("bench " + c));
    for (const c of ["plan.compute", "plan.batch"]) {
      const w = pick(wasm, c), n = pick(native, c);
      console.log("native " + n);
      console.log("wasm   " + w);
      if (w && n)
        console.log(`ratio ${c} wasm/native ${(Number(w.split(" ")[3]) /
          Number(n.split(" ")[3])).toFixed(2)}x`);
    }
    check(!!pick(wasm, "plan.compute"), "bench_plan runs in the page");
  }
} catch (e) {
  check(false, "the browser session", e.stack || String(e));
} finally {
  await browser.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(failures ? `web: ${failures} failed` : "web: all passed");
process.exit(failures ? 1 : 0);
