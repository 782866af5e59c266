//! The release workflow (`.github/workflows/release.yml`) and the Action
//! (`action.yml`) pass action-validator (their SchemaStore schemas, `needs`
//! that name existing jobs), which rejects a broken copy; the build matrix
//! names every release target with its npm platform package.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::peers::environments;
use crate::support::{Scratch, printed};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// action-validator's verdict on a workflow or action file (the pinned one of
/// `scripts/workflow-lint`, set up with the SDK peers).
pub(crate) fn validate(file: &Path) -> Output {
    Command::new(environments().join("workflow-lint/node_modules/.bin/action-validator"))
        .arg(file)
        .output()
        .expect("action-validator starts")
}

fn release_yml() -> PathBuf {
    Path::new(ROOT).join(".github/workflows/release.yml")
}

#[test]
fn the_release_workflow_and_the_action_pass_action_validator_and_a_broken_copy_does_not() {
    for file in [release_yml(), Path::new(ROOT).join("action.yml")] {
        let checked = validate(&file);
        assert!(
            checked.status.success(),
            "{}: {}",
            file.display(),
            printed(&checked)
        );
    }
    let scratch = Scratch::new("release-workflow");
    let text = std::fs::read_to_string(release_yml()).expect("release.yml");
    assert!(text.contains("    needs: build\n"));
    let broken = scratch.join("release.yml");
    std::fs::write(
        &broken,
        text.replacen("    needs: build\n", "    needs: bild\n", 1),
    )
    .expect("the broken copy");
    let refused = validate(&broken);
    let said = printed(&refused);
    assert_eq!(refused.status.code(), Some(1), "{said}");
    assert!(said.contains("unresolved job bild"), "{said}");
}

/// Each release target with its `npm/platforms/` folder, as
/// `scripts/release-npm.sh` pairs them.
#[test]
fn the_build_matrix_names_every_release_target_with_its_npm_platform() {
    let text = std::fs::read_to_string(release_yml()).expect("release.yml");
    let matrix: Vec<(&str, &str)> = text
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- target: "))
        .zip(
            text.lines()
                .filter_map(|line| line.trim().strip_prefix("npm: ")),
        )
        .collect();
    assert_eq!(
        matrix,
        [
            ("x86_64-unknown-linux-gnu", "linux-x64"),
            ("aarch64-unknown-linux-gnu", "linux-arm64"),
            ("x86_64-apple-darwin", "darwin-x64"),
            ("aarch64-apple-darwin", "darwin-arm64"),
        ]
    );
    let script = std::fs::read_to_string(Path::new(ROOT).join("scripts/release-npm.sh"))
        .expect("release-npm.sh");
    for (target, platform) in matrix {
        assert!(
            script.contains(&format!("[{platform}]={target}")),
            "release-npm.sh pairs {platform} with {target}"
        );
        assert!(
            Path::new(ROOT)
                .join("npm/platforms")
                .join(platform)
                .join("package.json")
                .is_file(),
            "npm/platforms/{platform}"
        );
    }
}
