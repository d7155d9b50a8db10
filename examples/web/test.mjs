// Browser test: the page, driven in Debian's Chromium by playwright-core, shows what the CLI
// computes (tok/s, memory per device, fits, communication time, under the same deployment and
// assumptions), marks a setup that does not fit beside its tok/s, shows the library's own error
// beside the field, and keeps working.
//     node test.mjs PAGE_DIR CLI SCREENSHOT
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
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
// The CLI's one JSON row for a decode at batch 1.
const decode = (...args) => {
  const rows = JSON.parse(execFileSync(cli, ["decode", "-H", "h100-sxm", "--format", "json", ...args]));
  assert.equal(rows.length, 1);
  return rows[0];
};
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

  // Seed 003's assumptions, chosen on the page: seed 003's 201.8.
  await page.selectOption("#assumptions", "seed_003");
  await page.waitForSelector("body[data-state=ok]");
  const seed = decode("-m", "llama-3.1-8b", "-c", "4096", "--assumptions", "seed_003");
  check("tok/s equals the CLI's JSON tokens_per_s (seed_003)", await value("#r-tokens-per-s"), seed.tokens_per_s);
  check("tok/s reads seed 003's 201.8", await page.textContent("#r-tokens-per-s"), "201.8");
  check("memory per device equals the CLI's (seed_003)", await value("#r-memory"), seed.memory_per_device_bytes);
  check("ridge batch at 4k reads never", await page.textContent("#r-ridge"), "never");
  check("the roofline is drawn", (await page.$$("#chart svg circle.step")).length > 0, true);

  // A malformed config.json: the library's message beside the field; clearing it recovers.
  await page.fill("#config", '{"model_type": "llama", "num_hidden_layers": 32, "hidden_size": "big"}');
  await page.waitForSelector("body[data-state=error]");
  check("a malformed config.json shows the library's error", await page.textContent("#error-config"),
        'config.json: /hidden_size: got "big" (a string), expected a positive integer');
  await page.fill("#config", "");
  await page.waitForSelector("body[data-state=ok]");
  check("clearing the config brings the results back", await page.textContent("#r-tokens-per-s"), "201.8");

  // A batch of 0: the error sits beside the batch field.
  await page.fill("#batch", "0");
  await page.waitForSelector("body[data-state=error]");
  check("batch 0 shows an error beside the field", await page.textContent("#error-batch"), "got 0, expected an integer >= 1");
  await page.fill("#batch", "1");
  await page.waitForSelector("body[data-state=ok]");

  // A tensor-parallel degree the model cannot take: the library's refusal, as the CLI prints
  // it, beside the tp field.
  await page.fill("#tp", "3");
  await page.waitForSelector("body[data-state=error]");
  const tpError = await page.textContent("#error-tp");
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
        ["efficiency (bandwidth): got 4.940656e-324, expected a fraction in [1e-6, 1]", true]);
  await page.fill("#efficiency", "1");
  await page.waitForSelector("body[data-state=ok]");
  await page.fill("#tp", "1");
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
  check("the fits cell says why", await page.textContent("#r-fits"), "\u26a0 does not fit: the weights alone exceed the budget");
  await page.screenshot({ path: screenshot.replace(/\.png$/, "") + "-does-not-fit.png", fullPage: true });

  // gpt-oss-120b with the weights field empty: the checkpoint's MXFP4 experts, as the CLI reads them.
  await page.selectOption("#model", "gpt-oss-120b");
  await page.waitForSelector("#r-tokens-per-s[data-fits=true]");
  const oss = decode("-m", "gpt-oss-120b", "-c", "4096");
  check("gpt-oss-120b: tok/s with the checkpoint's formats equals the CLI's", await value("#r-tokens-per-s"), oss.tokens_per_s);
  check("gpt-oss-120b: the page says its experts are mxfp4, from the checkpoint",
        (await page.textContent("#r-formats")).startsWith("bf16, experts mxfp4 (from the checkpoint: "), true);

  // Llama-3.1-70B in fp8 over four H100s: the CLI's numbers, links included.
  await page.selectOption("#model", "llama-3.1-70b");
  await page.fill("#weights", "fp8");
  await page.fill("#tp", "4");
  await page.waitForSelector("#r-tokens-per-s[data-fits=true]");
  const tp4 = decode("-m", "llama-3.1-70b", "-c", "4096", "--tp", "4", "--weights", "fp8");
  check("tp 4 llama-3.1-70b fp8: tok/s equals the CLI's", await value("#r-tokens-per-s"), tp4.tokens_per_s);
  check("tp 4 llama-3.1-70b fp8: memory per device equals the CLI's", await value("#r-memory"), tp4.memory_per_device_bytes);
  check("tp 4 llama-3.1-70b fp8: communication time equals the CLI's", await value("#r-communication"), tp4.communication_time_s);
  check("tp 4 llama-3.1-70b fp8 fits", [await page.getAttribute("#r-fits", "data-fits"), tp4.fits], ["true", true]);
  check("the link latency is the preset's", await page.textContent("#r-link"), "0.60 us per message (hardware preset), scale-up link");

  // A link latency typed in changes the communication time as the CLI's --link-latency-us does.
  await page.fill("#link_latency_us", "5");
  await page.waitForSelector("#r-link[data-from=deployment]");
  const slow = decode("-m", "llama-3.1-70b", "-c", "4096", "--tp", "4", "--weights", "fp8", "--link-latency-us", "5");
  check("link latency 5 us: communication time equals the CLI's", await value("#r-communication"), slow.communication_time_s);
  check("link latency 5 us: tok/s equals the CLI's", await value("#r-tokens-per-s"), slow.tokens_per_s);
  check("link latency 5 us: more communication than the preset's 0.6 us", slow.communication_time_s > tp4.communication_time_s, true);
  check("the link latency shown is the one typed", await page.textContent("#r-link"), "5.00 us per message (deployment), scale-up link");
  await page.fill("#link_latency_us", "2000000");
  await page.waitForSelector("body[data-state=error]");
  check("a link latency over 1 s shows the library's error beside the field", await page.textContent("#error-link_latency_us"),
        "link latency: got 2000000 us, expected a time from 0 to 1 s");
  await page.fill("#link_latency_us", "");
  await page.waitForSelector("#r-link[data-from='hardware preset']");
  check("clearing the link latency returns to the preset's", await value("#r-communication"), tp4.communication_time_s);

  check("no script errors on the page", pageErrors, []);
} catch (e) {
  console.log("FAIL " + e.message);
  status = 1;
} finally {
  await browser.close();
}
console.log(status === 0 ? `web: ${checks} checks passed` : "web: failed");
process.exit(status);
