// Opens a WACZ in ReplayWeb.page in headless Chromium and checks that the
// archived page replays with its styles, images and font.
//   node replay_check.js EMBED_URL ARCHIVED_URL SCREENSHOT.png [REAL_FONT=1]
// EMBED_URL is a page holding <replay-web-page>; ARCHIVED_URL the crawl's
// seed. Prints one OK/FAIL line per check; exits 1 when any failed.
// playwright-core comes from NODE_PATH (replay_check.sh sets it).
const { chromium } = require("playwright-core");
const fs = require("fs");
const os = require("os");
const path = require("path");

const [embedUrl, archivedUrl, shotPath, realFont = "1"] = process.argv.slice(2);
let failures = 0;
const consoleLines = [];
function report(ok, name, detail) {
  if (!ok) failures++;
  console.log(`${ok ? "OK  " : "FAIL"} ${name}${detail ? ": " + detail : ""}`);
}

async function main() {
  // A fresh profile each run: an old service worker or cached WACZ would hide
  // what this run's archive holds. The flags keep Chromium from waiting on
  // background connections that a closed network never answers.
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "zcrawl-replay-profile-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1000, height: 700 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = browser.pages()[0] || (await browser.newPage());
    // What ReplayWeb.page complains of (a service worker not registering, a
    // WACZ it will not load) explains a failure better than a time-out does;
    // printed only when a check failed, as a replay logs harmless 404s too.
    page.on("console", (m) => ["error", "warning"].includes(m.type()) &&
      consoleLines.push(`  console ${m.type()}: ${m.text().split("\n")[0]}`));
    await page.goto(embedUrl);

    // ReplayWeb.page nests iframes: embed page > replay/ app > archived page,
    // which it serves as .../w/COLL/TSmp_/ARCHIVED_URL from the service worker.
    let frame = null;
    const deadline = Date.now() + 60000;
    // An exception ReplayWeb.page logs (say, a WACZ it will not load) ends the wait.
    while (!frame && Date.now() < deadline && !consoleLines.some((l) => l.includes(": Error"))) {
      frame = page.frames().find((f) => f.url().includes("mp_/" + archivedUrl));
      if (!frame) await page.waitForTimeout(250);
    }
    report(!!frame, "archived page opened in the replay frame",
           frame ? frame.url() : "none; frames: " + page.frames().map((f) => f.url()).join(" "));
    if (!frame) return;
    await frame.waitForLoadState("load");
    await frame.waitForSelector("h1.title", { timeout: 30000 });

    const r = await frame.evaluate(async (realFont) => {
      const css = (sel, prop) => getComputedStyle(document.querySelector(sel))[prop];
      // Loads URL as an image through the replay (wombat rewrites .src).
      const loads = (url) => new Promise((resolve) => {
        const im = new Image();
        im.onload = () => resolve(im.naturalWidth > 0);
        im.onerror = () => resolve(false);
        im.src = url;
      });
      const bgUrl = (sel) => (css(sel, "backgroundImage").match(/url\("?(.*?)"?\)/) || [])[1];
      await Promise.all([...document.images].map((im) => im.complete || new Promise((ok) => { im.onload = im.onerror = ok; })));
      const out = {
        title: document.title,
        h1Colour: css("h1.title", "color"),
        bodyBackground: css("body", "backgroundColor"),
        images: [...document.images].map((im) => [im.id, im.complete && im.naturalWidth > 0, im.currentSrc]),
        srcset2x: await loads("img/set-2x.png"),
        tileUrl: bgUrl(".tile"),
        inlineUrl: bgUrl("#inline"),
      };
      out.tileLoads = !!out.tileUrl && (await loads(out.tileUrl));
      out.inlineLoads = !!out.inlineUrl && (await loads(out.inlineUrl));
      const icon = document.querySelector("link[rel=icon]");
      out.iconLoads = !!icon && (await loads(icon.href));
      const fontResp = await fetch("fonts/zfont.ttf");
      out.fontFetch = `${fontResp.status} ${fontResp.headers.get("content-type")} ${(await fontResp.arrayBuffer()).byteLength} bytes`;
      out.fontOk = fontResp.status === 200;
      if (realFont === "1") {
        const faces = await document.fonts.load('16px "ZcrawlFont"');
        out.fontOk = out.fontOk && faces.length > 0 && faces.every((f) => f.status === "loaded");
      }
      const page2 = await fetch("page2.html");
      out.page2 = page2.status === 200 && (await page2.text()).includes("page two");
      // zcrawl stores index.html, the same bytes as /, as a revisit record.
      const again = await fetch("index.html");
      out.revisit = again.status === 200 && (await again.text()).includes("zcrawl replay check");
      return out;
    }, realFont);

    report(r.title === "zcrawl replay index", "page title", r.title);
    report(r.h1Colour === "rgb(0, 128, 0)", "main.css applied (h1 colour)", r.h1Colour);
    report(r.bodyBackground === "rgb(255, 230, 200)", "@import theme.css applied (body background)", r.bodyBackground);
    for (const [id, ok, src] of r.images) report(ok, `<img id=${id}> loaded`, src);
    report(r.srcset2x, "srcset's other candidate (set-2x.png) loads");
    report(r.tileLoads, "background-image url() of theme.css loads", r.tileUrl);
    report(r.inlineLoads, "style=\"background-image\" url() loads", r.inlineUrl);
    report(r.iconLoads, "<link rel=icon> loads");
    report(r.fontOk, realFont === "1" ? "@font-face font fetched and loaded" : "@font-face url() fetched", r.fontFetch);
    report(r.page2, "page2.html replays");
    report(r.revisit, "index.html (a revisit of /) replays");

    await page.screenshot({ path: shotPath, fullPage: true });
    console.log(`screenshot: ${shotPath}`);
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().then(
  () => {
    if (failures) console.log(consoleLines.join("\n"));
    process.exit(failures ? 1 : 0);
  },
  (e) => { console.log(`FAIL replay: ${e.message}\n${consoleLines.join("\n")}`); process.exit(1); });
