#!/usr/bin/env python3
"""Checks the internal links of the book (docs/src) and of the Markdown files at the
repository's root that point into it. mdBook renders a broken link or a missing
anchor without a word; `.ci/run` runs this after `mdbook build docs` and fails on
what it prints.

    python3 scripts/book-links.py [--html docs/book] [FILE.md ...]

Default files: every .md under docs/src, and README.md, DESIGN.md, BENCHMARKS.md.
For each link [text](target) or [id]: target outside code:

- a web link (http:, https:, mailto:) is not checked (the book is built offline);
- a relative path must name a file that exists; from docs/src it must stay inside
  docs/src, and a chapter it names must be listed in SUMMARY.md (else mdBook does
  not render it);
- #anchor (alone, or after a .md path) must be the id of a heading of that file,
  made as mdBook makes it: the heading's text without Markdown, lower-cased, each
  space a '-', every other character but letters, digits, '_' and '-' dropped; a
  second heading with the same id gets '-1', a third '-2'; `{#id}` sets it.

With --html DIR (the built book), every heading id computed here must also be an
id of the chapter's HTML page: if mdBook's rule ever differs from the one above,
this fails instead of passing links mdBook breaks.

Exit 0 when everything resolves, 1 with one line per problem (file:line: what).
Python 3.11, standard library only.
"""

import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BOOK_SRC = ROOT / "docs" / "src"
ROOT_FILES = ["README.md", "DESIGN.md", "BENCHMARKS.md"]

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[([^\]]+)\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.M)
ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*(?:#+[ \t]*)?$")
CUSTOM_ID = re.compile(r"\s*\{#([^}\s]+)[^}]*\}\s*$")
WEB = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def without_fences(text):
    """The text with fenced code blocks blanked out (newlines kept, so line numbers
    stay right)."""
    lines = text.split("\n")
    fence = None
    for number, line in enumerate(lines):
        match = FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)[0] * len(match.group(1))
            lines[number] = ""
        elif fence is not None:
            if match and match.group(1).startswith(fence) and line.strip().strip(fence[0]) == "":
                fence = None
            lines[number] = ""
    return "\n".join(lines)


def without_code(text):
    """The text with fenced code blocks and code spans blanked out (newlines kept)."""
    text = without_fences(text)
    out = []
    position = 0
    while position < len(text):
        if text[position] != "`":
            out.append(text[position])
            position += 1
            continue
        run = len(text[position:]) - len(text[position:].lstrip("`"))
        closing = re.compile(r"(?<!`)" + "`" * run + r"(?!`)")
        end = closing.search(text, position + run)
        if end is None:
            out.append("`" * run)
            position += run
            continue
        span = text[position:end.end()]
        out.append(re.sub(r"[^\n]", " ", span))
        position = end.end()
    return "".join(out)


def heading_text(raw):
    """A heading's text as mdBook renders it, without Markdown."""
    text = re.sub(r"`+([^`]*)`+", r"\1", raw)  # code spans keep their content
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    return text.replace("**", "").replace("*", "")


def normalize_id(text):
    """mdBook's id of a heading text."""
    out = []
    for char in text:
        if char.isalnum() or char in "_-":
            out.append(char.lower())
        elif char.isspace():
            out.append("-")
    return "".join(out)


def heading_ids(path, cache={}):
    """The ids of the headings of a Markdown file, with the line of each."""
    if path in cache:
        return cache[path]
    ids = {}
    seen = {}
    for number, line in enumerate(without_fences(path.read_text()).split("\n"), 1):
        match = ATX_HEADING.match(line)
        if not match:
            continue
        raw = match.group(2)
        custom = CUSTOM_ID.search(raw)
        if custom:
            ids[custom.group(1)] = number
            continue
        base = normalize_id(heading_text(raw))
        count = seen.get(base, 0)
        seen[base] = count + 1
        ids[base if count == 0 else f"{base}-{count}"] = number
    # Explicit anchors written as HTML: <a id="..."></a>, <span id="...">.
    for match in re.finditer(r"<[a-zA-Z]+[^>]*\bid=\"([^\"]+)\"", path.read_text()):
        ids.setdefault(match.group(1), 0)
    cache[path] = ids
    return ids


def summary_chapters():
    """The chapter files SUMMARY.md lists (paths relative to docs/src)."""
    summary = BOOK_SRC / "SUMMARY.md"
    chapters = set()
    for match in INLINE_LINK.finditer(without_code(summary.read_text())):
        target = match.group(3)
        if target:
            chapters.add(pathlib.PurePosixPath(target.split("#")[0]).as_posix())
    return chapters


def links(path):
    """(line, target) of every link of a Markdown file, outside code."""
    text = without_code(path.read_text())
    found = []
    for match in INLINE_LINK.finditer(text):
        found.append((text.count("\n", 0, match.start(3)) + 1, match.group(3)))
    for match in REFERENCE_DEFINITION.finditer(text):
        found.append((text.count("\n", 0, match.start(2)) + 1, match.group(2)))
    return found


def check_file(path, chapters, problems):
    """Checks every link of one file; returns how many were checked."""
    in_book = BOOK_SRC in path.parents
    checked = 0
    for line, target in links(path):
        where = f"{path.relative_to(ROOT)}:{line}"
        if not target:
            problems.append(f"{where}: an empty link target")
            continue
        if WEB.match(target):
            continue
        checked += 1
        file_part, _, anchor = target.partition("#")
        destination = path if not file_part else (path.parent / file_part).resolve()
        if file_part:
            if in_book and BOOK_SRC.resolve() not in destination.parents:
                problems.append(f"{where}: {target} leaves docs/src (mdBook renders only the book's sources)")
                continue
            if not destination.exists():
                problems.append(f"{where}: {target}: no file {destination.relative_to(ROOT) if ROOT in destination.parents else destination}")
                continue
            if (
                in_book
                and destination.suffix == ".md"
                and destination.relative_to(BOOK_SRC.resolve()).as_posix() not in chapters
            ):
                problems.append(f"{where}: {target} is not a chapter listed in docs/src/SUMMARY.md")
                continue
        if anchor:
            if destination.suffix != ".md":
                problems.append(f"{where}: {target}: an anchor into a file that is not Markdown")
                continue
            ids = heading_ids(destination)
            if anchor not in ids:
                near = [known for known in ids if known.startswith(anchor[:6])][:3]
                hint = f" (ids starting alike: {', '.join(near)})" if near else ""
                problems.append(f"{where}: {target}: no heading with id #{anchor} in {destination.name}{hint}")
    return checked


def check_html(html_dir, chapters, problems):
    """Every heading id computed here is an id of the built chapter page."""
    for chapter in sorted(chapters):
        source = BOOK_SRC / chapter
        page = html_dir / pathlib.PurePosixPath(chapter).with_suffix(".html")
        if not page.exists():
            problems.append(f"{html_dir}/{page.relative_to(html_dir)}: not built (chapter {chapter})")
            continue
        built = set(re.findall(r"\bid=\"([^\"]+)\"", page.read_text()))
        for anchor, line in heading_ids(source).items():
            if anchor not in built:
                problems.append(
                    f"docs/src/{chapter}:{line}: mdBook gave this heading no id {anchor!r} "
                    f"in {page.name}: its rule differs from this script's"
                )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", type=pathlib.Path, help="the built book (docs/book) to compare heading ids with")
    parser.add_argument("files", nargs="*", type=pathlib.Path)
    args = parser.parse_args()
    chapters = summary_chapters()
    problems = []
    for chapter in sorted(chapters):
        if not (BOOK_SRC / chapter).exists():
            problems.append(f"docs/src/SUMMARY.md: lists {chapter}, which does not exist")
    for orphan in sorted(BOOK_SRC.rglob("*.md")):
        relative = orphan.relative_to(BOOK_SRC).as_posix()
        if relative != "SUMMARY.md" and relative not in chapters:
            problems.append(f"docs/src/{relative}: not listed in docs/src/SUMMARY.md")
    files = [path.resolve() for path in args.files] or sorted(
        [path.resolve() for path in BOOK_SRC.rglob("*.md")]
        + [ROOT / name for name in ROOT_FILES if (ROOT / name).exists()]
    )
    checked = sum(check_file(path, chapters, problems) for path in files)
    if args.html:
        check_html(args.html.resolve(), chapters, problems)
    for problem in problems:
        print(problem)
    if problems:
        print(f"book-links: {len(problems)} problems ({checked} internal links in {len(files)} files checked)")
        return 1
    print(f"book-links: {checked} internal links in {len(files)} files resolve"
          + (f"; heading ids agree with {args.html}" if args.html else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
