// The extension end to end in a real VS Code: installs the packaged .vsix
// into a code-server bound to 127.0.0.1 with a temporary user-data folder,
// opens a workspace in headless Chromium (puppeteer-core) and checks,
// through the editor, with the real `shapescript lsp`:
//   - diagnostics appear for an error;
//   - the Outline lists the file's declarations (a file starting with `fn`);
//   - hover on a dim shows its value and uses;
//   - go to definition and find references into the prelude open read-only
//     `shapescript-library:` documents that refuse edits;
//   - hover inside a library document works;
//   - a quick fix applies the checker's did-you-mean help;
//   - a `##` doc comment continues on Enter;
//   - Restart Server restarts it and Show Server Output shows its output;
// and with the real `sexpgpu lsp`, in `.sx` files:
//   - hover on a tensor expression shows its shape and dtype;
//   - a shape mistake typed (not saved) shows its E-DIM-001 diagnostic;
//   - saving a `.sx` file formats it, and Format Document formats a `.ss` file;
// and last, for ShapeScript again:
//   - a missing binary shows the message naming `shapescript.server.path`.
// A failure leaves a screenshot and the logs in $OUT. Run by scripts/test-vscode,
// which installs code-server, Chromium and puppeteer-core and sets the
// environment: CODE_SERVER, CHROMIUM, SHAPESCRIPT, SEXPGPU, VSIX, OUT.

"use strict";

const { spawn, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const net = require("node:net");
const os = require("node:os");
const path = require("node:path");
const puppeteer = require("puppeteer-core");

const env = (name) => {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: run scripts/test-vscode`);
  }
  return value;
};
const CODE_SERVER = env("CODE_SERVER");
const CHROMIUM = env("CHROMIUM");
const SHAPESCRIPT = env("SHAPESCRIPT");
const SEXPGPU = env("SEXPGPU");
const VSIX = env("VSIX");
const OUT = env("OUT");

// The workspace: a file whose first declaration is a `fn` (no detail in the
// outline), a dim with uses, a call of the prelude's `gelu`, and an error.
const MAIN = `fn double(x: [n]) -> [n] = x + x

## Model width.
dim D = 64

fn project(x: [b n D], w: [D D]) -> [b n D] {
  let h = x @ w
  gelu(h)
}

fn broken(x: [n]) -> [n] = doubel(x)
`;

// A SexpGPU file: a traced graph whose `matmul` is [8, 32] f32.
const TENSORS = `(require nn)

(defgraph lin [(x [8 16] :f32) (w [32 16] :f32)]
  (let [h (matmul x (transpose w [1 0]))]
    (nn/relu h)))
`;

// Files to format: by saving (.sx) and by Format Document (.ss).
const MESSY_SX = "(defn twice (x)\n(* x  2))\n";
const MESSY_SS = "dim   Width=4\n";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function log(message) {
  const line = `[${new Date().toISOString().slice(11, 19)}] ${message}`;
  console.log(line);
  fs.appendFileSync(path.join(OUT, "e2e.log"), line + "\n");
}

/** Polls `probe` until it returns a truthy value; fails with `what` after `ms`. */
async function until(what, probe, ms = 30000) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await probe();
      if (last) {
        return last;
      }
    } catch (error) {
      last = error;
    }
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what} (last: ${String(last)})`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/**
 * code-server's environment: its logs and default config go to `XDG_*`
 * folders (not `--user-data-dir`), kept inside the temporary `root` too.
 */
function codeServerEnv(root) {
  return {
    ...process.env,
    XDG_DATA_HOME: path.join(root, "xdg-data"),
    XDG_CONFIG_HOME: path.join(root, "xdg-config"),
    XDG_CACHE_HOME: path.join(root, "xdg-cache"),
  };
}

/** A temporary user-data folder with the extension installed and settings written. */
function prepare(root) {
  const userData = path.join(root, "user-data");
  const extensions = path.join(root, "extensions");
  const workspace = path.join(root, "workspace");
  fs.mkdirSync(path.join(userData, "User"), { recursive: true });
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, "main.ss"), MAIN);
  fs.writeFileSync(path.join(workspace, "tensors.sx"), TENSORS);
  fs.writeFileSync(path.join(workspace, "messy.sx"), MESSY_SX);
  fs.writeFileSync(path.join(workspace, "messy.ss"), MESSY_SS);
  const install = spawnSync(
    process.execPath,
    [CODE_SERVER, "--user-data-dir", userData, "--extensions-dir", extensions, "--install-extension", VSIX],
    { encoding: "utf8", env: codeServerEnv(root) },
  );
  fs.writeFileSync(path.join(OUT, "install.log"), install.stdout + install.stderr);
  if (install.status !== 0 || !/successfully installed/i.test(install.stdout + install.stderr)) {
    throw new Error(`installing ${VSIX} failed:\n${install.stdout}${install.stderr}`);
  }
  writeSettings(userData, SHAPESCRIPT);
  return { root, userData, extensions, workspace };
}

function writeSettings(userData, serverPath) {
  const settings = {
    "shapescript.server.path": serverPath,
    "sexpgpu.server.path": SEXPGPU,
    // Typed brackets stay as typed (no closer added to type over).
    "editor.autoClosingBrackets": "never",
    // A file is saved only when a check saves it.
    "files.autoSave": "off",
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.enableExperiments": false,
    "security.workspace.trust.enabled": false,
    "telemetry.telemetryLevel": "off",
    "extensions.ignoreRecommendations": true,
    "update.mode": "none",
    "chat.disableAIFeatures": true,
    "editor.hover.delay": 100,
    "editor.quickSuggestions": { other: false, comments: false, strings: false },
    "window.restoreWindows": "none",
  };
  fs.writeFileSync(path.join(userData, "User", "settings.json"), JSON.stringify(settings, null, 2));
}

async function startCodeServer(dirs, port) {
  const config = path.join(dirs.userData, "config.yaml");
  fs.writeFileSync(config, "");
  const logFile = fs.openSync(path.join(OUT, "code-server.log"), "a");
  const child = spawn(
    process.execPath,
    [
      CODE_SERVER,
      "--config", config,
      "--auth", "none",
      "--bind-addr", `127.0.0.1:${port}`,
      "--user-data-dir", dirs.userData,
      "--extensions-dir", dirs.extensions,
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      "--ignore-last-opened",
      dirs.workspace,
    ],
    { stdio: ["ignore", logFile, logFile], detached: true, env: codeServerEnv(dirs.root) },
  );
  await until("code-server to listen", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
    return res && res.ok;
  }, 60000);
  return child;
}

/** Drives one VS Code window. */
class Workbench {
  constructor(page) {
    this.page = page;
  }

  async keys(...chord) {
    for (const key of chord) {
      await this.page.keyboard.down(key);
    }
    for (const key of chord.reverse()) {
      await this.page.keyboard.up(key);
    }
  }

  /**
   * Opens a quick input with `open`, types `text`, and accepts it, once the
   * list's first row shows `row` when one is given.
   */
  async quickInput(open, text, row) {
    await open();
    await this.page.waitForSelector(".quick-input-widget input", { visible: true });
    await this.page.keyboard.type(text, { delay: 10 });
    if (row !== undefined) {
      await until(`"${row}" in the quick input`, () =>
        this.page.evaluate((wanted) => {
          const first = document.querySelector(".quick-input-widget .monaco-list-row");
          return first?.textContent.toLowerCase().includes(wanted.toLowerCase()) ?? false;
        }, row),
      );
    } else {
      await sleep(300);
    }
    await this.page.keyboard.press("Enter");
    await sleep(300);
  }

  /** Runs a command by its title in the command palette. */
  async command(title) {
    await this.quickInput(() => this.page.keyboard.press("F1"), title, title);
  }

  async openFile(name) {
    await this.quickInput(() => this.keys("Control", "KeyP"), name, name);
    await until(`${name} to open`, async () => (await this.activeEditor()).uri?.endsWith(name));
  }

  /** Puts the cursor at 1-based `line`, `column` of the active editor. */
  async goTo(line, column) {
    await this.quickInput(() => this.keys("Control", "KeyG"), `${line}:${column}`);
  }

  /** The active editor's URI, whether it is dirty, and its visible text. */
  async activeEditor() {
    return this.page.evaluate(() => {
      const group = document.querySelector(".editor-group-container.active") ?? document;
      const editor = group.querySelector(".editor-container .monaco-editor");
      const uriHolder = editor?.querySelector("[data-uri]") ?? editor;
      const tab = group.querySelector(".tab.active");
      return {
        uri: uriHolder?.getAttribute("data-uri") ?? undefined,
        dirty: tab ? tab.classList.contains("dirty") : false,
        title: tab?.textContent ?? "",
        // Lines in the order they are drawn, with VS Code's non-breaking spaces as spaces.
        text: [...(editor?.querySelectorAll(".view-line") ?? [])]
          .map((l) => l.textContent.replace(/\u00a0/g, " "))
          .join("\n"),
      };
    });
  }

  /** The text of the visible hover, after asking for it at the cursor. */
  async hover(expected) {
    return until(`a hover showing "${expected}"`, async () => {
      await this.command("Show or Focus Hover");
      const text = await this.page.evaluate(() =>
        [...document.querySelectorAll(".monaco-hover")]
          .filter((h) => !h.classList.contains("hidden"))
          .map((h) => h.textContent)
          .join("\n"),
      );
      await this.page.keyboard.press("Escape");
      return text.includes(expected) ? text : false;
    });
  }

  async notifications() {
    return this.page.evaluate(() =>
      [...document.querySelectorAll(".notifications-toasts .notification-toast, .notifications-center .notification-list-item")]
        .map((n) => n.textContent)
        .join("\n"),
    );
  }

  async statusBar() {
    return this.page.evaluate(() => document.querySelector("#workbench\\.parts\\.statusbar")?.textContent ?? "");
  }
}

const checks = [];

async function check(name, body) {
  log(`check: ${name}`);
  await body();
  checks.push(name);
  log(`  ok`);
}

async function session(browser, port, dirs) {
  const page = await browser.newPage();
  page.on("console", (m) => {
    if (m.type() === "error") {
      fs.appendFileSync(path.join(OUT, "console.log"), m.text() + "\n");
    }
  });
  const wb = new Workbench(page);
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.workspace)}`);
  await page.waitForSelector(".monaco-workbench", { timeout: 60000 });
  await until("the explorer", () => page.$(".explorer-folders-view"), 60000);
  await wb.openFile("main.ss");
  await until("the server to run", async () => /ShapeScript \d/.test(await wb.statusBar()), 60000);

  await check("diagnostics appear for an error", async () => {
    await until("an error squiggle", () => page.$(".monaco-editor .squiggly-error"));
    await wb.command("View: Focus Problems");
    await until("E0301 in the Problems panel", async () =>
      page.evaluate(() => document.querySelector(".markers-panel")?.textContent.includes("cannot find function `doubel`")),
    );
  });

  await check("the Outline lists the file's declarations", async () => {
    await wb.command("Explorer: Focus on Outline View");
    const names = await until("the outline's rows", async () => {
      const rows = await page.evaluate(() => {
        const pane = [...document.querySelectorAll(".pane")].find((p) =>
          p.querySelector(".pane-header")?.textContent.toLowerCase().includes("outline"),
        );
        return [...(pane?.querySelectorAll(".monaco-list-row .label-name") ?? [])].map((r) => r.textContent);
      });
      return ["double", "D", "project", "broken"].every((n) => rows.includes(n)) ? rows : false;
    });
    log(`  outline: ${names.join(", ")}`);
    const errors = await wb.notifications();
    if (/documentSymbol failed/.test(errors)) {
      throw new Error(`an error popped up: ${errors}`);
    }
  });

  await check("hover on a dim shows its value and uses", async () => {
    await wb.openFile("main.ss");
    await wb.goTo(4, 5);
    const text = await wb.hover("dim D = 64");
    if (!text.includes("Used in") || !text.includes("fn project")) {
      throw new Error(`the hover lacks the dim's uses: ${text}`);
    }
  });

  await check("go to definition on gelu opens the prelude read-only", async () => {
    await wb.goTo(8, 4);
    await page.keyboard.press("F12");
    const editor = await until("prelude.ss to open", async () => {
      const e = await wb.activeEditor();
      return e.uri?.endsWith("prelude.ss") ? e : false;
    });
    if (!editor.uri.startsWith("shapescript-library:")) {
      throw new Error(`the prelude opened as ${editor.uri}, not a shapescript-library: document`);
    }
    await refusesEdits(wb, page);
  });

  await check("hover inside a library document works", async () => {
    // The cursor is on `gelu`'s stub, where go to definition put it.
    await wb.hover("extern fn gelu");
  });

  await check("find references into the prelude opens it read-only", async () => {
    await wb.openFile("main.ss");
    await wb.goTo(8, 4);
    await wb.command("References: Find All References");
    // The list re-renders its rows as results arrive, so the file's row is
    // looked up again on every poll and expanded while it is collapsed (a
    // click on a row handle taken before a re-render can miss).
    const row = await until("a reference in prelude.ss", async () => {
      const file = await page.evaluateHandle(
        () => [...document.querySelectorAll(".monaco-list-row")].find((r) => r.textContent.includes("prelude.ss")) ?? false,
      );
      if (!file.asElement()) {
        return false;
      }
      if ((await file.evaluate((r) => r.getAttribute("aria-expanded"))) === "false") {
        await file.click();
        return false;
      }
      const reference = await page.evaluateHandle(() => {
        const rows = [...document.querySelectorAll(".monaco-list-row")];
        const at = rows.findIndex((r) => r.textContent.includes("prelude.ss"));
        return at >= 0 ? rows.slice(at + 1).find((r) => r.textContent.includes("gelu")) ?? false : false;
      });
      return reference.asElement() ? reference : false;
    });
    await row.click();
    await sleep(300);
    await row.click({ count: 2 });
    const editor = await until("prelude.ss to open from the references", async () => {
      const e = await wb.activeEditor();
      return e.uri?.endsWith("prelude.ss") ? e : false;
    });
    if (!editor.uri.startsWith("shapescript-library:")) {
      throw new Error(`the reference opened ${editor.uri}, not a shapescript-library: document`);
    }
    await refusesEdits(wb, page);
  });

  await check("a quick fix applies the did-you-mean help", async () => {
    await wb.openFile("main.ss");
    await wb.goTo(11, 30);
    await wb.command("Quick Fix...");
    await until("the quick fix in the menu", async () =>
      page.evaluate(() =>
        [...document.querySelectorAll(".action-widget .monaco-list-row")].some((r) =>
          r.textContent.includes("Replace `doubel` with `double`"),
        ),
      ),
    );
    await page.keyboard.press("Enter");
    await until("the fixed call and no error left", async () => {
      const editor = await wb.activeEditor();
      const squiggles = await page.$(".editor-group-container.active .squiggly-error");
      return editor.text.includes("= double(x)") && !squiggles;
    });
  });

  await check("a ## doc comment continues on Enter", async () => {
    await wb.goTo(3, 16);
    await page.keyboard.press("Enter");
    await page.keyboard.type("more");
    await until("the continued doc comment", async () => {
      const lines = await page.evaluate(() =>
        [...document.querySelectorAll(".editor-group-container.active .view-line")].map((l) =>
          l.textContent.replace(/\u00a0/g, " "),
        ),
      );
      return lines.includes("## more");
    });
  });

  await check("Restart Server and Show Server Output", async () => {
    await wb.command("ShapeScript: Restart Server");
    await until("the server to run again", async () => /ShapeScript \d/.test(await wb.statusBar()), 60000);
    // The doc comment above added a line: `dim D` is on line 5 now.
    await wb.goTo(5, 5);
    await wb.hover("dim D = 64");
    await wb.command("ShapeScript: Show Server Output");
    await until("the Output panel", async () =>
      page.evaluate(() =>
        [...document.querySelectorAll(".part.panel .action-item.checked")].some((a) => a.textContent.includes("Output")),
      ),
    );
  });

  await sexpgpuChecks(wb, page, dirs);

  await check("a missing binary shows the message naming the setting", async () => {
    // As a user would: in the Settings editor, which also restarts the server.
    await wb.command("Preferences: Open Settings (UI)");
    await page.waitForSelector(".settings-editor", { visible: true });
    await sleep(500);
    await page.keyboard.type("shapescript.server.path", { delay: 10 });
    const input = await settingInput(page);
    await input.click({ count: 3 });
    await wb.keys("Control", "KeyA");
    await page.keyboard.type("/nonexistent/shapescript", { delay: 10 });
    await page.keyboard.press("Tab");
    const text = await until("the missing-server message", async () => {
      const shown = await wb.notifications();
      return shown.includes("shapescript.server.path") && shown.includes("/nonexistent/shapescript") ? shown : false;
    }, 60000);
    // Its button opens the setting (the Settings editor is closed first).
    await until("the Settings editor to close", async () => {
      await page.keyboard.press("Escape");
      return page.evaluate(() => !document.querySelector(".settings-editor")?.checkVisibility());
    }, 10000);
    // The toast may still be sliding in when its button is clicked, so the
    // button is clicked again until the Settings editor shows the setting.
    const opened = await until("Open Settings to show the setting", async () => {
      const shown = await page.evaluateHandle(findSettingInput);
      if (shown.asElement()) {
        return shown;
      }
      const button = await page.evaluateHandle(
        () =>
          [...document.querySelectorAll(".notifications-toasts .monaco-button")].find(
            (b) => b.textContent.trim() === "Open Settings",
          ) ?? false,
      );
      if (button.asElement()) {
        await button.click();
      }
      return false;
    });
    const value = await opened.evaluate((i) => i.value);
    if (value !== "/nonexistent/shapescript") {
      throw new Error(`Open Settings showed the setting as "${value}"`);
    }
  });
  await page.close();
}

/** The SexpGPU server in the editor: hover shapes, a diagnostic as typed, formatting. */
async function sexpgpuChecks(wb, page, dirs) {
  await check("hover on a tensor in a .sx file shows its shape and dtype", async () => {
    await wb.openFile("tensors.sx");
    await until("the SexpGPU server to run", async () => /SexpGPU \d/.test(await wb.statusBar()), 60000);
    // On `matmul`, line 4: the product is [8, 32] f32.
    await wb.goTo(4, 13);
    await wb.hover("[8, 32] f32");
  });

  await check("an E-DIM-001 appears as a diagnostic without saving", async () => {
    await wb.openFile("tensors.sx");
    await wb.keys("Control", "End");
    await page.keyboard.type("(defgraph bad [(a [2 16] :f32) (b [32 8] :f32)] (matmul a b))", { delay: 5 });
    await wb.command("View: Focus Problems");
    await until("E-DIM-001 in the Problems panel", async () =>
      page.evaluate(() => {
        const text = document.querySelector(".markers-panel")?.textContent ?? "";
        return text.includes("E-DIM-001") && text.includes("inner dims differ");
      }),
    );
    const saved = fs.readFileSync(path.join(dirs.workspace, "tensors.sx"), "utf8");
    if (saved.includes("defgraph bad")) {
      throw new Error("the file was saved: the diagnostic must come from the unsaved text");
    }
  });

  await check("saving a .sx file formats it; Format Document formats a .ss file", async () => {
    await wb.openFile("messy.sx");
    await until("the SexpGPU server to run", async () => /SexpGPU \d/.test(await wb.statusBar()), 60000);
    await wb.keys("Control", "KeyS");
    await until("messy.sx formatted on save", async () => {
      const editor = await wb.activeEditor();
      const saved = fs.readFileSync(path.join(dirs.workspace, "messy.sx"), "utf8");
      return editor.text.includes("  (* x 2))") && saved === "(defn twice (x)\n  (* x 2))\n";
    });
    await wb.openFile("messy.ss");
    await wb.command("Format Document");
    await until("messy.ss formatted", async () => (await wb.activeEditor()).text.includes("dim Width = 4"));
  });
}

/** The input of `shapescript.server.path` in the Settings editor. */
function settingInput(page) {
  return until("the server path setting's input", async () =>
    page.evaluateHandle(findSettingInput).then((h) => (h.asElement() ? h : false)),
  );
}

/** In the page: that input, or false while the Settings editor does not show it. */
function findSettingInput() {
  const item = [...document.querySelectorAll(".settings-editor .setting-item-contents")].find((i) =>
    /Server(: | › )Path/.test(i.textContent),
  );
  return item?.querySelector("input") ?? false;
}

/** Typing into the active editor changes nothing and leaves it clean. */
async function refusesEdits(wb, page) {
  const before = await wb.activeEditor();
  await page.keyboard.type("zzz");
  await page.keyboard.press("Enter");
  await sleep(500);
  const after = await wb.activeEditor();
  if (after.dirty || after.text.includes("zzz") || after.uri !== before.uri) {
    throw new Error(`the library document took an edit (dirty: ${after.dirty})`);
  }
}

async function main() {
  fs.mkdirSync(OUT, { recursive: true });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "shapescript-vscode-e2e-"));
  const dirs = prepare(root);
  const port = await freePort();
  const server = await startCodeServer(dirs, port);
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"],
    defaultViewport: { width: 1400, height: 1000 },
  });
  let failed;
  try {
    await session(browser, port, dirs);
  } catch (error) {
    failed = error;
    const pages = await browser.pages();
    const page = pages[pages.length - 1];
    if (page) {
      await page.screenshot({ path: path.join(OUT, "failure.png") }).catch(() => {});
    }
  } finally {
    await browser.close().catch(() => {});
    try {
      process.kill(-server.pid);
    } catch {
      server.kill();
    }
    fs.rmSync(root, { recursive: true, force: true });
  }
  if (failed) {
    console.error(`FAILED after ${checks.length} checks passed: ${failed.stack ?? failed}`);
    console.error(`screenshot and logs in ${OUT}`);
    process.exit(1);
  }
  log(`all ${checks.length} checks passed`);
}

main().catch((error) => {
  console.error(error.stack ?? String(error));
  process.exit(1);
});
