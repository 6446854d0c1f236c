// End-to-end test of the browser build: opens the page in headless Chromium, checks
// the 2D demo starts empty, presses keys (any key loads the 32 entities, R sends them
// round the circle), and checks a screenshot shows about 32 agent-coloured blobs.
// Node 20+ with --experimental-websocket (or 22+). Usage:
//   node --experimental-websocket e2e.mjs URL OUT_DIR CHROMIUM
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateSync } from "node:zlib";

const [url, outDir, chromium] = process.argv.slice(2);
const AGENT = [60, 150, 255];
const COLLIDED = [230, 51, 51];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function fail(msg) {
  console.error(`viewer-web-test: FAILED: ${msg}`);
  process.exitCode = 1;
}

// A PNG (8-bit RGB or RGBA, not interlaced) to { width, height, rgb }.
function decodePng(buf) {
  let pos = 8, width = 0, height = 0, type = 0;
  const idat = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const kind = buf.toString("ascii", pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (kind === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0) throw new Error("unsupported PNG");
      type = data[9];
    } else if (kind === "IDAT") idat.push(data);
    pos += 12 + len;
  }
  const bpp = type === 6 ? 4 : type === 2 ? 3 : 0;
  if (!bpp) throw new Error(`unsupported PNG colour type ${type}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const px = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? px[y * stride + x - bpp] : 0;
      const b = y > 0 ? px[(y - 1) * stride + x] : 0;
      const c = x >= bpp && y > 0 ? px[(y - 1) * stride + x - bpp] : 0;
      let v = src[x];
      if (f === 1) v += a;
      else if (f === 2) v += b;
      else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) {
        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      px[y * stride + x] = v & 255;
    }
  }
  const rgb = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) px.copy(rgb, i * 3, i * bpp, i * bpp + 3);
  return { width, height, rgb };
}

// Connected blobs of agent-coloured pixels, at least minSize pixels each.
function blobs({ width, height, rgb }, minSize) {
  const near = (i, c) => c.every((v, k) => Math.abs(rgb[i * 3 + k] - v) <= 24);
  const hit = new Uint8Array(width * height);
  for (let i = 0; i < width * height; i++) hit[i] = near(i, AGENT) || near(i, COLLIDED) ? 1 : 0;
  const sizes = [];
  for (let s = 0; s < width * height; s++) {
    if (hit[s] !== 1) continue;
    let size = 0;
    const stack = [s];
    hit[s] = 2;
    while (stack.length) {
      const i = stack.pop();
      size++;
      const x = i % width;
      for (const j of [x > 0 ? i - 1 : -1, x + 1 < width ? i + 1 : -1, i - width, i + width]) {
        if (j >= 0 && j < width * height && hit[j] === 1) {
          hit[j] = 2;
          stack.push(j);
        }
      }
    }
    if (size >= minSize) sizes.push(size);
  }
  return sizes;
}

const profile = mkdtempSync(join(tmpdir(), "crowdnav-chromium-"));
const browser = spawn(chromium, [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run",
  "--enable-unsafe-swiftshader", "--use-angle=swiftshader",
  `--user-data-dir=${profile}`, "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
  "--window-size=1024,768", url,
], { stdio: ["ignore", "ignore", "pipe"] });
const cleanup = () => {
  browser.kill();
  try { rmSync(profile, { recursive: true, force: true }); } catch {}
};
const deadline = setTimeout(() => { fail("timed out after 90 s"); cleanup(); process.exit(1); }, 90_000);

try {
  const wsUrl = await new Promise((resolve, reject) => {
    let err = "";
    browser.stderr.on("data", (d) => {
      err += d;
      const m = err.match(/DevTools listening on (ws:\/\/\S+)/);
      if (m) resolve(m[1]);
    });
    browser.on("exit", (c) => reject(new Error(`chromium exited (${c}): ${err.slice(-400)}`)));
  });
  const port = new URL(wsUrl).port;
  let page;
  for (let i = 0; i < 50 && !page; i++) {
    const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
    page = list.find((t) => t.type === "page");
    if (!page) await sleep(100);
  }
  const ws = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((r, j) => { ws.onopen = r; ws.onerror = j; });
  let next = 1;
  const pending = new Map();
  const problems = [];
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.id && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    } else if (msg.method === "Runtime.exceptionThrown") {
      problems.push(msg.params.exceptionDetails.exception?.description ?? msg.params.exceptionDetails.text);
    } else if (msg.method === "Runtime.consoleAPICalled" && msg.params.type === "error") {
      problems.push(msg.params.args.map((a) => a.value ?? a.description).join(" "));
    }
  };
  const send = (method, params = {}) => new Promise((resolve) => {
    const id = next++;
    pending.set(id, resolve);
    ws.send(JSON.stringify({ id, method, params }));
  });
  const shot = async (name) => {
    const r = await send("Page.captureScreenshot", { format: "png" });
    const png = Buffer.from(r.result.data, "base64");
    writeFileSync(join(outDir, name), png);
    return decodePng(png);
  };
  const press = async (key) => {
    const code = `Key${key.toUpperCase()}`;
    const vk = key.toUpperCase().charCodeAt(0);
    await send("Input.dispatchKeyEvent", { type: "keyDown", key, code, windowsVirtualKeyCode: vk, text: key });
    await sleep(60);
    await send("Input.dispatchKeyEvent", { type: "keyUp", key, code, windowsVirtualKeyCode: vk });
  };
  await send("Runtime.enable");
  await send("Page.enable");
  // Wait for the wasm to load and draw.
  await sleep(6000);
  await send("Runtime.evaluate", { expression: "document.getElementById('glcanvas').focus()" });
  const before = await shot("web-before.png");
  const empty = blobs(before, 40).length;
  await press("a");
  await sleep(500);
  await press("r");
  await sleep(2500);
  const after = await shot("web-after.png");
  const agents = blobs(after, 40).length;
  console.log(`viewer-web-test: before keys ${empty} agent blobs, after "a r" ${agents}`);
  if (problems.length) console.log(`viewer-web-test: page errors: ${problems.join(" | ")}`);
  if (empty !== 0) fail(`the demo should start empty, saw ${empty} agent blobs`);
  if (agents < 28 || agents > 36) fail(`expected about 32 agent blobs after the keys, saw ${agents}`);
  if (!process.exitCode) console.log("viewer-web-test: 1 passed, 0 failed");
  ws.close();
} catch (e) {
  fail(e.stack ?? String(e));
} finally {
  clearTimeout(deadline);
  cleanup();
}
