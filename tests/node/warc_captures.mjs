// Counts the captures in a folder's WARC files with warcio's own parser, an
// independent reader of what zcrawl wrote (not our index, not our code).
//
// Usage: node warc_captures.mjs NODE_MODULES DIR
// Reads every DIR/*.warc.gz (only those: set-aside files have another
// suffix) and prints one JSON object on stdout:
//   {"files":F,"records":R,"captures":C,"uris":U,"duplicated":[{"uri":..,"count":N,"at":["file@offset",..]},..]}
// where a capture is a response or revisit record, U the distinct
// WARC-Target-URIs among them, and `duplicated` the URIs captured more than
// once. Exits 1 when a file cannot be read.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [modules, dir] = process.argv.slice(2);
const { WARCParser } = await import(pathToFileURL(path.join(modules, "warcio", "dist", "index.js")).href);

const counts = new Map();
let files = 0;
let records = 0;
for (const name of fs.readdirSync(dir).filter((n) => n.endsWith(".warc.gz")).sort()) {
  ++files;
  const parser = new WARCParser(fs.createReadStream(path.join(dir, name)));
  for await (const record of parser) {
    ++records;
    const type = record.warcType;
    if (type === "response" || type === "revisit") {
      const uri = record.warcTargetURI;
      const entry = counts.get(uri) ?? { count: 0, at: [] };
      entry.count += 1;
      entry.at.push(`${name}@${parser.offset}`);
      counts.set(uri, entry);
    }
    await record.skipFully();
  }
}
let captures = 0;
const duplicated = [];
for (const [uri, entry] of counts) {
  captures += entry.count;
  if (entry.count > 1) duplicated.push({ uri, count: entry.count, at: entry.at });
}
process.stdout.write(JSON.stringify({ files, records, captures, uris: counts.size, duplicated }) + "\n");
