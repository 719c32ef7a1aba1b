// `npm test`'s unit tests of src/paths.ts (compiled to out/ by `tsc -p .`):
// library documents and their files, and finding the server's executable.
const assert = require("node:assert");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const test = require("node:test");

const {
  findServer,
  libraryFileName,
  libraryFilePath,
  LIBRARY_SCHEME,
  SEXPGPU_LIBRARY_SCHEME,
} = require("../../out/paths.js");

test("a file in the library folder is a library document, others are not", () => {
  const folder = path.join(os.tmpdir(), "storage");
  assert.strictEqual(LIBRARY_SCHEME, "shapescript-library");
  assert.strictEqual(SEXPGPU_LIBRARY_SCHEME, "sexpgpu-library");
  assert.strictEqual(libraryFileName(path.join(folder, "sexpgpu", "nn.sx"), path.join(folder, "sexpgpu")), "nn.sx");
  assert.strictEqual(libraryFileName(path.join(folder, "prelude.ss"), folder), "prelude.ss");
  assert.strictEqual(libraryFileName(path.join(folder, "sub", "prelude.ss"), folder), undefined);
  assert.strictEqual(libraryFileName(path.join(os.tmpdir(), "prelude.ss"), folder), undefined);
  assert.strictEqual(libraryFilePath("/nn.ss", folder), path.join(folder, "nn.ss"));
});

test("the server is found on PATH, by path, or not at all", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shapescript-find-"));
  const exe = path.join(dir, "shapescript");
  fs.writeFileSync(exe, "#!/bin/sh\n");
  fs.chmodSync(exe, 0o755);
  fs.writeFileSync(path.join(dir, "notexec"), "");
  const env = { PATH: ["/nonexistent", dir].join(path.delimiter), HOME: dir };
  assert.strictEqual(findServer("shapescript", env, "linux"), exe);
  assert.strictEqual(findServer(exe, env, "linux"), exe);
  assert.strictEqual(findServer("~/shapescript", env, "linux"), exe);
  assert.strictEqual(findServer("notexec", env, "linux"), undefined);
  assert.strictEqual(findServer("missing-shapescript", env, "linux"), undefined);
  assert.strictEqual(findServer(path.join(dir, "missing"), env, "linux"), undefined);
  fs.rmSync(dir, { recursive: true });
});
