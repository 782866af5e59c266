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

/// Refuses a report path (`--junit PATH`) that cannot be written, before
/// anything runs: its folder does not exist, or the path is a folder. A check
/// that runs for minutes must not end in "cannot write" with its report lost.
pub(crate) fn report_file_can_be_written(
    option: &str,
    path: &std::path::Path,
) -> anyhow::Result<()> {
    if path.is_dir() {
        anyhow::bail!(
            "{option} {} is a folder, not a file: give a file path",
            path.display()
        );
    }
    let folder = match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => std::path::Path::new("."),
    };
    if !folder.is_dir() {
        anyhow::bail!(
            "{option} {}: the folder {} does not exist: give a path in an existing folder",
            path.display(),
            folder.display()
        );
    }
    Ok(())
}
