// Browser test: the page, driven in Debian's Chromium by playwright-core, shows what the CLI
// computes (tok/s, memory per device, fits, communication time, under the same deployment and
// assumptions), marks a setup that does not fit beside its tok/s, shows the library's own error
// beside the field, and keeps working. The plan tab prints `ridgeline plan --format json`'s text
// byte for byte, clears its results on a wrong input, and the default search is timed against the
// native CLI (printed, not asserted). The per-operator table equals `ridgeline operators` for the
// same setting, figure for figure and header for header. Two devices side by side each show the
// CLI's figures for that device, and a wrong input clears both. Speculative decoding at the same
// setting shows `ridgeline speculative`'s row.
//     node test.mjs PAGE_DIR CLI SCREENSHOT
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import assert from "node:assert/strict";

const [pageDir, cli, screenshot] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
let checks = 0;
const check = (name, actual, expected) => {
  assert.deepEqual(actual, expected, name);
  ++checks;
  console.log("ok   " + name);
};
// The CLI's one JSON row for a decode at batch 1, on h100-sxm or the device named; the flags that
// gave it are kept, to ask the CLI for the same setting's operators.
const flagsOf = new WeakMap();
const decodeOn = (hardware, ...args) => {
  const rows = JSON.parse(execFileSync(cli, ["decode", "-H", hardware, "--format", "json", ...args]));
  assert.equal(rows.length, 1);
  flagsOf.set(rows[0], ["-H", hardware, ...args]);
  return rows[0];
};
const decode = (...args) => decodeOn("h100-sxm", ...args);
// What the CLI says on stderr for arguments it refuses.
const cliError = (...args) => {
  try {
    execFileSync(cli, args, { stdio: ["ignore", "ignore", "pipe"] });
  } catch (e) {
    return e.stderr.toString().trim();
  }
  throw new Error("the CLI accepted " + args.join(" "));
};
let status = 0;
try {
  const page = await browser.newPage({ viewport: { width: 1150, height: 1300 } });
  const pageErrors = [];
  page.on("pageerror", e => pageErrors.push(e.message));
  await page.goto(`file://${pageDir}/index.html#hardware=h100-sxm&model=llama-3.1-8b&context=4096&batch=1`);
  await page.waitForSelector("body[data-ready=yes]", { timeout: 30000 });
  const value = async (id, attr = "data-value") => Number(await page.getAttribute(id, attr));
  // A value typed into a field the page refuses: the message beside the field.
  const refusal = async (field, text) => {
    await page.fill("#" + field, text);
    await page.waitForSelector("body[data-state=error]");
    return page.textContent("#error-" + field);
  };

  // A device panel ("" the device's, "-2" the one compared with): its figures as the CLI's JSON
  // keys, read back from the cells' exact values.
  const figures = async panel => ({
    tokens_per_s: await value("#r-tokens-per-s" + panel), total_tokens_per_s: await value("#r-total-tokens-per-s" + panel),
    step_time_s: await value("#r-step" + panel), bytes_per_step: await value("#r-bytes" + panel),
    bytes_per_device: await value("#r-bytes-device" + panel),
    communication_time_s: await value("#r-communication" + panel), memory_per_device_bytes: await value("#r-memory" + panel),
    memory_budget_bytes: await value("#r-memory" + panel, "data-budget"),
    fits: (await page.getAttribute("#r-memory" + panel, "data-fits")) === "true" });
  const cliFigures = row => Object.fromEntries(["tokens_per_s", "total_tokens_per_s", "step_time_s", "bytes_per_step", "bytes_per_device", "communication_time_s",
                                                "memory_per_device_bytes", "memory_budget_bytes", "fits"].map(k => [k, row[k]]));
  // The operator table: its columns (key, header) and every cell's exact value (data-raw, JSON).
  const operatorTable = panel => page.evaluate(p => {
    const t = document.getElementById("operators" + p);
    return { columns: [...t.querySelectorAll("thead th")].map(th => [th.dataset.key, th.textContent]),
             rows: [...t.querySelectorAll("tbody tr")].map(tr => Object.fromEntries([...tr.cells].map(td => [td.dataset.key, JSON.parse(td.dataset.raw)]))) };
  }, panel);
  // The panel's operator table against `ridgeline operators` for the CLI row's setting, bit for
  // bit: the same columns and headers (the CLI's table header ends with them) and every value.
  const checkOperators = async (name, panel, cliRow) => {
    const flags = flagsOf.get(cliRow);
    const shown = await operatorTable(panel);
    const keys = shown.columns.map(([key]) => key);
    const header = execFileSync(cli, ["operators", ...flags]).toString().split("\n")[0].trim().split(/ {2,}/);
    check(`${name}: the operator table's columns are the CLI's (keys and headers)`, shown.columns.map(([, h]) => h),
          header.slice(header.length - keys.length));
    const reference = JSON.parse(execFileSync(cli, ["operators", ...flags, "--format", "json"]))
                        .map(row => Object.fromEntries(keys.map(k => [k, row[k]])));
    check(`${name}: each operator's bytes, FLOPs, bound and time equal the CLI's, bit for bit (${shown.rows.length} operators)`,
          shown.rows, reference);
    // Tied to the CLI's row itself: on one device the operators' bytes are the step's, and when
    // every operator has the step's bound their times (links aside) are its time.
    const near = (x, y) => Math.abs(x - y) <= 1e-12 * Math.abs(y);
    const sum = key => shown.rows.reduce((a, o) => a + o[key], 0);
    if (cliRow.tp * cliRow.pp * cliRow.dp === 1)
      check(`${name}: the operators' bytes add up to the CLI's bytes_per_step (to 1e-12)`, near(sum("bytes"), cliRow.bytes_per_step), true);
    if (cliRow.pp === 1 && shown.rows.every(o => o.bound === cliRow.bound))
      check(`${name}: the operators' times and the links' add up to the CLI's step_time_s (to 1e-12)`,
            near(sum("time_s") + cliRow.communication_time_s, cliRow.step_time_s), true);
  };
  // What a panel still shows: non-empty result cells, memory bar parts, chart nodes, table rows.
  const panelContents = panel => page.evaluate(p => ({
    cells: [...document.querySelectorAll(`#results${p} td`)].filter(td => td.textContent !== "").length,
    memory: document.getElementById("memory-bar" + p).children.length,
    chart: document.getElementById("chart" + p).children.length,
    operators: document.getElementById("operators" + p).rows.length }), panel);
  const empty = { cells: 0, memory: 0, chart: 0, operators: 0 };

  // Llama-3.1-8B on h100-sxm at 4k context, physical assumptions (the default): the page's
  // numbers are the CLI's, bit for bit, and the setup fits.
  const physical = decode("-m", "llama-3.1-8b", "-c", "4096");
  check("default assumptions read physical", await page.textContent("#r-assumptions"), "physical");
  check("tok/s equals the CLI's JSON tokens_per_s (physical)", await value("#r-tokens-per-s"), physical.tokens_per_s);
  check("tok/s reads 215.5 under physical assumptions", await page.textContent("#r-tokens-per-s"), "215.5");
  check("memory per device equals the CLI's (physical)", await value("#r-memory"), physical.memory_per_device_bytes);
  check("memory budget equals the CLI's (physical)", await value("#r-memory", "data-budget"), physical.memory_budget_bytes);
  check("the setup fits and the tok/s says so", [await page.getAttribute("#r-tokens-per-s", "data-fits"), physical.fits], ["true", true]);
  check("one device crosses no links", await page.textContent("#r-link"), "no links (one device)");
  // The memory bar: its weights, KV and activations add up to the CLI's memory per device, the
  // free part is what is left of the CLI's budget.
  const bar = () => page.evaluate(() => Object.fromEntries([...document.querySelectorAll("#memory-bar div")].map(d => [d.dataset.part, Number(d.dataset.bytes)])));
  const parts = await bar();
  check("the memory bar's weights + KV + activations are the CLI's memory per device",
        parts.weights + parts.kv + parts.activations, physical.memory_per_device_bytes);
  check("the memory bar's free part is the CLI's budget less that", parts.free, physical.memory_budget_bytes - physical.memory_per_device_bytes);
  check("the memory bar's parts, in order", Object.keys(parts), ["weights", "kv", "activations", "free", "reserve"]);
  // The user's batch is ringed on both charts (one step on the roofline, two rates beside it), and
  // the title names the formats and the parallelism.
  check("batch 1 is ringed on both charts", await page.evaluate(() => [...document.querySelectorAll("#chart circle.chosen")].map(c => c.dataset.batch)),
        ["1", "1", "1"]);
  check("the chart's title names the formats and the parallelism", await page.textContent("#chart svg title"),
        "llama-3.1-8b on NVIDIA H100 SXM5 80GB: bf16 weights, bf16 KV, TP 1 (roofline and decode throughput)");
  // The step per operator, as the library computes it (operators.hpp).
  await checkOperators("llama-3.1-8b at 4k (physical)", "", physical);
  check("one device: no second panel", [await page.isHidden("#device-2"), await page.evaluate(() => document.body.classList.contains("compare"))],
        [true, false]);

  // Seed 003's assumptions, chosen on the page: seed 003's 201.8.
  await page.selectOption("#assumptions", "seed_003");
  await page.waitForSelector("body[data-state=ok]");
  const seed = decode("-m", "llama-3.1-8b", "-c", "4096", "--assumptions", "seed_003");
  check("tok/s equals the CLI's JSON tokens_per_s (seed_003)", await value("#r-tokens-per-s"), seed.tokens_per_s);
  check("tok/s reads seed 003's 201.8", await page.textContent("#r-tokens-per-s"), "201.8");
  check("memory per device equals the CLI's (seed_003)", await value("#r-memory"), seed.memory_per_device_bytes);
  check("ridge batch at 4k reads never", await page.textContent("#r-ridge"), "never");
  check("the roofline is drawn", (await page.$$("#chart svg circle.step")).length > 0, true);
  await checkOperators("llama-3.1-8b at 4k (seed_003)", "", seed);

  // A V100 has no bf16 peak: with the compute field left at its default the page computes in
  // fp16, as the CLI does unasked, and its formats say why.
  await page.selectOption("#hardware", "v100");
  await page.waitForSelector("body[data-state=ok]");
  const volta = decodeOn("v100", "-m", "llama-3.1-8b", "-c", "4096", "--assumptions", "seed_003");
  check("v100: tok/s equals the CLI's, fp16 unasked", await value("#r-tokens-per-s"), volta.tokens_per_s);
  check("v100: the formats say fp16 and why", await page.textContent("#r-formats"), "bf16 (from " + volta.formats_source + ")");
  await page.selectOption("#hardware", "h100-sxm");
  await page.waitForSelector("body[data-state=ok]");

  // A malformed config.json: the library's message beside the field; clearing it recovers.
  await page.fill("#config", '{"model_type": "llama", "num_hidden_layers": 32, "hidden_size": "big"}');
  await page.waitForSelector("body[data-state=error]");
  check("a malformed config.json shows the library's error", await page.textContent("#error-config"),
        'config.json: /hidden_size: got "big" (a string), expected a positive integer');
  await page.fill("#config", "");
  await page.waitForSelector("body[data-state=ok]");
  check("clearing the config brings the results back", await page.textContent("#r-tokens-per-s"), "201.8");

  // NVIDIA's FP8 Llama-3.1-70B keeps its format in the hf_quant_config.json beside its
  // config.json: both pasted give the formats and speed the CLI reads from the folder.
  const hub = process.env.RIDGELINE_DATA_DIR + "/../tests/data/hub/llama-3.1-70b-instruct-fp8";
  await page.fill("#hf_quant_config", readFileSync(hub + "/hf_quant_config.json", "utf8"));
  await page.waitForSelector("body[data-state=error]");
  check("an hf_quant_config.json alone is refused beside its field", await page.textContent("#error-hf_quant_config"),
        "got an hf_quant_config.json without a config.json, expected the config.json it goes beside pasted too (a preset's formats are its own)");
  await page.fill("#config", readFileSync(hub + "/config.json", "utf8"));
  await page.waitForSelector("body[data-state=ok]");
  const fp8 = decode("-m", hub, "-c", "4096", "--assumptions", "seed_003");
  check("a pasted hf_quant_config.json: the CLI's formats", await page.textContent("#r-formats"),
        "fp8, embeddings bf16, lm_head bf16 (from " + fp8.formats_source + ")");
  check("a pasted hf_quant_config.json: the CLI's tok/s", await value("#r-tokens-per-s"), fp8.tokens_per_s);
  await page.fill("#hf_quant_config", '{"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "INT4_AWQ"}}');
  await page.waitForSelector("body[data-state=error]");
  check("a bad hf_quant_config.json shows the library's error beside it", await page.textContent("#error-hf_quant_config"),
        'hf_quant_config.json: /quantization/quant_algo: got "INT4_AWQ" (a string), expected one of: FP8, FP8_PER_CHANNEL_PER_TOKEN, NVFP4, W4A16_NVFP4, MXFP8');
  await page.fill("#hf_quant_config", "");
  await page.fill("#config", "");
  await page.waitForSelector("body[data-state=ok]");
  check("clearing both brings the preset back", await page.textContent("#r-tokens-per-s"), "201.8");

  // A batch of 0: the error sits beside the batch field.
  await page.fill("#batch", "0");
  await page.waitForSelector("body[data-state=error]");
  check("batch 0 shows an error beside the field", await page.textContent("#error-batch"), "got 0, expected an integer >= 1");
  check("batch 0: the results, memory bar, chart and operator table are cleared, not left stale", await panelContents(""), empty);
  await page.fill("#batch", "1");
  await page.waitForSelector("body[data-state=ok]");

  // A tensor-parallel degree the model cannot take: the library's refusal, as the CLI prints
  // it, beside the tp field.
  const tpError = await refusal("tp", "3");
  check("tp 3 on llama-3.1-8b shows the library's error beside tp", tpError,
        "tensor-parallel degree: got 3, expected a divisor of the attention heads (32) of model 'llama-3.1-8b'");
  check("the CLI refuses tp 3 with the same words, naming its flag", cliError("decode", "-m", "llama-3.1-8b", "--tp", "3"),
        "ridgeline: " + tpError.replace("tensor-parallel degree:", "--tp:"));
  // Issue 12's page reproducers: an absurd degree and a subnormal efficiency are refused beside
  // their fields at once, never a frozen tab or an infinite time.
  await page.fill("#tp", "999999999992");
  await page.waitForSelector("body[data-state=error]");
  check("tp 999999999992 is refused beside tp", await page.textContent("#error-tp"),
        "tensor-parallel degree: got 999999999992, expected an integer from 1 to 1048576");
  await page.fill("#tp", "1");
  await page.waitForSelector("body[data-state=ok]");
  const started = Date.now();
  await page.fill("#efficiency", "5e-324");
  await page.waitForSelector("body[data-state=error]");
  check("efficiency 5e-324 is refused beside efficiency, within 2 s", [await page.textContent("#error-efficiency"), Date.now() - started < 2000],
        ['efficiency (bandwidth): got "5e-324", expected a fraction in [1e-6, 1]', true]);
  await page.fill("#efficiency", "abc");
  await page.waitForFunction(() => document.querySelector("#error-efficiency").textContent.includes("abc"));
  check("efficiency 'abc' is refused with what was typed", await page.textContent("#error-efficiency"),
        'efficiency (bandwidth): got "abc", expected a fraction in [1e-6, 1]');
  await page.fill("#efficiency", "1");
  await page.waitForSelector("body[data-state=ok]");
  await page.fill("#tp", "1");
  await page.waitForSelector("body[data-state=ok]");
  // A max context below the model's own 131072 is refused beside its field, in the CLI's words.
  await page.fill("#max_context", "50");
  await page.waitForSelector("body[data-state=error]");
  check("max context 50 is refused beside its field", await page.textContent("#error-max_context"),
        "got 50, expected at least the limit of model 'llama-3.1-8b' itself, 131072 tokens (max_position_embeddings): the field raises it");
  check("the CLI refuses --max-context 50 with the same limit",
        cliError("decode", "-m", "llama-3.1-8b", "--max-context", "50").includes("at least the limit of model 'llama-3.1-8b' itself, 131072 tokens"), true);
  await page.fill("#max_context", "0");
  await page.waitForSelector("body[data-state=ok]");
  // A context past the model's positions names the page's own lever, as the CLI names --max-context.
  await page.fill("#context", "200000");
  await page.waitForSelector("body[data-state=error]");
  check("a context past max_position_embeddings names the max context field", await page.textContent("#error-context"),
        "context: got 200000, expected at most model 'llama-3.1-8b' max_position_embeddings (131072); " +
        "raise it in the max context field where the model allows more");
  await page.fill("#context", "4096");
  await page.waitForSelector("body[data-state=ok]");

  // The URL fragment records the inputs, the assumptions too: a shared link reproduces the result.
  await page.fill("#context", "32768");
  await page.waitForSelector("body[data-state=ok]");
  const second = await browser.newPage();
  await second.goto(page.url());
  await second.waitForSelector("body[data-ready=yes]");
  check("the URL fragment reproduces the page", await second.textContent("#r-tokens-per-s"), "164.6");
  check("the URL fragment keeps the assumptions", await second.inputValue("#assumptions"), "seed_003");
  await second.close();
  await page.fill("#context", "4096");
  await page.selectOption("#assumptions", "physical");
  await page.waitForSelector("body[data-state=ok]");
  await page.screenshot({ path: screenshot, fullPage: true });

  // Llama-3.1-405B in bf16 on one H100: does not fit, and the page says so beside its tok/s,
  // with the CLI's per-device bytes.
  await page.selectOption("#model", "llama-3.1-405b");
  await page.waitForSelector("#r-tokens-per-s[data-fits=false]");
  const big = decode("-m", "llama-3.1-405b", "-c", "4096");
  check("the CLI says llama-3.1-405b on one h100-sxm does not fit", big.fits, false);
  check("its tok/s is marked: does not fit", (await page.textContent("#r-tokens-per-s")).endsWith("does not fit"), true);
  check("its total tok/s is marked too", await page.getAttribute("#r-total-tokens-per-s", "data-fits"), "false");
  check("its tok/s is still the CLI's", await value("#r-tokens-per-s"), big.tokens_per_s);
  check("its memory per device equals the CLI's memory_per_device_bytes", await value("#r-memory"), big.memory_per_device_bytes);
  check("its budget equals the CLI's memory_budget_bytes", await value("#r-memory", "data-budget"), big.memory_budget_bytes);
  check("the memory bar says how far over the budget it is", [await page.getAttribute("#memory-bar", "data-fits"),
        (await page.textContent("#memory-legend [data-part=over]")).endsWith("over the budget")], ["false", true]);
  check("the fits cell says why", await page.textContent("#r-fits"), "\u26a0 does not fit: the weights alone exceed the budget");
  await page.screenshot({ path: screenshot.replace(/\.png$/, "") + "-does-not-fit.png", fullPage: true });

  // gpt-oss-120b with the weights field empty: the checkpoint's MXFP4 experts, as the CLI reads them.
  await page.selectOption("#model", "gpt-oss-120b");
  await page.waitForSelector("#r-tokens-per-s[data-fits=true]");
  const oss = decode("-m", "gpt-oss-120b", "-c", "4096");
  check("gpt-oss-120b: tok/s with the checkpoint's formats equals the CLI's", await value("#r-tokens-per-s"), oss.tokens_per_s);
  check("gpt-oss-120b: the page says its experts are mxfp4, from the checkpoint",
        (await page.textContent("#r-formats")).startsWith("bf16, experts mxfp4 (from the checkpoint: "), true);
  await checkOperators("gpt-oss-120b (routed experts)", "", oss);

  // Llama-3.1-70B in fp8 over four H100s: the CLI's numbers, links included.
  await page.selectOption("#model", "llama-3.1-70b");
  await page.fill("#weights", "fp8");
  await page.fill("#tp", "4");
  await page.waitForSelector("#r-tokens-per-s[data-fits=true]");
  const tp4 = decode("-m", "llama-3.1-70b", "-c", "4096", "--tp", "4", "--weights", "fp8");
  check("tp 4 llama-3.1-70b fp8: tok/s equals the CLI's", await value("#r-tokens-per-s"), tp4.tokens_per_s);
  check("tp 4 llama-3.1-70b fp8: memory per device equals the CLI's", await value("#r-memory"), tp4.memory_per_device_bytes);
  check("tp 4 llama-3.1-70b fp8: communication time equals the CLI's", await value("#r-communication"), tp4.communication_time_s);
  check("tp 4 llama-3.1-70b fp8: the formats keep the checkpoint's bf16 embeddings and LM head, as the CLI's",
        await page.textContent("#r-formats"),
        tp4.weights + ", embeddings " + tp4.embeddings + ", lm_head " + tp4.lm_head + " (from the weights field, which sets the linear " +
        "layers and experts; the embeddings, an untied LM head, the norms and routers stay as the checkpoint stores them)");
  check("tp 4: the title says so", (await page.textContent("#chart svg title")).includes(": fp8 weights, bf16 KV, TP 4 ("), true);
  check("tp 4 llama-3.1-70b fp8 fits", [await page.getAttribute("#r-fits", "data-fits"), tp4.fits], ["true", true]);
  // The attention data-parallel over the four, one rank a device, as --attention-dp tp: the CLI's
  // figures; a degree that does not divide tp is refused in the CLI's words.
  const ranks = decode("-m", "llama-3.1-70b", "-c", "4096", "-b", "6", "--tp", "4", "--weights", "fp8", "--attention-dp", "tp");
  const showing = v => page.waitForFunction(x => Number(document.querySelector("#r-tokens-per-s").dataset.value) === x, v);
  await page.fill("#batch", "6");
  await page.fill("#attention_dp", "tp");
  await showing(ranks.tokens_per_s);
  check("attention dp tp: the panel's figures are the CLI's", await figures(""), cliFigures(ranks));
  await checkOperators("llama-3.1-70b tp 4, attention data-parallel", "", ranks);
  const dpError = await refusal("attention_dp", "3");
  check("attention dp 3 over tp 4 is refused beside its field", dpError,
        "attention data-parallel degree: got 3, expected a divisor of the tensor-parallel degree (4)");
  check("the CLI refuses it too, naming its flags",
        cliError("decode", "-m", "llama-3.1-70b", "--tp", "4", "--weights", "fp8", "--attention-dp", "3"),
        "ridgeline: --attention-dp: got 3, expected a divisor of --tp (4)");
  await page.fill("#attention_dp", "");
  await page.fill("#batch", "1");
  await showing(tp4.tokens_per_s);
  check("attention dp cleared: back to tp 4's tok/s", await value("#r-tokens-per-s"), tp4.tokens_per_s);
  check("the link latency is the preset's", await page.textContent("#r-link"),
        "450.0 GB/s each way (hardware preset), 0.60 us per message (hardware preset), scale-up link");

  // A link latency typed in changes the communication time as the CLI's --link-latency-us does.
  await page.fill("#link_latency_us", "5");
  await page.waitForSelector("#r-link[data-from=deployment]");
  const slow = decode("-m", "llama-3.1-70b", "-c", "4096", "--tp", "4", "--weights", "fp8", "--link-latency-us", "5");
  check("link latency 5 us: communication time equals the CLI's", await value("#r-communication"), slow.communication_time_s);
  check("link latency 5 us: tok/s equals the CLI's", await value("#r-tokens-per-s"), slow.tokens_per_s);
  check("link latency 5 us: more communication than the preset's 0.6 us", slow.communication_time_s > tp4.communication_time_s, true);
  check("the link latency shown is the one typed", await page.textContent("#r-link"),
        "450.0 GB/s each way (hardware preset), 5.00 us per message (deployment), scale-up link");
  await page.fill("#link_latency_us", "2000000");
  await page.waitForSelector("body[data-state=error]");
  check("a link latency over 1 s shows the CLI's error beside the field", await page.textContent("#error-link_latency_us"),
        'link latency: got "2000000", expected a time in microseconds: 0, or from 1e-6 to 1e6');
  // Read as the CLI reads --link-latency-us: a hexadecimal number is not a time.
  await page.fill("#link_latency_us", "0x10");
  await page.waitForFunction(() => document.querySelector("#error-link_latency_us").textContent.includes("0x10"));
  check("a link latency in hexadecimal is refused as the CLI refuses it", await page.textContent("#error-link_latency_us"),
        'link latency: got "0x10", expected a time in microseconds: 0, or from 1e-6 to 1e6');
  await page.fill("#link_latency_us", "");
  await page.waitForSelector("#r-link[data-from='hardware preset']");
  check("clearing the link latency returns to the preset's", await value("#r-communication"), tp4.communication_time_s);
  // A link bandwidth typed in is the CLI's --link-gb-per-s: the link a preset lacks, here an
  // RTX 4090's PCIe (64 GB/s both ways, 32 each way); an H100 keeps its NVLink.
  await page.fill("#link_gb_per_s", "64");
  await page.selectOption("#hardware", "rtx-4090");
  await page.waitForFunction(() => document.querySelector("#r-link").textContent.startsWith("32.0 GB/s each way (deployment)"));
  const pcie = decodeOn("rtx-4090", "-m", "llama-3.1-70b", "-c", "4096", "--tp", "4", "--weights", "fp8", "--link-gb-per-s", "64");
  check("link bandwidth 64 GB/s: communication time equals the CLI's", await value("#r-communication"), pcie.communication_time_s);
  await page.fill("#link_gb_per_s", "0");
  await page.waitForFunction(() => document.querySelector("#error-link_gb_per_s").textContent.length > 0);
  check("a zero link bandwidth shows the CLI's error beside the field", await page.textContent("#error-link_gb_per_s"),
        'link bandwidth: got "0", expected a bandwidth in GB/s from 0.001 to 1e8');
  await page.fill("#link_gb_per_s", "");
  await page.selectOption("#hardware", "h100-sxm");
  await page.waitForFunction(() => document.querySelector("#r-link").textContent.startsWith("450.0 GB/s each way (hardware preset)"));
  check("clearing the link bandwidth returns to the preset's", await value("#r-communication"), tp4.communication_time_s);
  await checkOperators("tp 4 llama-3.1-70b fp8", "", tp4);

  // Speculative decoding at the same setting: the row `ridgeline speculative` prints for it, a
  // free draft by default, then Llama-3.1-8B whole on one device, its weights and KV counted.
  const speculative = (...args) => {
    const rows = JSON.parse(execFileSync(cli, ["speculative", "-H", "h100-sxm", "-m", "llama-3.1-70b", "-c", "4096", "--tp", "4",
                                               "--weights", "fp8", "--format", "json", ...args]));
    assert.equal(rows.length, 1);
    return rows[0];
  };
  const specFigures = async () => [await value("#r-spec-tokens"), await value("#r-spec-speedup"), await value("#r-spec-tokens-per-s"),
                                   await value("#r-spec-memory"), (await page.getAttribute("#r-spec-memory", "data-fits")) === "true"];
  const cliSpec = row => [row.expected_tokens_per_verification, row.speedup, row.tokens_per_s, row.memory_per_device_bytes, row.fits];
  const freeDraft = speculative();
  check("speculation, a free draft: the CLI's tokens per verification, speedup, tok/s, memory and fits", await specFigures(), cliSpec(freeDraft));
  // A free draft adds only what verifying holds: four more tokens a sequence of KV, 80 layers x 2 KV
  // heads a device x 128 x 2 x 2 B = 81,920 B each, and of workspace, (2 x 8,192 + (8,192 + 2 x 1,024
  // + 8,192 + 2 x 28,672) / 4) x 2 B + 128,256 / 4 x 4 B of logits = 198,912 B each (Llama-3.1-70B's config.json).
  check("a free draft holds only the verification's four more tokens", freeDraft.memory_per_device_bytes - tp4.memory_per_device_bytes,
        4 * 81920 + 4 * 198912);
  await page.selectOption("#draft", "llama-3.1-8b");
  await page.fill("#draft_tp", "1");
  await page.waitForFunction(() => document.querySelector("#r-spec-tokens").textContent.includes("by llama-3.1-8b at tp 1"));
  const modelDraft = speculative("--draft", "llama-3.1-8b", "--draft-tp", "1");
  check("speculation, Llama-3.1-8B on one device: the CLI's figures", await specFigures(), cliSpec(modelDraft));
  check("the draft's weights and KV are in the memory", modelDraft.memory_per_device_bytes > freeDraft.memory_per_device_bytes, true);
  const acceptanceError = await refusal("acceptance", "1.5");
  check("an acceptance above 1 is refused beside its field, read as --acceptance is", acceptanceError,
        'acceptance: got "1.5", expected a probability from 0 to 1');
  check("the CLI refuses it with the same words, naming its flag", cliError("speculative", "-m", "llama-3.1-70b", "--acceptance", "1.5"),
        "ridgeline: --" + acceptanceError);
  await page.fill("#acceptance", "0.8");
  await page.waitForSelector("body[data-state=ok]");
  await page.fill("#draft_tp", "");
  // An EAGLE-3 head (a draft-head preset): split as the target's layers, the CLI's figures.
  await page.selectOption("#draft", "eagle3-llama-3-70b");
  await page.waitForFunction(() => document.querySelector("#r-spec-tokens").textContent.includes("by eagle3-llama-3-70b at tp 4"));
  const headDraft = speculative("--draft", "eagle3-llama-3-70b");
  check("speculation, an EAGLE-3 head: the CLI's figures", await specFigures(), cliSpec(headDraft));
  check("the head's weights and KV are in the memory", headDraft.memory_per_device_bytes > freeDraft.memory_per_device_bytes, true);
  // A tree of drafts (SGLang's topk and num_draft_tokens) with its mean accepted tokens, read as
  // the CLI's --tree-width, --verify-tokens and --accept-length: the CLI's figures.
  await page.fill("#acceptance", "");
  await page.fill("#draft_tokens", "5");
  await page.fill("#tree_width", "8");
  await page.fill("#verify_tokens", "32");
  await page.fill("#accept_length", "4");
  await page.waitForFunction(() => document.querySelector("#r-spec-tokens").textContent.includes("8 wide, 32 verified"));
  const treeDraft = speculative("--draft", "eagle3-llama-3-70b", "--draft-tokens", "5", "--tree-width", "8", "--verify-tokens", "32",
                                "--accept-length", "4");
  check("speculation, a tree of an EAGLE-3 head's drafts: the CLI's figures", await specFigures(), cliSpec(treeDraft));
  // Without its mean accepted tokens a tree is refused beside that field, in the CLI's words.
  await page.fill("#accept_length", "");
  await page.waitForFunction(() => document.querySelector("#error-accept_length").textContent.length > 0);
  const treeError = await page.textContent("#error-accept_length");
  check("the CLI refuses a tree without its mean accepted tokens with the same words, naming its flag",
        cliError("speculative", "-m", "llama-3.1-70b", "--tree-width", "8", "--verify-tokens", "32"),
        "ridgeline: " + treeError.replace("speculation.accepted_tokens:", "--accept-length:"));
  // An acceptance beside the mean accepted tokens: refused, in the CLI's words.
  await page.fill("#accept_length", "4");
  await page.fill("#acceptance", "0.7");
  await page.waitForFunction(() => document.querySelector("#error-accept_length").textContent.includes("beside"));
  check("an acceptance beside the mean accepted tokens is refused in the CLI's words, naming its flags",
        "ridgeline: " + (await page.textContent("#error-accept_length")).replaceAll("accept length", "--accept-length").replace(" acceptance:", " --acceptance:"),
        cliError("speculative", "-m", "llama-3.1-70b", "--acceptance", "0.7", "--accept-length", "4"));
  for (const id of ["#acceptance", "#accept_length", "#tree_width", "#verify_tokens"]) await page.fill(id, "");
  await page.fill("#draft_tokens", "4");
  await page.waitForSelector("body[data-state=ok]");
  await page.selectOption("#draft", "");
  await page.waitForFunction(() => document.querySelector("#r-spec-tokens").textContent.includes(", free)"));
  check("no draft model again: the free draft's figures", await specFigures(), cliSpec(freeDraft));
  // A draft with another vocabulary: the library's refusal beside the draft field, in the CLI's
  // words less its flag, and the decode figures kept.
  await page.selectOption("#draft", "qwen3-8b");
  await page.waitForFunction(() => document.querySelector("#error-draft").textContent.length > 0);
  const draftError = await page.textContent("#error-draft");
  check("a draft with another vocabulary is refused beside the draft field", draftError,
        "draft model: got 'qwen3-8b' (151936 tokens), expected a model with the target's vocabulary (128256 tokens): its drafts are the target's tokens");
  check("the CLI refuses it with the same words, naming its flag", cliError("speculative", "-m", "llama-3.1-70b", "--draft", "qwen3-8b"),
        "ridgeline: " + draftError.replace("draft model:", "--draft:"));
  check("the decode figures stay beside it", [await value("#r-tokens-per-s"), await page.textContent("#r-spec-tokens")], [tp4.tokens_per_s, "-"]);
  // MTP drafting asks the model for its own modules: Llama has none, refused in the CLI's words.
  await page.selectOption("#draft", "mtp");
  await page.waitForFunction(() => document.querySelector("#error-draft").textContent.includes("mtp"));
  const mtpError = await page.textContent("#error-draft");
  check("mtp drafting without MTP modules is refused beside the draft field", mtpError,
        `draft: got "mtp", expected a draft model, or mtp for a model whose config declares MTP modules: 'llama-3.1-70b' declares none (num_nextn_predict_layers 0 or absent; a module an engine loads without it is not modelled)`);
  check("the CLI refuses it with the same words, naming its flag", cliError("speculative", "-m", "llama-3.1-70b", "--draft", "mtp"),
        "ridgeline: --" + mtpError);
  await page.selectOption("#draft", "");
  await page.waitForFunction(() => document.querySelector("#r-spec-tokens").textContent.includes(", free)"));

  // ---- Two devices side by side: each panel is the CLI's decode for its device. -------------
  await page.selectOption("#hardware2", "h200");
  await page.waitForSelector("body.compare #device-2[data-state=ok]");
  const tp4h200 = decodeOn("h200", "-m", "llama-3.1-70b", "-c", "4096", "--tp", "4", "--weights", "fp8");
  check("compare with h200: the second panel is shown, headed by its device",
        [await page.isVisible("#device-2"), await page.textContent("#device-name"), await page.textContent("#device-name-2")],
        [true, "h100-sxm (NVIDIA H100 SXM5 80GB)", "h200 (NVIDIA H200 SXM 141GB)"]);
  check("compare: the first panel's figures are still the CLI's for h100-sxm", await figures(""), cliFigures(tp4));
  check("compare: the second panel's figures are the CLI's for h200", await figures("-2"), cliFigures(tp4h200));
  check("compare: the two devices differ (h200's bandwidth)", tp4h200.tokens_per_s > tp4.tokens_per_s, true);
  check("compare: each panel names its device", [(await page.textContent("#r-model")).includes(" on NVIDIA H100 SXM5 80GB, 4 devices"),
        (await page.textContent("#r-model-2")).includes(" on NVIDIA H200 SXM 141GB, 4 devices")], [true, true]);
  const barOf = panel => page.evaluate(p => Object.fromEntries([...document.querySelectorAll(`#memory-bar${p} div`)].map(d => [d.dataset.part, Number(d.dataset.bytes)])), panel);
  for (const [panel, row, device] of [["", tp4, "h100-sxm"], ["-2", tp4h200, "h200"]]) {
    const p = await barOf(panel);
    check(`compare: ${device}'s memory bar adds up to the CLI's memory per device and budget`,
          [p.weights + p.kv + p.activations, p.free], [row.memory_per_device_bytes, row.memory_budget_bytes - row.memory_per_device_bytes]);
  }
  check("compare: each chart is titled with its device", [await page.textContent("#chart svg title"), await page.textContent("#chart-2 svg title")],
        ["llama-3.1-70b on NVIDIA H100 SXM5 80GB: fp8 weights, bf16 KV, TP 4 (roofline and decode throughput)",
         "llama-3.1-70b on NVIDIA H200 SXM 141GB: fp8 weights, bf16 KV, TP 4 (roofline and decode throughput)"]);
  check("compare: both charts ring batch 1", await page.evaluate(() => [...document.querySelectorAll("#chart-2 circle.chosen")].map(c => c.dataset.batch)),
        ["1", "1", "1"]);
  await checkOperators("compare: h100-sxm's operator table", "", tp4);
  await checkOperators("compare: h200's operator table", "-2", tp4h200);
  // A shared link keeps the second device.
  const shared = await browser.newPage();
  await shared.goto(page.url());
  await shared.waitForSelector("body[data-ready=yes]");
  check("the URL fragment keeps the second device", [await shared.inputValue("#hardware2"),
        Number(await shared.getAttribute("#r-tokens-per-s-2", "data-value"))], ["h200", tp4h200.tokens_per_s]);
  await shared.close();
  // A wrong input clears both panels; its message is said once, beside the field.
  await page.fill("#batch", "0");
  await page.waitForSelector("body[data-state=error]");
  check("compare, batch 0: one message beside batch", await page.textContent("#error-batch"), "got 0, expected an integer >= 1");
  check("compare, batch 0: both panels are cleared, not left stale", [await panelContents(""), await panelContents("-2")], [empty, empty]);
  await page.fill("#batch", "1");
  await page.waitForSelector("body[data-state=ok]");
  await page.fill("#tp", "3");
  await page.waitForSelector("body[data-state=error]");
  check("compare, tp 3: the library's refusal beside tp, once, in the CLI's words", await page.textContent("#error-tp"),
        cliError("decode", "-m", "llama-3.1-70b", "--tp", "3").replace(/^ridgeline: --tp:/, "tensor-parallel degree:"));
  check("compare, tp 3: both panels are cleared", [await panelContents(""), await panelContents("-2")], [empty, empty]);
  await page.fill("#tp", "4");
  await page.waitForSelector("body[data-state=ok]");
  check("correcting the input brings both devices back", [await figures(""), await figures("-2")], [cliFigures(tp4), cliFigures(tp4h200)]);
  await checkOperators("compare, after the correction: h200's operator table", "-2", tp4h200);
  await page.screenshot({ path: screenshot.replace(/\.png$/, "") + "-compare.png", fullPage: true });
  await page.selectOption("#hardware2", "");
  await page.waitForSelector("#device-2[data-state=cleared]", { state: "attached" });
  check("no second device: one panel again, the page as before",
        [await page.isHidden("#device-2"), await page.evaluate(() => document.body.classList.contains("compare")), await figures("")],
        [true, false, cliFigures(tp4)]);

  // ---- The plan tab: `ridgeline plan`'s answer, byte for byte. ------------------------------
  // The page's fields are the CLI's flags: run a search there and the same flags here.
  const flagToField = { "-H": "hardware", "-m": "model", "--price": "price", "--prompt": "prompt", "--cached-prompt": "cached",
                        "--output": "output", "--chunk": "chunk", "--users": "users", "--rate": "rate", "--tpot-ms": "tpot_ms",
                        "--itl-ms": "itl_ms", "--ttft-ms": "ttft_ms", "--max-devices": "max_devices", "--weights": "weights", "--mode": "mode",
                        "--top": "top", "--kv": "kv", "--compute": "compute", "--efficiency": "efficiency",
                        "--compute-efficiency": "compute_efficiency", "--calibration": "calibration",
                        "--overhead-us": "overhead_us", "--memory-fraction": "memory_fraction", "--reserve-gib": "reserve_gib",
                        "--link-latency-us": "link_latency_us", "--link-gb-per-s": "link_gb_per_s" };
  const planRun = async () => Number((await page.getAttribute("body", "data-plan-run")) ?? 0);
  // Every field set: the flags given, the rest empty (the CLI's default), then one search.
  const planOnPage = async args => {
    const values = {};
    for (let i = 0; i < args.length; i += 2) values[flagToField[args[i]]] = args[i + 1];
    for (const f of Object.values(flagToField)) {
      if (f === "model") await page.selectOption("#plan-model", values.model);
      else if (f === "mode") await page.selectOption("#plan-mode", values.mode ?? "both");
      else await page.fill("#plan-" + f, values[f] ?? "");
    }
    const before = await planRun();
    await page.click("#plan-run");
    await page.waitForSelector(`body[data-plan-run="${before + 1}"]`, { timeout: 120000 });
    return page.getAttribute("body", "data-plan-state");
  };
  const cliPlan = args => execFileSync(cli, ["plan", ...args, "--format", "json"]).toString();
  // The page's table: its header and the row count, read back.
  const planTable = () => page.evaluate(() => ({
    header: [...document.querySelectorAll("#plan-table thead th")].map(th => th.textContent),
    rows: document.querySelectorAll("#plan-table tbody tr").length }));

  await page.click("#tab-plan-button");
  await page.waitForSelector("body[data-plan-run]", { timeout: 120000 });  // opening the tab runs the defaults once
  check("the plan tab opens on a finished search", await page.getAttribute("body", "data-plan-state"), "ok");

  const requests = [
    ["-m", "llama-3.1-70b", "-H", "h100-sxm,h200", "--prompt", "8192", "--cached-prompt", "7936", "--output", "512", "--users", "64",
     "--tpot-ms", "30", "--price", "h100-sxm=2.50,h200=3.50", "--max-devices", "16", "--top", "5"],
    ["-m", "qwen3-30b-a3b", "-H", "l40s,a100-80gb,h100-sxm", "--rate", "4", "--ttft-ms", "800", "--tpot-ms", "40",
     "--weights", "bf16,fp8,int4", "--mode", "agg", "--kv", "fp8", "--top", "7"],
    ["-m", "llama-3.1-8b", "-H", "l4,rtx-4090", "--users", "100000", "--tpot-ms", "5", "--max-devices", "4"],  // nothing meets it
    // Engine-and-device calibrations, their devices the candidates (no -H): each device's times take its fit's terms.
    ["-m", "llama-3.1-8b", "--calibration", "vllm-h100-sxm,tensorrt-llm-h200", "--users", "64", "--tpot-ms", "40", "--max-devices", "8", "--top", "5"],
  ];
  for (const args of requests) {
    const name = args.join(" ");
    check(`plan ${name}: the search succeeds`, await planOnPage(args), "ok");
    const expected = cliPlan(args);
    check(`plan ${name}: the page's JSON is the CLI's, byte for byte`, (await page.textContent("#plan-json")) + "\n", expected);
    const cliAnswer = JSON.parse(expected);
    check(`plan ${name}: the verdict under the table is the CLI's`, await page.textContent("#plan-verdict"), cliAnswer.verdict);
    check(`plan ${name}: each mode's assumptions are listed as the CLI's JSON says`,
          await page.$$eval("#plan-assumptions li", (items) => items.map((li) => li.textContent)), cliAnswer.assumptions);
    const table = await planTable();
    check(`plan ${name}: one table row per plan, columns the JSON's keys in order`, table,
          cliAnswer.plans.length === 0 ? { header: [], rows: 0 } : { header: ["#", ...Object.keys(cliAnswer.plans[0])], rows: cliAnswer.plans.length });
    if (cliAnswer.plans.length === 0)
      check(`plan ${name}: the table says no plan meets the targets, as the CLI's verdict does`, await page.textContent("#plan-table caption"),
            "no plan meets the targets");
    check(`plan ${name}: the Pareto chart is drawn`, (await page.$$("#plan-chart svg .point")).length >= Math.min(1, cliAnswer.pareto.length), true);
    check(`plan ${name}: the cheapest plan is ringed on the chart`, (await page.$$("#plan-chart svg circle.chosen")).length,
          cliAnswer.plans.length > 0 ? 1 : 0);
    if (args === requests[0]) await page.screenshot({ path: screenshot.replace(/\.png$/, "") + "-plan.png", fullPage: true });
  }

  // A wrong input: the CLI's words beside the field, and no stale results left on the tab.
  await planOnPage(requests[0]);
  check("a good search fills the table", (await planTable()).rows, 5);
  const badUsers = requests[0].map((v, i, a) => (a[i - 1] === "--users" ? "0" : v));
  check("users 0: the search is refused", await planOnPage(badUsers), "error");
  check("users 0: the CLI's message beside the users field", await page.textContent("#plan-error-users"),
        cliError("plan", ...badUsers).replace(/^ridgeline: /, ""));
  check("users 0: the results are cleared, not left stale", await page.evaluate(() => [
    document.querySelectorAll("#plan-table tr").length, document.querySelector("#plan-verdict").textContent,
    document.querySelector("#plan-assumptions").children.length,
    document.querySelector("#plan-chart").children.length, document.querySelector("#plan-json").textContent]), [0, "", 0, 0, ""]);
  const badDevice = requests[0].map((v, i, a) => (a[i - 1] === "-H" ? "h100-sxm,h200,h201" : v));
  check("an unknown device: refused", await planOnPage(badDevice), "error");
  check("an unknown device: the library's message beside the devices field", await page.textContent("#plan-error-hardware"),
        cliError("plan", ...badDevice).replace(/^ridgeline: /, ""));
  check("an unknown device: no stale table", (await planTable()).rows, 0);
  check("correcting the input brings the answer back", await planOnPage(requests[0]), "ok");
  check("and the error beside the field is gone", await page.textContent("#plan-error-hardware"), "");
  // The field holds a list: after a comma, each calibration offered keeps the names typed before it.
  await page.fill("#plan-calibration", "vllm-h100-sxm,");
  check("after a comma, every calibration offered keeps the names before it",
        await page.$eval("#plan-calibrations", (d) => d.options.length > 0 && [...d.options].every((o) => o.value.startsWith("vllm-h100-sxm,"))), true);
  // A calibration the data does not hold, and one beside the times it replaces: the CLI's words
  // beside the calibration field.
  for (const [what, args] of [["an unknown calibration", ["-m", "llama-3.1-8b", "--calibration", "vllm-h100-sxm,vllm-h201", "--users", "64"]],
                              ["a calibration beside --efficiency", ["-m", "llama-3.1-8b", "--calibration", "vllm-h100-sxm", "--efficiency", "0.7", "--users", "64"]],
                              ["a calibration file that is not there", ["-m", "llama-3.1-8b", "--calibration", "vllm-h100-sxm,no-such-calibration.json", "--users", "64"]]]) {
    check(`${what}: refused`, await planOnPage(args), "error");
    check(`${what}: the CLI's message beside the calibration field`, await page.textContent("#plan-error-calibration"),
          cliError("plan", ...args).replace(/^ridgeline: /, ""));
  }

  // The default search, timed inside the page (performance.now() around the WebAssembly call)
  // and natively (the CLI's wall time less its start-up, a trivial call's wall time).
  const search = ["-m", "llama-3.1-70b", "--max-devices", "64", "--weights", "bf16,fp8,int4", "--mode", "both", "--users", "64",
                  "--prompt", "8192", "--cached-prompt", "7936", "--output", "512", "--tpot-ms", "30"];
  const pageMs = [];
  for (let i = 0; i < 3; ++i) {
    check(`default search ${i + 1}: succeeds`, await planOnPage(search), "ok");
    pageMs.push(Number(await page.getAttribute("#plan-status", "data-ms")));
  }
  check("default search: the page's JSON is the CLI's, byte for byte", (await page.textContent("#plan-json")) + "\n", cliPlan(search));
  const wall = args => {
    const started = process.hrtime.bigint();
    execFileSync(cli, args, { stdio: ["ignore", "ignore", "ignore"] });
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const nativeMs = [], startupMs = [];
  for (let i = 0; i < 3; ++i) {
    nativeMs.push(wall(["plan", ...search, "--format", "json"]));
    startupMs.push(wall(["list", "hardware", "--format", "json"]));
  }
  const best = xs => Math.min(...xs);
  const evaluated = JSON.parse(await page.textContent("#plan-json")).evaluated;
  console.log(`time the default plan search for llama-3.1-70b (${evaluated} serving evaluations), best of 3:`);
  console.log(`  WebAssembly in Chromium: ${best(pageMs).toFixed(1)} ms (performance.now() around ridgeline_plan; runs ${pageMs.map(x => x.toFixed(1)).join(", ")})`);
  console.log(`  native CLI (${process.env.RIDGELINE_BUILD_TYPE || "this build"}): ${(best(nativeMs) - best(startupMs)).toFixed(1)} ms ` +
              `(wall ${best(nativeMs).toFixed(1)} ms less a trivial call's ${best(startupMs).toFixed(1)} ms; runs ${nativeMs.map(x => x.toFixed(1)).join(", ")})`);

  check("no script errors on the page", pageErrors, []);
} catch (e) {
  console.log("FAIL " + e.message);
  status = 1;
} finally {
  await browser.close();
}
console.log(status === 0 ? `web: ${checks} checks passed` : "web: failed");
process.exit(status);
