// The web console in a real browser (issue 50 point 4): Debian's chromium,
// driven by playwright-core, opens the console of a running crawl and
//   - sees the counts and the chart move;
//   - pauses it, sees PAUSED, and the site's request log stays silent;
//   - blocks one of the two hosts through the form and sees the block listed;
//   - resumes it: the blocked host sees no request, the other does, and
//     the failure causes count URLs as blocked;
//   - saves a screenshot (docs/console.png is one).
//   node console_check.js CONSOLE_URL SITE_LOG SCREENSHOT.png BLOCK_ORIGIN
// SITE_LOG: the site's requests, one "MS HOST:PORT PATH" line each
// (slow_site.py writes it). Prints one OK/FAIL line per check; exits 1 when any failed.
const { chromium } = require("playwright-core");
const fs = require("fs");

const [consoleUrl, siteLog, shotPath, blockTarget] = process.argv.slice(2);
let failures = 0;
function report(ok, name, detail) {
  if (!ok) failures++;
  console.log(`${ok ? "OK  " : "FAIL"} ${name}${detail ? ": " + detail : ""}`);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Requests the site logged at or after `ms` (to `host` only, if given).
const requestsSince = (ms, host) =>
  fs.readFileSync(siteLog, "utf8").split("\n").map((l) => l.split(" "))
    .filter((f) => f.length === 3 && Number(f[0]) >= ms && (!host || f[1] === host)).length;

async function main() {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true,
                                          args: ["--no-sandbox", "--disable-gpu"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(consoleUrl);
    await page.waitForFunction(() => document.getElementById("state").textContent === "RUNNING", null,
                               { timeout: 15000 });
    report(true, "the console loads and says RUNNING");
    const done = async () => Number((await page.textContent("#tile-done b")).replace(/,/g, ""));
    const before = await done();
    await sleep(3000);
    const after = await done();
    report(after > before, "the done count moves", `${before} -> ${after}`);
    const inked = await page.evaluate(() => {
      const c = document.getElementById("chart");
      const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) n += d[i] > 0;
      return n;
    });
    report(inked > 200, "the chart draws the rates", `${inked} pixels inked`);

    await page.click("#pause");
    await page.waitForFunction(() => document.getElementById("state").textContent === "PAUSED", null,
                               { timeout: 10000 });
    const paused = Date.now();
    report(true, "Pause: the console says PAUSED");
    await sleep(4000);
    // One lease may be in flight when the pause lands (--per-host 1).
    const during = requestsSince(paused + 1000);
    report(during === 0, "paused: the site saw no request", `${during} requests after the pause`);

    await page.fill("#block-target", blockTarget);
    await page.fill("#block-note", "browser test");
    await page.click("#block-form button");
    await page.waitForFunction(() => document.getElementById("result").textContent.startsWith("block:"), null,
                               { timeout: 10000 });
    const blockedAt = Date.now();
    const blockAnswer = await page.textContent("#result");
    report(!blockAnswer.startsWith("block: refused") && blockAnswer.includes("blocked"), "Block: acknowledged",
           blockAnswer);
    await page.waitForFunction((t) => document.getElementById("rules").textContent.includes(t), blockTarget,
                               { timeout: 10000 });
    report(true, "Block: the block is listed", blockTarget);

    await page.click("#resume");
    await page.waitForFunction(() => document.getElementById("state").textContent !== "PAUSED", null,
                               { timeout: 10000 });
    report(true, "Resume: no longer PAUSED");
    await sleep(5000);
    const blockedHost = blockTarget.replace(/^https?:\/\//, "");
    const toBlocked = requestsSince(blockedAt, blockedHost);
    const toOthers = requestsSince(blockedAt) - toBlocked;
    report(toBlocked === 0, "blocked: its host saw no request after the acknowledgement", `${toBlocked} requests`);
    report(toOthers > 5, "resumed: the other host is crawled again", `${toOthers} requests`);
    await page.waitForFunction(() => /blocked/.test(document.getElementById("causes").textContent), null,
                               { timeout: 10000 });
    report(true, "the failure causes count URLs as blocked");
    await sleep(1500);
    await page.screenshot({ path: shotPath, fullPage: true });
    report(fs.statSync(shotPath).size > 10000, "a screenshot was saved", shotPath);
  } catch (e) {
    report(false, "the browser session", String(e).split("\n")[0]);
  } finally {
    await browser.close();
  }
  process.exit(failures ? 1 : 0);
}
main();
