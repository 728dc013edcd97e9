// The client: starts `hilbert lsp` over standard input and output for .ha, .hk and .hb files,
// and passes it the `hilbert.*` settings. Everything else (diagnostics, hover, navigation,
// completion) is the server's.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function settings() {
  const c = vscode.workspace.getConfiguration('hilbert');
  return {
    smtTimeoutMs: c.get('smtTimeoutMs'),
    smtBudgetMs: c.get('smtBudgetMs'),
    theoremsOnSave: c.get('theoremsOnSave'),
    theoremMaxStates: c.get('theoremMaxStates'),
    projects: c.get('projects'),
  };
}

async function activate(context) {
  const command = vscode.workspace.getConfiguration('hilbert').get('server.path') || 'hilbert';
  // No `transport`: the server speaks on standard input and output, and takes no `--stdio`.
  const serverOptions = { command, args: ['lsp'] };
  const clientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'hilbert-agent' },
      { scheme: 'file', language: 'hilbert-plans' },
      { scheme: 'file', language: 'hilbert-values' },
    ],
    initializationOptions: settings(),
    synchronize: {
      // Settings changes reach the server as `workspace/didChangeConfiguration`, and changes
      // to files not open (another tool's edits, a checkout) as `didChangeWatchedFiles`.
      configurationSection: 'hilbert',
      fileEvents: vscode.workspace.createFileSystemWatcher('**/*.{ha,hk,hb}'),
    },
  };
  client = new LanguageClient('hilbert', 'Hilbert', serverOptions, clientOptions);
  context.subscriptions.push(
    vscode.commands.registerCommand('hilbert.restartServer', async () => {
      if (client) {
        await client.restart();
      }
    }),
  );
  try {
    await client.start();
  } catch (e) {
    vscode.window.showErrorMessage(
      `Hilbert: could not start \`${command} lsp\` (${e.message || e}). ` +
        'Install the hilbert command, or set hilbert.server.path to it.',
    );
  }
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
