// The extension of both languages (docs/shapescript/editor.md,
// docs/sexpgpu/editor.md): for each, starts its server (`shapescript lsp`,
// `sexpgpu lsp`), hands it a folder of the extension's global storage as
// `libraryDir`, and shows the library files the server writes there as
// read-only `shapescript-library:` or `sexpgpu-library:` documents. Every
// URI crosses between VS Code and a server in one place, the client's
// `uriConverters`, so every location a server returns into its library
// folder (definitions, references, diagnostics' related locations) opens
// read-only, and requests from those documents reach the server as the
// `file:` URIs it knows. The SexpGPU server evaluates host code only in a
// trusted workspace, and restarts with evaluation when trust is granted.

import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from "vscode-languageclient/node";

import {
  findServer,
  LIBRARY_SCHEME,
  libraryFileName,
  libraryFilePath,
  SEXPGPU_LIBRARY_SCHEME,
} from "./paths";

/** What differs between the two languages' servers. */
interface Language {
  /** The language id and the settings' and commands' prefix: `shapescript`. */
  id: string;
  /** As users read it: `ShapeScript`. */
  name: string;
  /** The library documents' scheme. */
  scheme: string;
  /** The crate `cargo install --path` takes, for the missing-server message. */
  crate: string;
  /** The settings whose change restarts the server. */
  restartingSettings: string[];
  /** The server's `initializationOptions` besides `libraryDir`. */
  options(config: vscode.WorkspaceConfiguration): Record<string, unknown>;
}

const SHAPESCRIPT: Language = {
  id: "shapescript",
  name: "ShapeScript",
  scheme: LIBRARY_SCHEME,
  crate: "crates/shapescript",
  restartingSettings: ["shapescript.server", "shapescript.searchPath", "shapescript.diagnostics"],
  options(config) {
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const searchPath = config
      .get<string[]>("searchPath", [])
      .map((dir) => (root && !path.isAbsolute(dir) ? path.join(root, dir) : dir));
    return { searchPath, diagnosticsDelayMs: config.get<number>("diagnostics.delayMs", 10) };
  },
};

const SEXPGPU: Language = {
  id: "sexpgpu",
  name: "SexpGPU",
  scheme: SEXPGPU_LIBRARY_SCHEME,
  crate: "crates/sexpgpu",
  restartingSettings: ["sexpgpu.server", "sexpgpu.evaluation", "sexpgpu.inlayHints", "sexpgpu.diagnostics"],
  options(config) {
    return {
      // No host code of an untrusted folder runs (docs/sexpgpu/editor.md, "Safe to open").
      evaluate: vscode.workspace.isTrusted,
      budgetMs: config.get<number>("evaluation.budgetMs", 2000),
      inlayHints: config.get<boolean>("inlayHints.shapes", true),
      diagnosticsDelayMs: config.get<number>("diagnostics.delayMs", 10),
    };
  },
};

/** Serves `<scheme>:/nn.ss` from the library folder, read-only. */
class LibraryProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly folder: string) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    return fs.readFileSync(libraryFilePath(uri.path, this.folder), "utf8");
  }
}

/**
 * One language's server, its output, its status bar item, and restarting it.
 * It starts when the first document of its language opens, so that a user of
 * one language never hears of the other's missing server.
 */
class Server {
  private client: LanguageClient | undefined;
  private wanted = false;
  private readonly output: vscode.OutputChannel;
  private readonly trace: vscode.OutputChannel;
  private readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 0);

  constructor(
    private readonly language: Language,
    private readonly libraryDir: string,
  ) {
    this.output = vscode.window.createOutputChannel(`${language.name} Language Server`);
    this.trace = vscode.window.createOutputChannel(`${language.name} Language Server Trace`);
    this.status.name = language.name;
    this.status.command = `${language.id}.showOutput`;
    this.show("$(circle-slash)", `The ${language.name} language server is not running`);
    this.status.show();
  }

  disposables(): vscode.Disposable[] {
    return [this.output, this.trace, this.status];
  }

  private show(icon: string, tooltip: string, error = false, version = ""): void {
    this.status.text = `${icon} ${this.language.name}${version}`;
    this.status.tooltip = `${tooltip}\n\nClick to show the server's output.`;
    this.status.backgroundColor = error
      ? new vscode.ThemeColor("statusBarItem.errorBackground")
      : undefined;
  }

  private get setting(): string {
    return `${this.language.id}.server.path`;
  }

  /** Starts the server; a missing or failing server is reported, never thrown. */
  async start(): Promise<void> {
    const { id, name } = this.language;
    const config = vscode.workspace.getConfiguration(id);
    const command = config.get<string>("server.path", id) || id;
    const executable = findServer(command);
    if (!executable) {
      this.show("$(error)", `\`${command}\` was not found`, true);
      this.output.appendLine(`The ${name} language server \`${command}\` was not found.`);
      const where = /[\\/]/.test(command) ? "is not an executable file" : "was not found on PATH";
      void this.offerSettings(
        `${name}: the language server \`${command}\` ${where}. ` +
          `Install it (\`cargo install --path ${this.language.crate}\`) or set ` +
          `\`${this.setting}\` to the \`${id}\` executable.`,
      );
      return;
    }
    this.show("$(sync~spin)", `Starting \`${executable} lsp\``);
    const client = new LanguageClient(
      id,
      `${name} Language Server`,
      { command: executable, args: ["lsp"] } satisfies ServerOptions,
      this.clientOptions(config),
    );
    client.onDidChangeState((event) => this.onState(client, event.newState));
    this.client = client;
    try {
      await client.start();
      this.onState(client, State.Running);
    } catch (error) {
      this.show("$(error)", `\`${executable} lsp\` failed to start`, true);
      this.output.appendLine(`\`${executable} lsp\` failed to start: ${String(error)}`);
      void this.offerSettings(
        `${name}: \`${executable} lsp\` failed to start (${String(error)}). ` +
          `Check \`${this.setting}\`: it must name the \`${id}\` executable.`,
      );
    }
  }

  private onState(client: LanguageClient, state: State): void {
    if (client !== this.client) {
      return;
    }
    const name = this.language.name;
    if (state === State.Running) {
      const info = client.initializeResult?.serverInfo;
      const version = info?.version ? ` ${info.version}` : "";
      this.show("$(check)", `${info?.name ?? this.language.id}${version} is running`, false, version);
    } else if (state === State.Starting) {
      this.show("$(sync~spin)", `The ${name} language server is starting`);
    } else {
      this.show("$(error)", `The ${name} language server stopped`, true);
    }
  }

  private async offerSettings(message: string): Promise<void> {
    const open = "Open Settings";
    const choice = await vscode.window.showErrorMessage(message, open);
    if (choice === open) {
      await vscode.commands.executeCommand("workbench.action.openSettings", this.setting);
    }
  }

  private clientOptions(config: vscode.WorkspaceConfiguration): LanguageClientOptions {
    const { id, scheme } = this.language;
    const libraryDir = this.libraryDir;
    return {
      documentSelector: [
        { scheme: "file", language: id },
        { scheme, language: id },
      ],
      initializationOptions: { libraryDir, ...this.language.options(config) },
      outputChannel: this.output,
      traceOutputChannel: this.trace,
      uriConverters: {
        // A library document is the server's file in the library folder...
        code2Protocol: (uri: vscode.Uri): string =>
          uri.scheme === scheme
            ? vscode.Uri.file(libraryFilePath(uri.path, libraryDir)).toString()
            : uri.toString(),
        // ... and every file the server names there is a library document.
        protocol2Code: (value: string): vscode.Uri => {
          const uri = vscode.Uri.parse(value);
          const name = uri.scheme === "file" ? libraryFileName(uri.fsPath, libraryDir) : undefined;
          return name === undefined ? uri : vscode.Uri.from({ scheme, path: "/" + name });
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

  /** Starts the server, once, if `document` is of its language. */
  async startFor(document: vscode.TextDocument): Promise<void> {
    if (this.wanted || document.languageId !== this.language.id) {
      return;
    }
    this.wanted = true;
    await this.start();
  }

  /** Restarts the server if it was started. */
  async restartIfWanted(): Promise<void> {
    if (this.wanted) {
      await this.restart();
    }
  }

  showOutput(): void {
    this.output.show(true);
  }

  /** What this server registers: its library documents, commands and settings. */
  register(): vscode.Disposable[] {
    const { id, scheme, restartingSettings } = this.language;
    return [
      ...this.disposables(),
      vscode.workspace.registerTextDocumentContentProvider(scheme, new LibraryProvider(this.libraryDir)),
      vscode.commands.registerCommand(`${id}.restartServer`, () => this.restart()),
      vscode.commands.registerCommand(`${id}.showOutput`, () => this.showOutput()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (restartingSettings.some((s) => event.affectsConfiguration(s))) {
          void this.restartIfWanted();
        }
      }),
    ];
  }
}

let servers: Server[] = [];

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const storage = context.globalStorageUri.fsPath;
  // ShapeScript's library files stay where earlier versions put them.
  const shapescript = new Server(SHAPESCRIPT, storage);
  const sexpgpuLibrary = path.join(storage, "sexpgpu");
  const sexpgpu = new Server(SEXPGPU, sexpgpuLibrary);
  fs.mkdirSync(sexpgpuLibrary, { recursive: true });
  servers = [shapescript, sexpgpu];
  const startFor = (document: vscode.TextDocument) => Promise.all(servers.map((s) => s.startFor(document)));
  context.subscriptions.push(
    ...shapescript.register(),
    ...sexpgpu.register(),
    vscode.workspace.onDidOpenTextDocument((document) => void startFor(document)),
    // Trust granted: the SexpGPU server may now evaluate host code.
    vscode.workspace.onDidGrantWorkspaceTrust(() => sexpgpu.restartIfWanted()),
  );
  await Promise.all(vscode.workspace.textDocuments.map(startFor));
}

export async function deactivate(): Promise<void> {
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
}
