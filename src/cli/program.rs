//! Checks made before anything is written: the server's program can be
//! started, and `--output` is a folder.

use std::path::PathBuf;

/// Refuses an `--output` path that exists and is no folder (a file), before
/// anything is written.
pub(crate) fn output_is_a_folder(dir: &std::path::Path) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        anyhow::bail!(
            "--output {} is a file, not a folder: give a folder for the evidence",
            dir.display()
        );
    }
    Ok(())
}

/// Checks that the server's program can be started before anything is
/// written: a path must name a regular file with an execute bit, a bare name
/// must be such a file in a folder of `PATH` (looked up with the `which` crate,
/// as `execvp` does). Each
/// refusal says why: not found, a directory, not executable.
pub(crate) fn check_program(program: &str) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let quoted = crate::error::shell_words(&[program.to_owned()]);
    let executable = |metadata: &std::fs::Metadata| {
        metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
    };
    if program.contains('/') {
        return match std::fs::metadata(program) {
            Err(_) => anyhow::bail!("cannot start server: {quoted} not found"),
            Ok(metadata) if metadata.is_dir() => {
                anyhow::bail!("cannot start server: {quoted} is a directory, not a program")
            }
            Ok(metadata) if !metadata.is_file() => {
                anyhow::bail!("cannot start server: {quoted} is not a regular file")
            }
            Ok(metadata) if !executable(&metadata) => {
                anyhow::bail!("cannot start server: {quoted} is not executable")
            }
            Ok(_) => Ok(()),
        };
    }
    if which::which(program).is_ok() {
        return Ok(());
    }
    // Not found as a program: say so, naming a file of that name on PATH that
    // lacks the execute bit, if there is one.
    let candidates: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(program))
                .collect()
        })
        .unwrap_or_default();
    match candidates
        .iter()
        .find(|candidate| std::fs::metadata(candidate).is_ok_and(|m| m.is_file()))
    {
        Some(file) => anyhow::bail!(
            "cannot start server: {quoted} not found on PATH ({} is not executable)",
            file.display()
        ),
        None => anyhow::bail!("cannot start server: {quoted} not found on PATH"),
    }
}
