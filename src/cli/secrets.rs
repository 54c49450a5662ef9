//! The serving commands' secret flags (`--sensitive-value`, `--keep-secrets`),
//! shared by environment-serve, -state, -model and -check, turned into the
//! `rea_core::secrets::SecretPolicy` the start-up applies.

use rea_core::secrets::SecretPolicy;

/// How recorded secrets are served (see docs/secrets.md).
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct SecretArgs {
    /// A literal to pseudonymise wherever it appears in the capture
    /// (repeatable), besides the values of well-known secret members.
    #[arg(long = "sensitive-value", value_name = "VALUE")]
    pub sensitive_values: Vec<String>,
    /// Serve recorded secrets as recorded (no pseudonymisation).
    #[arg(long)]
    pub keep_secrets: bool,
}

impl SecretArgs {
    pub(crate) fn policy(&self) -> SecretPolicy {
        SecretPolicy {
            keep: self.keep_secrets,
            sensitive_values: self
                .sensitive_values
                .iter()
                .filter(|v| !v.is_empty())
                .cloned()
                .collect(),
        }
    }
}
