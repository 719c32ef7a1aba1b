// The ShapeScript extension: starts `shapescript lsp`, hands it the
// extension's global storage folder as `libraryDir` (docs/shapescript/editor.md), and shows the
// library files the server writes there as read-only documents of the
// `shapescript-library:` scheme, so go to definition on a prelude stub opens
// a file the user can read but not edit.

import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from "vscode-languageclient/node";

const LIBRARY_SCHEME = "shapescript-library";

let client: LanguageClient | undefined;

/** Serves `shapescript-library:/nn.ss` from the library folder, read-only. */
class LibraryProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly folder: string) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    const name = path.basename(uri.path);
    return fs.readFileSync(path.join(this.folder, name), "utf8");
  }
}

/** Whether a `file:` URI points into the library folder. */
function inLibrary(uri: vscode.Uri, folder: string): boolean {
  return uri.scheme === "file" && path.dirname(uri.fsPath) === folder;
}

function toLibraryUri(uri: vscode.Uri): vscode.Uri {
  return vscode.Uri.from({ scheme: LIBRARY_SCHEME, path: "/" + path.basename(uri.fsPath) });
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const libraryDir = context.globalStorageUri.fsPath;
  fs.mkdirSync(libraryDir, { recursive: true });
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(LIBRARY_SCHEME, new LibraryProvider(libraryDir)),
  );

  const command = vscode.workspace.getConfiguration("shapescript").get<string>("server.path", "shapescript");
  const serverOptions: ServerOptions = { command, args: ["lsp"] };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "shapescript" }],
    initializationOptions: { libraryDir },
    middleware: {
      // Locations in the library folder open as read-only library documents.
      provideDefinition: async (document, position, token, next) => {
        const result = await next(document, position, token);
        if (!result) {
          return result;
        }
        const list = Array.isArray(result) ? result : [result];
        return list.map((item) => {
          if (item instanceof vscode.Location && inLibrary(item.uri, libraryDir)) {
            return new vscode.Location(toLibraryUri(item.uri), item.range);
          }
          return item;
        }) as vscode.Location[];
      },
    },
  };
  client = new LanguageClient("shapescript", "ShapeScript", serverOptions, clientOptions);
  await client.start();
}

export async function deactivate(): Promise<void> {
  if (client) {
    await client.stop();
  }
}
