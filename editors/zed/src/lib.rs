//! The Zed extension of apc-tools: Zed asks it for the command of the `apc` language server
//! (extension.toml) and starts that command over stdio. The command is the binary the user's
//! `lsp.apc.binary` setting names (with its `arguments`), else `apc lsp` with the `apc` found on
//! the worktree's PATH (`pip install "apc-tools[lsp]"`).

use zed_extension_api::{self as zed, settings::LspSettings, LanguageServerId, Result};

struct ApcExtension;

impl zed::Extension for ApcExtension {
    fn new() -> Self {
        ApcExtension
    }

    fn language_server_command(
        &mut self,
        language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<zed::Command> {
        let binary = LspSettings::for_worktree(language_server_id.as_ref(), worktree)
            .ok()
            .and_then(|settings| settings.binary);
        let command = binary
            .as_ref()
            .and_then(|binary| binary.path.clone())
            .or_else(|| worktree.which("apc"))
            .ok_or_else(|| {
                "apc is not on PATH: install it with pip install \"apc-tools[lsp]\"".to_string()
            })?;
        let args = binary
            .and_then(|binary| binary.arguments)
            .unwrap_or_else(|| vec!["lsp".to_string()]);
        Ok(zed::Command {
            command,
            args,
            env: worktree.shell_env(),
        })
    }
}

zed::register_extension!(ApcExtension);
