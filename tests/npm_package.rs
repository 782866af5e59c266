//! The npm packages (`npm/elicit-check`, the launcher, and one package per
//! platform under `npm/platforms/`) as a release makes them
//! (`scripts/release-archive.sh`, then `scripts/release-npm.sh ... pack`),
//! installed from the tarballs into an empty folder with `npm install
//! --offline`, as a user's `npx elicit-check` gets them: the launcher runs
//! the platform's binary (here the one this test binary was built with), and
//! without the platform package says how to build it instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{Scratch, printed, run};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `npm/platforms/`'s folder for the machine the tests run on.
pub(crate) fn this_platform() -> &'static str {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => "linux-x64",
        ("linux", "aarch64") => "linux-arm64",
        ("macos", "x86_64") => "darwin-x64",
        ("macos", "aarch64") => "darwin-arm64",
        (os, arch) => panic!("no npm platform package for {os} {arch} (npm/platforms/)"),
    }
}

/// The Rust target of each folder of `npm/platforms/`.
pub(crate) const TARGETS: [(&str, &str); 4] = [
    ("linux-x64", "x86_64-unknown-linux-gnu"),
    ("linux-arm64", "aarch64-unknown-linux-gnu"),
    ("darwin-x64", "x86_64-apple-darwin"),
    ("darwin-arm64", "aarch64-apple-darwin"),
];

/// A release's archives as `scripts/release-archive.sh` makes them, one per
/// target, each from a wheel-shaped zip (the release takes each platform's
/// binary out of its maturin wheel): this platform's holds this test's
/// binary without its debug info, the others a small script standing in for
/// theirs.
pub(crate) fn archives(scratch: &Scratch) -> PathBuf {
    let out = scratch.join("archives");
    for (platform, target) in TARGETS {
        let data = scratch.join(&format!("wheel-{target}/elicit_check-0.1.0.data"));
        std::fs::create_dir_all(data.join("scripts")).expect("wheel folder");
        let binary = data.join("scripts/elicit-check");
        if platform == this_platform() {
            std::fs::copy(env!("CARGO_BIN_EXE_elicit-check"), &binary).expect("the binary");
            // Its debug info stripped (`strip -S`, GNU and macOS alike): the
            // dev build is 278 MB with it, and zipping, archiving and packing
            // it three times took most of a packaging test's time.
            let stripped = run(Command::new("strip").arg("-S").arg(&binary));
            assert!(stripped.status.success(), "strip: {}", printed(&stripped));
        } else {
            std::fs::write(&binary, format!("#!/bin/sh\necho {target}\n")).expect("a stand-in");
        }
        let wheels = scratch.join(&format!("wheels-{target}"));
        std::fs::create_dir_all(&wheels).expect("wheels/");
        let zipped = run(Command::new("python3")
            .args(["-m", "zipfile", "-c"])
            .arg(wheels.join("elicit_check-0.1.0-py3-none-any.whl"))
            .arg(&data));
        assert!(zipped.status.success(), "zip: {}", printed(&zipped));
        let archived = run(Command::new("bash")
            .arg(Path::new(ROOT).join("scripts/release-archive.sh"))
            .arg(&wheels)
            .args([target, "v0.1.0"])
            .arg(&out));
        assert!(
            archived.status.success(),
            "release-archive.sh: {}",
            printed(&archived)
        );
    }
    out
}

/// `scripts/release-npm.sh ARCHIVES v0.1.0 pack OUT`.
fn release_npm(archives: &Path, out: &Path) -> Output {
    run(Command::new("bash")
        .arg(Path::new(ROOT).join("scripts/release-npm.sh"))
        .arg(archives)
        .args(["v0.1.0", "pack"])
        .arg(out))
}

/// An empty folder with `tarballs` installed offline.
fn installed(scratch: &Scratch, name: &str, tarballs: &[&Path]) -> PathBuf {
    let app = scratch.join(name);
    std::fs::create_dir_all(&app).expect("app folder");
    std::fs::write(app.join("package.json"), r#"{"private": true}"#).expect("package.json");
    let install = run(Command::new("npm")
        .args([
            "install",
            "--offline",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
        ])
        .args(tarballs)
        .current_dir(&app));
    assert!(
        install.status.success(),
        "npm install: {}",
        printed(&install)
    );
    app
}

fn npx(app: &Path, args: &[&str]) -> Output {
    run(Command::new("npx")
        .args(["--offline", "elicit-check"])
        .args(args)
        .current_dir(app))
}

#[test]
fn npx_elicit_check_runs_the_platform_binary_and_without_it_says_how_to_build_one() {
    let scratch = Scratch::new("npm-package");
    let archives = archives(&scratch);
    let packages = scratch.join("packages");
    let packed = release_npm(&archives, &packages);
    assert!(
        packed.status.success(),
        "release-npm.sh: {}",
        printed(&packed)
    );
    let mut tarballs: Vec<String> = std::fs::read_dir(&packages)
        .expect("the packed tarballs")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    tarballs.sort();
    assert_eq!(
        tarballs,
        [
            "elicit-check-0.1.0.tgz",
            "elicit-check-darwin-arm64-0.1.0.tgz",
            "elicit-check-darwin-x64-0.1.0.tgz",
            "elicit-check-linux-arm64-0.1.0.tgz",
            "elicit-check-linux-x64-0.1.0.tgz",
        ]
    );
    let main = packages.join("elicit-check-0.1.0.tgz");
    let platform = packages.join(format!("elicit-check-{}-0.1.0.tgz", this_platform()));

    let app = installed(&scratch, "app", &[&main, &platform]);
    let version = npx(&app, &["--version"]);
    assert!(version.status.success(), "{}", printed(&version));
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        concat!("elicit-check ", env!("CARGO_PKG_VERSION"))
    );
    // A check through the launcher: its exit code passes through (1: the
    // server acts on `confirm: false`, property 7).
    let check = |bug: Option<&str>| {
        let args = crate::peers::confirm_check(bug);
        let words: Vec<&str> = args.iter().map(String::as_str).collect();
        npx(&app, &words)
    };
    let correct = check(None);
    assert_eq!(correct.status.code(), Some(0), "{}", printed(&correct));
    let buggy = check(Some("acts-on-false"));
    assert_eq!(buggy.status.code(), Some(1), "{}", printed(&buggy));
    assert!(
        String::from_utf8_lossy(&buggy.stdout)
            .contains("acted on a valid accept that did not consent"),
        "{}",
        printed(&buggy)
    );

    // An archive that does not match its sum is never packed.
    let archive = archives.join("elicit-check-v0.1.0-aarch64-apple-darwin.tar.gz");
    let mut bytes = std::fs::read(&archive).expect("an archive");
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&archive, bytes).expect("the archive, changed");
    let refused = release_npm(&archives, &scratch.join("refused"));
    let text = printed(&refused);
    assert_eq!(refused.status.code(), Some(1), "{text}");
    assert!(
        text.contains("release-npm.sh: elicit-check-v0.1.0-aarch64-apple-darwin.tar.gz does not match its SHA-256 sum"),
        "{text}"
    );

    // Without the platform package (an install that left optional dependencies out).
    let bare = installed(&scratch, "bare", &[&main]);
    let missing = npx(&bare, &["--version"]);
    let text = printed(&missing);
    assert_eq!(missing.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!(
            "elicit-check: the package @elicit-check/{} with the binary for {} is not installed",
            this_platform(),
            this_platform()
        )),
        "{text}"
    );
    assert!(
        text.contains("cargo install --locked elicit-check"),
        "{text}"
    );
}

/// Every npm package is at the crate's version, and the launcher's
/// optional dependencies name every platform package at it.
#[test]
fn every_npm_package_is_at_the_crates_version() {
    let read = |path: PathBuf| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(&path).expect("package.json")).expect("JSON")
    };
    let version = env!("CARGO_PKG_VERSION");
    let main = read(Path::new(ROOT).join("npm/elicit-check/package.json"));
    assert_eq!(main["version"], version);
    let optional = main["optionalDependencies"]
        .as_object()
        .expect("optionalDependencies");
    let mut platforms: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("npm/platforms"))
        .expect("npm/platforms")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    platforms.sort();
    assert_eq!(
        platforms,
        ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64"]
    );
    assert_eq!(optional.len(), platforms.len());
    for platform in &platforms {
        let package = read(
            Path::new(ROOT)
                .join("npm/platforms")
                .join(platform)
                .join("package.json"),
        );
        let name = format!("@elicit-check/{platform}");
        assert_eq!(package["name"], name.as_str());
        assert_eq!(package["version"], version, "{platform}");
        assert_eq!(optional[&name], version, "{platform}");
    }
}
