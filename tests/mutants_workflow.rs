//! The full mutation run's workflow (`.github/workflows/mutants.yml`) passes
//! action-validator and a broken copy does not; its matrix runs every shard of
//! the count it passes to `scripts/mutants-shard.sh`; and
//! `scripts/mutants-join.sh` sums hand-made shard outputs and fails on a
//! missed mutant or a timeout.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::release_workflow::validate;
use crate::support::{Scratch, printed};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn mutants_yml() -> PathBuf {
    Path::new(ROOT).join(".github/workflows/mutants.yml")
}

fn script(name: &str, args: &[&Path]) -> Output {
    Command::new("bash")
        .arg(Path::new(ROOT).join("scripts").join(name))
        .args(args)
        .output()
        .expect("bash starts")
}

/// A shard's output as `cargo mutants --output DIR` leaves it:
/// `DIR/mutants.out/<outcome>.txt`, one mutant a line.
fn shard(scratch: &Scratch, name: &str, lists: &[(&str, &[&str])]) -> PathBuf {
    let dir = scratch.join(name);
    let out = dir.join("mutants.out");
    std::fs::create_dir_all(&out).expect("mutants.out");
    for (outcome, mutants) in lists {
        let text: String = mutants.iter().map(|line| format!("{line}\n")).collect();
        std::fs::write(out.join(format!("{outcome}.txt")), text).expect("a list");
    }
    dir
}

#[test]
fn the_mutants_workflow_passes_action_validator_and_a_broken_copy_does_not() {
    let checked = validate(&mutants_yml());
    assert!(checked.status.success(), "{}", printed(&checked));
    let text = std::fs::read_to_string(mutants_yml()).expect("mutants.yml");
    assert!(text.contains("    needs: shard\n"));
    let scratch = Scratch::new("mutants-workflow");
    let broken = scratch.join("mutants.yml");
    std::fs::write(
        &broken,
        text.replacen("    needs: shard\n", "    needs: shards\n", 1),
    )
    .expect("the broken copy");
    let refused = validate(&broken);
    let said = printed(&refused);
    assert_eq!(refused.status.code(), Some(1), "{said}");
    assert!(said.contains("unresolved job shards"), "{said}");
}

/// The matrix lists shards 1 to SHARDS, the count the shard script and the
/// join are given: 32 (the workflow's comment: 2,279 mutants at 19 s each,
/// 22.5 minutes a shard).
#[test]
fn the_matrix_runs_every_shard_of_the_count_the_script_is_given() {
    let text = std::fs::read_to_string(mutants_yml()).expect("mutants.yml");
    let shards: usize = text
        .lines()
        .find_map(|line| line.strip_prefix("  SHARDS: "))
        .expect("env SHARDS")
        .parse()
        .expect("a number");
    assert_eq!(shards, 32);
    let matrix: Vec<usize> = text
        .lines()
        .find_map(|line| line.trim().strip_prefix("shard: ["))
        .and_then(|list| list.strip_suffix(']'))
        .expect("the matrix's shard list")
        .split(", ")
        .map(|shard| shard.parse().expect("a shard number"))
        .collect();
    assert_eq!(matrix, (1..=shards).collect::<Vec<_>>());
    assert!(text.contains(r#"run: bash scripts/mutants-shard.sh "$SHARD" "$SHARDS""#));
    assert!(text.contains("SHARD: ${{ matrix.shard }}"));
    assert!(text.contains(r#"for shard in $(seq 1 "$SHARDS"); do"#));
    assert!(text.contains("bash scripts/mutants-join.sh "));
}

#[test]
fn the_join_sums_the_shards_and_fails_on_a_missed_mutant_or_a_timeout() {
    let scratch = Scratch::new("mutants-join");
    let missed = "src/fix/flaw.rs:170:49: replace || with && in drifts";
    let timed_out = "src/harness/rounds.rs:40:9: replace last_reply -> Option<&Value> with None";
    let first = shard(
        &scratch,
        "mutants-shard-1-of-2",
        &[
            ("caught", &["a", "b", "c"]),
            ("missed", &[]),
            ("unviable", &["d"]),
            ("timeout", &[]),
        ],
    );
    let second = shard(
        &scratch,
        "mutants-shard-2-of-2",
        &[("caught", &["e", "f"]), ("missed", &[missed])],
    );
    let joined = script("mutants-join.sh", &[&first, &second]);
    let said = printed(&joined);
    assert_eq!(joined.status.code(), Some(1), "{said}");
    let stdout = String::from_utf8_lossy(&joined.stdout);
    assert!(
        stdout.contains(&format!(
            "{}: caught 3 missed 0 unviable 1 timeout 0\n",
            first.display()
        )),
        "{said}"
    );
    assert!(
        stdout.contains("total over 2 shards: caught 5, missed 1, unviable 1, timeout 0\n"),
        "{said}"
    );
    assert!(
        stdout.ends_with(&format!("-- missed:\n{missed}\n")),
        "{said}"
    );

    // A timeout alone fails too; an artifact holds mutants.out's files only.
    let artifact = scratch.join("artifact");
    std::fs::create_dir(&artifact).expect("artifact");
    std::fs::write(artifact.join("caught.txt"), "g\n").expect("caught");
    std::fs::write(artifact.join("timeout.txt"), format!("{timed_out}\n")).expect("timeout");
    let joined = script("mutants-join.sh", &[&first, &artifact]);
    let said = printed(&joined);
    assert_eq!(joined.status.code(), Some(1), "{said}");
    assert!(
        String::from_utf8_lossy(&joined.stdout).ends_with(&format!(
            "total over 2 shards: caught 4, missed 0, unviable 1, timeout 1\n-- timeout:\n{timed_out}\n"
        )),
        "{said}"
    );
}

#[test]
fn the_join_of_clean_shards_passes_with_their_sums_and_a_shard_without_output_fails() {
    let scratch = Scratch::new("mutants-join-clean");
    let first = shard(
        &scratch,
        "mutants-shard-1-of-3",
        &[("caught", &["a", "b"]), ("unviable", &["c", "d", "e"])],
    );
    let second = shard(
        &scratch,
        "mutants-shard-2-of-3",
        &[
            ("caught", &["f", "g", "h", "i"]),
            ("missed", &[]),
            ("timeout", &[]),
        ],
    );
    let third = shard(&scratch, "mutants-shard-3-of-3", &[("unviable", &["j"])]);
    let joined = script("mutants-join.sh", &[&first, &second, &third]);
    let said = printed(&joined);
    assert_eq!(joined.status.code(), Some(0), "{said}");
    assert!(
        String::from_utf8_lossy(&joined.stdout)
            .ends_with("total over 3 shards: caught 6, missed 0, unviable 4, timeout 0\n"),
        "{said}"
    );
    // A shard that never ran left no mutants.out: the join cannot pass.
    let never_ran = scratch.join("mutants-shard-4-of-4");
    let joined = script("mutants-join.sh", &[&first, &never_ran]);
    let said = printed(&joined);
    assert_eq!(joined.status.code(), Some(2), "{said}");
    assert!(said.contains("no cargo-mutants output in"), "{said}");
}

#[test]
fn the_shard_script_refuses_a_shard_outside_1_to_n() {
    for args in [&["0", "4"][..], &["5", "4"], &["1"], &["x", "4"]] {
        let refused = Command::new("bash")
            .arg(Path::new(ROOT).join("scripts/mutants-shard.sh"))
            .args(args)
            .output()
            .expect("bash starts");
        let said = printed(&refused);
        assert_eq!(refused.status.code(), Some(1), "{args:?}: {said}");
        assert!(
            said.contains("usage: scripts/mutants-shard.sh K N"),
            "{args:?}: {said}"
        );
    }
}
