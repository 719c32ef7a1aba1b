// The extension's pure path logic, kept apart from the `vscode` API so that
// `npm test` runs it under plain Node (test/unit): where a library file of a
// `shapescript-library:` or `sexpgpu-library:` URI lives, and where the
// `shapescript` and `sexpgpu` commands are.

import * as fs from "fs";
import * as path from "path";

/** The scheme of ShapeScript's read-only library documents (docs/shapescript/editor.md). */
export const LIBRARY_SCHEME = "shapescript-library";

/** The scheme of SexpGPU's read-only library documents (docs/sexpgpu/editor.md). */
export const SEXPGPU_LIBRARY_SCHEME = "sexpgpu-library";

/**
 * The name of the library file at `fsPath` (`prelude.ss`) when it is in the
 * library `folder`; `undefined` for any other path.
 */
export function libraryFileName(fsPath: string, folder: string): string | undefined {
  const dir = path.dirname(path.resolve(fsPath));
  return dir === path.resolve(folder) ? path.basename(fsPath) : undefined;
}

/** The path in the library `folder` of the library document `/prelude.ss`. */
export function libraryFilePath(uriPath: string, folder: string): string {
  return path.join(folder, path.posix.basename(uriPath));
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The executable the `shapescript.server.path` setting names: a path (with a
 * folder in it, `~/` expanded) as it is, a bare name looked up on `PATH`.
 * `undefined` when there is no such executable.
 */
export function findServer(
  command: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: string = process.platform,
): string | undefined {
  const home = env.HOME ?? env.USERPROFILE ?? "";
  const expanded = command.startsWith("~/") ? path.join(home, command.slice(2)) : command;
  const exts = platform === "win32" ? ["", ".exe", ".cmd"] : [""];
  if (expanded.includes("/") || expanded.includes("\\")) {
    return exts.map((e) => expanded + e).find(isExecutable);
  }
  const dirs = (env.PATH ?? env.Path ?? "").split(path.delimiter).filter((d) => d !== "");
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = path.join(dir, expanded + ext);
      if (isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}
