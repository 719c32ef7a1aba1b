// The ShapeScript extension (docs/shapescript/editor.md): starts
// `shapescript lsp`, hands it the extension's global storage folder as
// `libraryDir`, and shows the library files the server writes there as
// read-only `shapescript-library:` documents. Every URI crosses between VS
// Code and the server in one place, the client's `uriConverters`, so every
// location the server returns into the library folder (definitions,
// references, diagnostics' related locations) opens read-only, and requests
// from those documents reach the server as the `file:` URIs it knows.

import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from "vscode-languageclient/node";

import { findServer, LIBRARY_SCHEME, libraryFileName, libraryFilePath } from "./paths";

const SERVER_PATH_SETTING = "shapescript.server.path";

/** The settings whose change restarts the server. */
const RESTARTING_SETTINGS = [
  "shapescript.server",
  "shapescript.searchPath",
  "shapescript.diagnostics",
];

/** Serves `shapescript-library:/nn.ss` from the library folder, read-only. */
class LibraryProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly folder: string) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    return fs.readFileSync(libraryFilePath(uri.path, this.folder), "utf8");
  }
}

/** The server, its output, its status bar item, and restarting it. */
class Extension {
  private client: LanguageClient | undefined;
  private readonly output = vscode.window.createOutputChannel("ShapeScript Language Server");
  private readonly trace = vscode.window.createOutputChannel("ShapeScript Language Server Trace");
  private readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 0);

  constructor(private readonly libraryDir: string) {
    this.status.name = "ShapeScript";
    this.status.command = "shapescript.showOutput";
    this.show("$(circle-slash) ShapeScript", "The ShapeScript language server is not running");
    this.status.show();
  }

  disposables(): vscode.Disposable[] {
    return [this.output, this.trace, this.status];
  }

  private show(text: string, tooltip: string, error = false): void {
    this.status.text = text;
    this.status.tooltip = `${tooltip}\n\nClick to show the server's output.`;
    this.status.backgroundColor = error
      ? new vscode.ThemeColor("statusBarItem.errorBackground")
      : undefined;
  }

  /** Starts the server; a missing or failing server is reported, never thrown. */
  async start(): Promise<void> {
    const config = vscode.workspace.getConfiguration("shapescript");
    const command = config.get<string>("server.path", "shapescript") || "shapescript";
    const executable = findServer(command);
    if (!executable) {
      this.show("$(error) ShapeScript", `\`${command}\` was not found`, true);
      this.output.appendLine(`The ShapeScript language server \`${command}\` was not found.`);
      const where = /[\\/]/.test(command) ? "is not an executable file" : "was not found on PATH";
      void this.offerSettings(
        `ShapeScript: the language server \`${command}\` ${where}. ` +
          `Install it (\`cargo install --path crates/shapescript\`) or set ` +
          `\`${SERVER_PATH_SETTING}\` to the \`shapescript\` executable.`,
      );
      return;
    }
    this.show("$(sync~spin) ShapeScript", `Starting \`${executable} lsp\``);
    const client = new LanguageClient(
      "shapescript",
      "ShapeScript Language Server",
      { command: executable, args: ["lsp"] } satisfies ServerOptions,
      this.clientOptions(config),
    );
    client.onDidChangeState((event) => this.onState(client, event.newState));
    this.client = client;
    try {
      await client.start();
      this.onState(client, State.Running);
    } catch (error) {
      this.show("$(error) ShapeScript", `\`${executable} lsp\` failed to start`, true);
      this.output.appendLine(`\`${executable} lsp\` failed to start: ${String(error)}`);
      void this.offerSettings(
        `ShapeScript: \`${executable} lsp\` failed to start (${String(error)}). ` +
          `Check \`${SERVER_PATH_SETTING}\`: it must name the \`shapescript\` executable.`,
      );
    }
  }

  private onState(client: LanguageClient, state: State): void {
    if (client !== this.client) {
      return;
    }
    if (state === State.Running) {
      const info = client.initializeResult?.serverInfo;
      const version = info?.version ? ` ${info.version}` : "";
      this.show(`$(check) ShapeScript${version}`, `${info?.name ?? "shapescript"}${version} is running`);
    } else if (state === State.Starting) {
      this.show("$(sync~spin) ShapeScript", "The ShapeScript language server is starting");
    } else {
      this.show("$(error) ShapeScript", "The ShapeScript language server stopped", true);
    }
  }

  private async offerSettings(message: string): Promise<void> {
    const open = "Open Settings";
    const choice = await vscode.window.showErrorMessage(message, open);
    if (choice === open) {
      await vscode.commands.executeCommand("workbench.action.openSettings", SERVER_PATH_SETTING);
    }
  }

  private clientOptions(config: vscode.WorkspaceConfiguration): LanguageClientOptions {
    const libraryDir = this.libraryDir;
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const searchPath = config
      .get<string[]>("searchPath", [])
      .map((dir) => (root && !path.isAbsolute(dir) ? path.join(root, dir) : dir));
    return {
      documentSelector: [
        { scheme: "file", language: "shapescript" },
        { scheme: LIBRARY_SCHEME, language: "shapescript" },
      ],
      initializationOptions: {
        libraryDir,
        searchPath,
        diagnosticsDelayMs: config.get<number>("diagnostics.delayMs", 10),
      },
      outputChannel: this.output,
      traceOutputChannel: this.trace,
      uriConverters: {
        // A library document is the server's file in the library folder...
        code2Protocol: (uri: vscode.Uri): string =>
          uri.scheme === LIBRARY_SCHEME
            ? vscode.Uri.file(libraryFilePath(uri.path, libraryDir)).toString()
            : uri.toString(),
        // ... and every file the server names there is a library document.
        protocol2Code: (value: string): vscode.Uri => {
          const uri = vscode.Uri.parse(value);
          const name = uri.scheme === "file" ? libraryFileName(uri.fsPath, libraryDir) : undefined;
          return name === undefined ? uri : vscode.Uri.from({ scheme: LIBRARY_SCHEME, path: "/" + name });
        },
      },
    };
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop();
      } catch (error) {
        this.output.appendLine(`stopping the server: ${String(error)}`);
      }
      await client.dispose();
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  showOutput(): void {
    this.output.show(true);
  }
}

let extension: Extension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const libraryDir = context.globalStorageUri.fsPath;
  fs.mkdirSync(libraryDir, { recursive: true });
  const ext = new Extension(libraryDir);
  extension = ext;
  context.subscriptions.push(
    ...ext.disposables(),
    vscode.workspace.registerTextDocumentContentProvider(LIBRARY_SCHEME, new LibraryProvider(libraryDir)),
    vscode.commands.registerCommand("shapescript.restartServer", () => ext.restart()),
    vscode.commands.registerCommand("shapescript.showOutput", () => ext.showOutput()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (RESTARTING_SETTINGS.some((s) => event.affectsConfiguration(s))) {
        void ext.restart();
      }
    }),
  );
  await ext.start();
}

export async function deactivate(): Promise<void> {
  await extension?.stop();
  extension = undefined;
}
