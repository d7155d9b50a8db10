// Browser test: the page, driven in Debian's Chromium by playwright-core, shows what the CLI
// computes, shows the library's own error beside the field, and keeps working.
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
let status = 0;
try {
  const page = await browser.newPage({ viewport: { width: 1150, height: 1100 } });
  const pageErrors = [];
  page.on("pageerror", e => pageErrors.push(e.message));
  await page.goto(`file://${pageDir}/index.html#hardware=h100-sxm&model=llama-3.1-8b&context=4096&batch=1`);
  await page.waitForSelector("body[data-ready=yes]", { timeout: 30000 });

  // Llama-3.1-8B on h100-sxm at 4k context: the page's number is the CLI's, bit for bit.
  const shown = Number(await page.getAttribute("#r-tokens-per-s", "data-value"));
  const fromCli = JSON.parse(execFileSync(cli, ["decode", "-m", "llama-3.1-8b", "-H", "h100-sxm", "-c", "4096", "--format", "json"]))[0];
  check("tok/s equals the CLI's JSON tokens_per_s", shown, fromCli.tokens_per_s);
  check("tok/s reads seed 003's 201.8", await page.textContent("#r-tokens-per-s"), "201.8");
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

  // The URL fragment records the inputs: a shared link reproduces the result.
  await page.fill("#context", "32768");
  await page.waitForSelector("body[data-state=ok]");
  const second = await browser.newPage();
  await second.goto(page.url());
  await second.waitForSelector("body[data-ready=yes]");
  check("the URL fragment reproduces the page", await second.textContent("#r-tokens-per-s"), "164.6");

  await page.fill("#context", "4096");
  await page.waitForSelector("body[data-state=ok]");
  await page.screenshot({ path: screenshot, fullPage: true });
  check("no script errors on the page", pageErrors, []);
} catch (e) {
  console.log("FAIL " + e.message);
  status = 1;
} finally {
  await browser.close();
}
console.log(status === 0 ? `web: ${checks} checks passed` : "web: failed");
process.exit(status);
