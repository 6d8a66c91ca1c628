// The apc-tools extension: starts `apc lsp` (the language server of apc-tools) over stdio.
// Everything it shows comes from the server; this file only connects VS Code to it.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("apc").get("path", "apc");
  const serverOptions = { command, args: ["lsp"] };
  const clientOptions = {
    // every file: the server validates the agent-context files and tells which other file
    // `apc boundary` would refuse (a session, a transcript, a tool configuration's secret)
    documentSelector: [{ scheme: "file" }],
    synchronize: {
      fileEvents: vscode.workspace.createFileSystemWatcher(
        "**/{*.md,*.mdc,*.json,.gitignore,.apc-tools.yaml}"
      ),
    },
  };
  client = new LanguageClient("apc", "apc-tools", serverOptions, clientOptions);
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
