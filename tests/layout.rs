//! The module tree's direction of travel (DESIGN.md, "Layout"): no file of
//! `src/` depends, through `use crate::…` or `super::…` paths, on a file that
//! depends back on it, directly or through others.
//!
//! A file is a node (`src/run/judge.rs` is `run::judge`, `src/run.rs` and
//! `src/run/mod.rs` are `run`); a path `crate::a::b::C` is an edge to the
//! longest module prefix that is a file (`a::b`, or `a` when `b` is an item).
//! Comments, doc links and `#[cfg(test)]` modules are not dependencies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path: `["run", "judge"]`.
type Module = Vec<String>;

/// Every `.rs` file under `root` with its module path; `lib.rs`, `main.rs` and
/// test-only `tests.rs` files are left out (the crate root declares, the
/// binary uses, a test module may use anything).
fn modules(root: &Path) -> BTreeMap<Module, PathBuf> {
    let mut found = BTreeMap::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("src/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let relative = path.strip_prefix(root).expect("under root");
            let mut parts: Module = relative
                .with_extension("")
                .iter()
                .map(|part| part.to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|last| last == "mod") {
                parts.pop();
            }
            if matches!(parts.as_slice(), [only] if only == "lib" || only == "main")
                || parts.last().is_some_and(|last| last == "tests")
            {
                continue;
            }
            found.insert(parts, path);
        }
    }
    found
}

/// `source` without `//` comments (doc comments too) and without its
/// `#[cfg(test)] mod tests { … }` (written last in every file here; `pub(crate)`
/// when it lends other files' tests its fixtures).
fn code(source: &str) -> String {
    let test_module = [
        "#[cfg(test)]\nmod tests {",
        "#[cfg(test)]\npub(crate) mod tests {",
    ]
    .iter()
    .filter_map(|start| source.find(start))
    .min();
    let source = match test_module {
        Some(at) => &source[..at],
        None => source,
    };
    source
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a use tree at the start of `text` names, each as segments:
/// `a::{b, c::{D, E}}` gives `a::b`, `a::c::D`, `a::c::E`.
fn use_paths(text: &str) -> Vec<Vec<String>> {
    fn ident(text: &str) -> (String, &str) {
        let end = text
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(text.len());
        (text[..end].to_owned(), &text[end..])
    }
    /// Parses one use tree at the start of `text` into `out`; returns the rest.
    fn tree<'t>(text: &'t str, prefix: &[String], out: &mut Vec<Vec<String>>) -> &'t str {
        let mut path = prefix.to_vec();
        let mut rest = text.trim_start();
        loop {
            if let Some(mut inner) = rest.strip_prefix('{') {
                loop {
                    inner = inner.trim_start();
                    if let Some(after) = inner.strip_prefix('}') {
                        return after;
                    }
                    inner = tree(inner, &path, out).trim_start();
                    match inner.strip_prefix(',') {
                        Some(after) => inner = after,
                        None => return inner.strip_prefix('}').unwrap_or(inner),
                    }
                }
            }
            let (name, after) = ident(rest);
            if name.is_empty() {
                break;
            }
            if name != "self" {
                path.push(name);
            }
            rest = after;
            match rest.strip_prefix("::") {
                Some(next) => rest = next,
                None => break,
            }
        }
        if let Some(alias) = rest.trim_start().strip_prefix("as ") {
            rest = ident(alias.trim_start()).1;
        }
        out.push(path);
        rest
    }
    let mut out = Vec::new();
    tree(text, &[], &mut out);
    out
}

/// The modules `source` declares with `mod NAME;` (`pub mod`, `pub(crate) mod`).
fn children(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let line = line
                .strip_prefix("pub(crate) ")
                .or_else(|| line.strip_prefix("pub "))
                .unwrap_or(line);
            line.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(|name| name.trim().to_owned())
        })
        .collect()
}

/// The files each file depends on, through `crate::` and `super::` paths and
/// the paths a parent writes through its child modules (`child::item`).
fn dependencies(root: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let files = modules(root);
    let resolve = |path: &[String]| -> Option<Module> {
        (1..=path.len())
            .rev()
            .map(|length| path[..length].to_vec())
            .find(|prefix| files.contains_key(prefix))
    };
    let mut graph = BTreeMap::new();
    for (module, file) in &files {
        let source = code(&std::fs::read_to_string(file).expect("a source file"));
        let mut edges = BTreeSet::new();
        for (at, keyword) in source
            .match_indices("crate::")
            .chain(source.match_indices("super::"))
        {
            let before = source[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut rest = &source[at + keyword.len()..];
            let mut base: Vec<String> = Vec::new();
            if keyword == "super::" {
                base = module[..module.len() - 1].to_vec();
                while let Some(further) = rest.strip_prefix("super::") {
                    base.pop();
                    rest = further;
                }
            }
            for path in use_paths(rest) {
                let full: Vec<String> = base.iter().cloned().chain(path).collect();
                if let Some(target) = resolve(&full)
                    && &target != module
                {
                    edges.insert(target);
                }
            }
        }
        // A parent names its children without `crate::` or `super::`
        // (`mrtr::run_case`, `pub use evidence::Evidence`).
        for child in children(&source) {
            let mut rest = source.as_str();
            while let Some(at) = rest.find(&format!("{child}::")) {
                let before = rest[..at].chars().next_back();
                let tail = &rest[at + child.len() + 2..];
                rest = tail;
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                for path in use_paths(tail) {
                    let full: Vec<String> = module
                        .iter()
                        .cloned()
                        .chain([child.clone()])
                        .chain(path)
                        .collect();
                    if let Some(target) = resolve(&full) {
                        edges.insert(target);
                    }
                }
            }
        }
        graph.insert(module.clone(), edges);
    }
    graph
}

/// Every cycle's files (each strongly connected set of two or more files),
/// written `a -> b -> a` along one of its loops.
fn cycles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<String> {
    let name = |module: &Module| module.join("::");
    let reaches = |from: &Module, to: &Module| -> Option<Vec<Module>> {
        // Breadth first from `from`, the path to `to`.
        let mut came_from: BTreeMap<Module, Module> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([from.clone()]);
        while let Some(at) = queue.pop_front() {
            for next in graph.get(&at).into_iter().flatten() {
                if next == to {
                    let mut path = vec![to.clone(), at.clone()];
                    let mut back = at.clone();
                    while let Some(previous) = came_from.get(&back) {
                        path.push(previous.clone());
                        back = previous.clone();
                    }
                    path.reverse();
                    return Some(path);
                }
                if next != from && !came_from.contains_key(next) {
                    came_from.insert(next.clone(), at.clone());
                    queue.push_back(next.clone());
                }
            }
        }
        None
    };
    let mut seen: BTreeSet<Module> = BTreeSet::new();
    let mut found = Vec::new();
    for module in graph.keys() {
        if seen.contains(module) {
            continue;
        }
        if let Some(path) = reaches(module, module) {
            seen.extend(path.iter().cloned());
            found.push(path.iter().map(name).collect::<Vec<_>>().join(" -> "));
        }
    }
    found
}

#[test]
fn no_file_of_src_depends_on_a_file_that_depends_back_on_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = dependencies(&root);
    assert!(
        graph.len() > 40 && graph[&vec!["verdict".to_owned()]].len() > 2,
        "the checker reads the tree: {graph:?}"
    );
    assert_eq!(cycles(&graph), Vec::<String>::new());
}

/// The checker itself, on a tree with one cycle through a nested use tree and
/// a `super::` path, a parent's re-export of its child, one edge written only
/// in a comment and one in a test module.
#[test]
fn the_cycle_check_finds_a_cycle_and_ignores_comments_and_tests() {
    let root = tempfile::tempdir().expect("a temporary folder");
    let write = |path: &str, text: &str| {
        let path = root.path().join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
        std::fs::write(path, text).expect("written");
    };
    write("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n");
    write(
        "a/mod.rs",
        "pub mod inner;\nmod quiet;\nuse crate::{c::Thing, b::{self, Other}};\npub use inner::g;\n",
    );
    write("a/quiet.rs", "pub fn h() {}\n");
    write("a/inner.rs", "use super::super::c::Thing;\n");
    write(
        "b.rs",
        "// crate::c is only named here\npub struct Other;\n",
    );
    write(
        "c.rs",
        "pub struct Thing;\nfn f() { crate::a::inner::g() }\n#[cfg(test)]\nmod tests {\n    use crate::b::Other;\n}\n",
    );
    write(
        "d.rs",
        "pub struct Lent;\n#[cfg(test)]\npub(crate) mod tests {\n    use crate::a::inner::g;\n}\n",
    );
    let graph = dependencies(root.path());
    let module = |path: &str| path.split("::").map(str::to_owned).collect::<Module>();
    assert_eq!(graph[&module("d")], BTreeSet::new());
    assert_eq!(
        graph[&module("a")],
        BTreeSet::from([module("a::inner"), module("b"), module("c")])
    );
    assert_eq!(graph[&module("a::quiet")], BTreeSet::new());
    assert_eq!(graph[&module("b")], BTreeSet::new());
    assert_eq!(graph[&module("c")], BTreeSet::from([module("a::inner")]));
    assert_eq!(graph[&module("a::inner")], BTreeSet::from([module("c")]));
    assert_eq!(cycles(&graph), vec!["a::inner -> c -> a::inner".to_owned()]);
}

/// Every `.rs` and `.md` file at `place`: the file itself, or those under the
/// folder (recursively).
fn text_files(place: &Path) -> Vec<PathBuf> {
    if !place.is_dir() {
        let text = place
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e == "rs" || e == "md");
        return if text {
            vec![place.to_path_buf()]
        } else {
            Vec::new()
        };
    }
    let mut found = Vec::new();
    for entry in std::fs::read_dir(place).expect("a readable folder") {
        found.extend(text_files(&entry.expect("a directory entry").path()));
    }
    found
}

/// The lines of the `.rs` and `.md` files under `places` that name an issue
/// number (the word, a space, a number: `#12` or `7`), as `path:line: text`.
fn tickets_named(places: &[PathBuf]) -> Vec<String> {
    let ticket = regex::Regex::new(r"(?i)\bissue\s+#?\d").expect("a regex");
    let mut named = Vec::new();
    for place in places {
        for file in text_files(place) {
            let text = std::fs::read_to_string(&file).expect("a text file");
            for (number, line) in text.lines().enumerate() {
                if ticket.is_match(line) {
                    named.push(format!("{}:{}: {line}", file.display(), number + 1));
                }
            }
        }
    }
    named
}

/// Rules, not tickets: code, tests, the README and the guide name the contract
/// rule (C1…, H1…, P1…) or the guide's section a behaviour comes from, never
/// the issue it was built for (a user cannot look an issue number up).
#[test]
fn no_source_test_or_doc_names_a_ticket() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let places: Vec<PathBuf> = ["src", "tests", "README.md", "docs/src"]
        .iter()
        .map(|place| root.join(place))
        .collect();
    assert_eq!(tickets_named(&places), Vec::<String>::new());
}

/// The ticket check itself, on files that name one and files that do not.
#[test]
fn the_ticket_check_finds_an_issue_number_in_code_and_docs() {
    let root = tempfile::tempdir().expect("a temporary folder");
    let write = |name: &str, text: &str| {
        let path = root.path().join(name);
        std::fs::write(&path, text).expect("written");
        path
    };
    // Written so that this file names no ticket itself.
    let word = "issue";
    let code = write(
        "a.rs",
        &format!("// the guard (P4)\n/// see I{} #12 for why\n", &word[1..]),
    );
    let doc = write(
        "b.md",
        &format!("# Title\n\nBuilt for {word} 7, section 2.\n"),
    );
    let clean = write("c.md", "an issue with the server; 7 issues; reissue 3\n");
    let other = write("d.txt", &format!("{word} 9\n"));
    assert_eq!(
        tickets_named(&[code.clone(), doc.clone(), clean, other]),
        vec![
            format!("{}:2: /// see I{} #12 for why", code.display(), &word[1..]),
            format!("{}:3: Built for {word} 7, section 2.", doc.display()),
        ]
    );
}

/// The most lines a source file of `src/` has, its unit-test file (`tests.rs`)
/// excepted: a file a newcomer reads in one sitting (docs/src/dev/design.md, "Layout").
const MOST_LINES: usize = 800;

/// The `.rs` files under `root` but unit-test files (`tests.rs`).
fn source_files(root: &Path) -> Vec<PathBuf> {
    text_files(root)
        .into_iter()
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .filter(|path| path.file_name().is_none_or(|name| name != "tests.rs"))
        .collect()
}

/// The `.rs` files under `root` longer than [`MOST_LINES`], `tests.rs` files
/// excepted, as `path: N lines`, sorted.
fn long_files(root: &Path) -> Vec<String> {
    let mut long: Vec<String> = source_files(root)
        .into_iter()
        .filter_map(|path| {
            let lines = std::fs::read_to_string(&path)
                .expect("a readable file")
                .lines()
                .count();
            (lines > MOST_LINES).then(|| format!("{}: {lines} lines", path.display()))
        })
        .collect();
    long.sort();
    long
}

#[test]
fn no_source_file_but_a_unit_test_file_is_over_800_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    assert_eq!(long_files(&src), Vec::<String>::new());
}

/// The length check itself: a file one line over the bound is named, one at
/// the bound and a long `tests.rs` are not.
#[test]
fn the_length_check_names_a_file_over_800_lines_and_spares_unit_test_files() {
    let root = tempfile::tempdir().expect("a temporary folder");
    let write = |path: &str, lines: usize| {
        let path = root.path().join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
        std::fs::write(&path, "// a line\n".repeat(lines)).expect("written");
        path
    };
    let over = write("a/long.rs", 801);
    write("a/at_bound.rs", 800);
    write("a/long/tests.rs", 2000);
    write("notes.md", 2000);
    assert_eq!(
        long_files(root.path()),
        vec![format!("{}: 801 lines", over.display())]
    );
}

/// The most lines of code `src/check/` holds (the job: probe, plan, cases,
/// judge, shrink, eras), its unit tests aside: its reports are in
/// `src/report/check/` and its inputs in `src/targets/` (docs/src/dev/design.md,
/// "Layout").
const MOST_CHECK_LINES: usize = 4000;

/// The lines of code of the `.rs` files under `root`: each file's lines before
/// its first `#[cfg(test)]`, `tests.rs` files not counted.
fn code_lines(root: &Path) -> usize {
    source_files(root)
        .into_iter()
        .map(|path| {
            std::fs::read_to_string(&path)
                .expect("a readable file")
                .lines()
                .take_while(|line| line.trim() != "#[cfg(test)]")
                .count()
        })
        .sum()
}

#[test]
fn the_check_job_is_under_4000_lines_of_code() {
    let check = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/check");
    let lines = code_lines(&check);
    assert!(
        lines < MOST_CHECK_LINES,
        "src/check/ holds {lines} lines of code; it must stay under {MOST_CHECK_LINES}"
    );
}

/// The count itself: a file's lines up to its unit tests, a whole file
/// without tests, no `tests.rs`, no other file.
#[test]
fn the_code_count_stops_at_unit_tests_and_skips_unit_test_files() {
    let root = tempfile::tempdir().expect("a temporary folder");
    let write = |path: &str, text: &str| {
        let path = root.path().join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
        std::fs::write(&path, text).expect("written");
    };
    write(
        "job.rs",
        "pub fn a() {}\npub fn b() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n",
    );
    write("job/plan.rs", "pub fn c() {}\n");
    write("job/tests.rs", "#[test]\nfn u() {}\n");
    write("notes.md", "a\nb\nc\n");
    assert_eq!(code_lines(root.path()), 4);
}
