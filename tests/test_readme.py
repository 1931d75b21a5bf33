"""Every example in README.md and in docs/*.md is a test, so the examples cannot rot.

* ```python blocks are doctests: each ``>>>`` line runs and its shown output must match.
* ```console blocks: each ``$ unosim ...`` line runs in-process and the lines shown under it must appear in
  its output, in order (lines with machine-dependent speeds are not compared).
* ```sh blocks: each ``unosim ...`` line must run and exit 0.  Their game counts are capped at
  ``SH_GAMES`` to keep the suite fast; what they show is that every documented command and option is
  accepted as written.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import re
import shlex
from pathlib import Path

import pytest

from unosim.cli import run as cli_run

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]
SH_GAMES = 2000
# output that depends on the machine, not on the simulation
VOLATILE = re.compile(r"rounds/s|matches/s|games/s|compile|cache load|written to|^report:|^chart:")


def name(doc: Path) -> str:
    return str(doc.relative_to(ROOT))


def blocks(kind: str, doc: Path = README) -> list[tuple[int, str]]:
    """(line number, body) of every fenced block of ``kind`` in ``doc`` (indented fences in lists included)."""
    out, lines = [], doc.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(\w+)\s*$", lines[i])
        if m and m.group(2) == kind:
            indent, start, body = len(m.group(1)), i + 1, []
            i += 1
            while not lines[i].strip().startswith("```"):
                body.append(lines[i][indent:])
                i += 1
            out.append((start, "\n".join(body)))
        i += 1
    return out


def run_cli(argv: list[str]) -> tuple[int, str]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            cli_run(argv)
        except SystemExit as e:
            return int(e.code or 0), buf.getvalue()
    return 0, buf.getvalue()


def unosim_argv(line: str) -> list[str] | None:
    """The arguments of a documented ``unosim`` command line, or None for other commands (make, ...)."""
    words = shlex.split(line, comments=True)
    if not words or Path(words[0]).name != "unosim":
        return None
    return words[1:]


def test_readme_has_examples_of_each_kind():
    assert blocks("python") and blocks("console") and blocks("sh")


def test_no_file_keeps_merge_conflict_markers():
    marked = []
    for path in [*DOCS, *ROOT.glob("unosim/*.py"), *ROOT.glob("tests/*.py"), *ROOT.glob("scripts/*.py")]:
        for k, line in enumerate(path.read_text().splitlines(), 1):
            if line.startswith(("<<<<<<< ", ">>>>>>> ")) or line == "=" * 7:
                marked.append(f"{path.name}:{k}")
    assert not marked


@pytest.mark.parametrize("doc", [d for d in DOCS if blocks("python", d)], ids=name)
def test_python_examples(doc, tmp_path, monkeypatch):
    """The ```python blocks of one file run in order in one namespace, as a reader would type them."""
    monkeypatch.chdir(tmp_path)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    globs: dict = {}
    out = io.StringIO()
    for start, body in blocks("python", doc):
        if excerpt_of(body) is not None:
            continue  # an excerpt of a file in the repository: test_python_excerpt
        assert ">>>" in body, f"{name(doc)} line {start}: write Python examples as doctests (>>> lines)"
        test = parser.get_doctest(body, globs, f"{name(doc)}:{start}", str(doc), start)
        runner.run(test, out=out.write, clear_globs=False)
        globs = test.globs  # DocTest copies its globals: carry them to the next block
    assert runner.failures == 0, out.getvalue()


def excerpt_of(body: str) -> Path | None:
    """The repository file a block quotes when its first line is ``# path/of/the/file.py``."""
    first = body.splitlines()[0].strip() if body.strip() else ""
    path = ROOT / first[1:].strip() if first.startswith("#") else None
    return path if path is not None and path.is_file() else None


def excerpt_cases() -> list[tuple[str, int, str]]:
    return [(name(d), k, b) for d in DOCS for k, b in blocks("python", d) if excerpt_of(b) is not None]


@pytest.mark.parametrize("doc,start,body", excerpt_cases(), ids=lambda x: str(x) if not str(x).startswith("#") else "")
def test_python_excerpt(doc, start, body):
    """Every line of an excerpt is in the file it quotes, in order (``...`` stands for omitted code)."""
    lines = [ln.split("#")[0].rstrip() if "  #" in ln else ln.rstrip() for ln in body.splitlines()[1:]]
    source = [ln.rstrip() for ln in excerpt_of(body).read_text().splitlines()]
    pos = 0
    for ln in lines:
        if not ln.strip() or ln.strip() == "...":
            continue
        hit = next((k for k in range(pos, len(source)) if source[k].startswith(ln) or
                    source[k].split("  #")[0].rstrip() == ln), None)
        assert hit is not None, f"{doc} line {start}: {ln!r} is not in {excerpt_of(body).name} (in order)"
        pos = hit + 1


def test_readme_shows_the_example_policies_whole():
    """The README's strategy examples are whole files, not excerpts cut with ``...``."""
    for start, body in blocks("python"):
        path = excerpt_of(body)
        if path is not None:
            assert "..." not in body.splitlines(), f"README.md line {start}: {path.name} is cut"
            quoted = [ln.rstrip() for ln in body.splitlines()[1:] if ln.strip()]
            assert quoted == [ln.rstrip() for ln in path.read_text().splitlines() if ln.strip()]


def console_cases() -> list:
    """One case per console block: its ``$ unosim ...`` lines, each with the output shown under it, run in
    order in one folder (a later command may read what an earlier one wrote).  One test per block, not per
    command, so that no command depends on another test having run before it on the same worker."""
    cases = []
    for doc in DOCS:
        for start, body in blocks("console", doc):
            commands, cmd, shown = [], None, []
            for k, line in enumerate(body.splitlines() + ["$ "]):
                if line.startswith("$ "):
                    if cmd is not None:
                        commands.append((start + k, cmd, shown))
                    cmd, shown = line[2:].strip() or None, []
                elif cmd is not None and line.strip():
                    shown.append(line.rstrip())
            if commands:
                cases.append(pytest.param(name(doc), start, commands, id=f"{name(doc)}-{start}"))
    return cases


def case_id(x) -> str:
    return str(x) if isinstance(x, (int, str)) and (isinstance(x, int) or x.endswith(".md")) else ""


@pytest.mark.parametrize("doc,start,commands", console_cases())
def test_console_example(doc, start, commands, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for line, cmd, shown in commands:
        argv = unosim_argv(cmd)
        assert argv is not None, f"{doc} line {line}: console examples run unosim, got {cmd!r}"
        code, out = run_cli(argv)
        expect_error = any(s.startswith("error: ") for s in shown)
        assert code == (2 if expect_error else 0), f"{doc} line {line}: {cmd!r}:\n{out}"
        got = [s.rstrip() for s in out.splitlines()]
        pos = 0
        for s in shown:
            if VOLATILE.search(s):
                continue
            hit = next((k for k in range(pos, len(got)) if same_line(s, got[k])), None)
            assert hit is not None, f"{doc} line {line}: {s!r} not in the output of {cmd!r}:\n{out}"
            pos = hit + 1


def same_line(shown: str, got: str) -> bool:
    """A shown line matches an output line exactly, where ``...`` in the shown line stands for any text."""
    if "..." not in shown:
        return shown == got
    return re.fullmatch(".*".join(map(re.escape, shown.split("..."))), got) is not None


def sh_cases() -> list[tuple[str, int, list[str]]]:
    cases = []
    for doc in DOCS:
        for start, body in blocks("sh", doc):
            for k, line in enumerate(body.splitlines()):
                argv = unosim_argv(line)
                if argv is not None:
                    cases.append((name(doc), start + k + 1, argv))
    return cases


def capped(argv: list[str]) -> list[str]:
    """The command with its game counts capped at SH_GAMES and the repository's files (example experiment
    files) by absolute path, since the test runs in a scratch folder."""
    out = [str(ROOT / a) if (ROOT / a).is_file() else a for a in argv]
    for flag in ("--games", "--max-games"):
        if flag in out:
            i = out.index(flag) + 1
            out[i] = str(min(int(out[i].replace("_", "")), SH_GAMES))
    if out and out[0] in ("simulate", "compare") and "--games" not in out:
        out += ["--games", str(SH_GAMES)]
    return out


@pytest.mark.parametrize("doc,line,argv", sh_cases(), ids=case_id)
def test_sh_example(doc, line, argv, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out = run_cli(capped(argv))
    assert code == 0, f"{doc} line {line}: unosim {' '.join(argv)}\n{out}"


# ---- links and the rules reference --------------------------------------------------------------------

# documents other work adds; a link to one of them is checked once it exists
PLANNED = {"docs/answers.md", "docs/reports.md", "docs/safety.md", "docs/scoring.md", "docs/skill.md"}


def links(doc: Path) -> list[tuple[int, str]]:
    """(line, target) of every relative Markdown link or image in ``doc`` (anchors dropped)."""
    out = []
    for k, line in enumerate(doc.read_text().splitlines(), 1):
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if not re.match(r"^[a-z]+:|^#", target):
                out.append((k, target.split("#")[0]))
    return out


@pytest.mark.parametrize("doc", DOCS, ids=name)
def test_links_resolve(doc):
    missing = []
    for k, target in links(doc):
        path = (doc.parent / target).resolve()
        if not path.exists() and str(path.relative_to(ROOT)) not in PLANNED:
            missing.append(f"{name(doc)}:{k}: {target}")
    assert not missing


def test_every_rule_option_is_in_the_rules_reference():
    from unosim.ruleset.rules import OPTIONS

    text = (ROOT / "docs" / "rules.md").read_text()
    assert [o for o in OPTIONS if f"| `{o}` |" not in text] == []


def test_every_cited_rules_section_exists():
    """Code, tests and `unosim rules` cite ``docs/rules.md §N.M``: each such section is a heading there."""
    heads = set(re.findall(r"^#+ §?(\d+(?:\.\d+)?)[. ]", (ROOT / "docs" / "rules.md").read_text(), re.M))
    cited = set()
    for path in [*ROOT.glob("unosim/*.py"), *ROOT.glob("tests/*.py"), *ROOT.glob("scripts/*.py")]:
        for m in re.finditer(r"docs/rules\.md,? (?:§|section )?(\d+(?:\.\d+)?)", path.read_text()):
            cited.add(m.group(1))
        for m in re.finditer(r"docs/rules\.md[^\n]{0,60}", path.read_text()):
            cited.update(re.findall(r"§(\d+(?:\.\d+)?)", m.group(0)))
    assert cited and sorted(cited - heads) == []


def test_unosim_rules_points_at_the_reference():
    for argv in (["rules"], ["rules", "stacking"]):
        code, out = run_cli(argv)
        assert code == 0 and "RULES.md" not in out and out.rstrip().endswith("docs/rules.md")
