//! The Python package (`pyproject.toml`, maturin's binary bindings): `maturin
//! build` makes a wheel holding the binary, and installing it into a fresh
//! venv puts `elicit-check` on that venv's PATH, where `--version` and a
//! `check` run, as `pip install elicit-check` (or `uvx`, `pipx run`) gives it;
//! the release archive taken out of it (`scripts/release-archive.sh`) holds
//! the same binary and its SHA-256 sum checks.
//! The wheel is built with the dev profile, without debug info and stripped,
//! in `target/maturin` (the release workflow builds it with `--release`).

use std::path::Path;
use std::process::Command;

use crate::peers::environments;
use crate::support::{Scratch, printed, run};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn the_wheel_maturin_builds_puts_elicit_check_on_a_fresh_venvs_path() {
    let scratch = Scratch::new("python-package");
    let wheels = scratch.join("wheels");
    let built = run(Command::new(environments().join("maturin/bin/maturin"))
        .args(["build", "--profile", "dev", "--locked", "--out"])
        .arg(&wheels)
        // A target folder of its own: maturin builds with flags of its own,
        // and rebuilding in `target/debug` would replace the binary the
        // other tests are running.
        .env("CARGO_TARGET_DIR", Path::new(ROOT).join("target/maturin"))
        // Without debug info, stripped: the dev profile's binary is 278 MB
        // with it, and zipping, installing and archiving it took most of
        // this test's time; the binary's behaviour is the same.
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env("CARGO_PROFILE_DEV_STRIP", "true")
        .current_dir(ROOT));
    assert!(built.status.success(), "maturin build: {}", printed(&built));
    let wheel: Vec<_> = std::fs::read_dir(&wheels)
        .expect("the wheel folder")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    assert_eq!(wheel.len(), 1, "one wheel: {wheel:?}");
    let name = wheel[0]
        .file_name()
        .expect("a name")
        .to_string_lossy()
        .into_owned();
    assert!(
        name.starts_with(&format!(
            "elicit_check-{}-py3-none-",
            env!("CARGO_PKG_VERSION")
        )),
        "{name}"
    );

    // The release archive is that wheel's binary, with its SHA-256 sum.
    let archives = scratch.join("archives");
    let archived = run(Command::new("bash")
        .arg(Path::new(ROOT).join("scripts/release-archive.sh"))
        .arg(&wheels)
        .args(["x86_64-unknown-linux-gnu", "v0.1.0"])
        .arg(&archives));
    assert!(
        archived.status.success(),
        "release-archive.sh: {}",
        printed(&archived)
    );
    let name = "elicit-check-v0.1.0-x86_64-unknown-linux-gnu";
    let summed = run(Command::new("sha256sum")
        .args(["-c", &format!("{name}.tar.gz.sha256")])
        .current_dir(&archives));
    assert!(
        summed.status.success(),
        "sha256sum -c: {}",
        printed(&summed)
    );
    let unpacked = run(Command::new("tar")
        .args(["-xzf", &format!("{name}.tar.gz")])
        .current_dir(&archives));
    assert!(unpacked.status.success(), "tar: {}", printed(&unpacked));
    let version = run(Command::new(archives.join(name).join("elicit-check")).arg("--version"));
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        concat!("elicit-check ", env!("CARGO_PKG_VERSION")),
        "{}",
        printed(&version)
    );
    for file in ["README.md", "LICENSE"] {
        assert!(archives.join(name).join(file).is_file(), "{file}");
    }

    let venv = scratch.join("venv");
    let created = run(Command::new("python3").args(["-m", "venv"]).arg(&venv));
    assert!(created.status.success(), "venv: {}", printed(&created));
    let installed = run(Command::new(venv.join("bin/python"))
        .args([
            "-m",
            "pip",
            "install",
            "--no-index",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .arg(&wheel[0]));
    assert!(
        installed.status.success(),
        "pip install: {}",
        printed(&installed)
    );

    // On the venv's PATH, as an activated venv or `uvx` puts it.
    let path = format!(
        "{}:{}",
        venv.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let version = run(Command::new("elicit-check")
        .arg("--version")
        .env("PATH", &path));
    assert!(version.status.success(), "{}", printed(&version));
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        concat!("elicit-check ", env!("CARGO_PKG_VERSION"))
    );
    let check = run(Command::new("elicit-check")
        .args(crate::peers::confirm_check(Some("acts-on-false")))
        .env("PATH", &path));
    assert_eq!(check.status.code(), Some(1), "{}", printed(&check));
    assert!(
        String::from_utf8_lossy(&check.stdout)
            .contains("acted on a valid accept that did not consent"),
        "{}",
        printed(&check)
    );
}
