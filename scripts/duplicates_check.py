"""Run the `duplicates` tool over the code we write by hand and list the pairs that are left.

What is not ours to de-duplicate is set aside before the tool reads the tree, and named here so a reviewer can
disagree with a line rather than with a verdict:

- generated files: Django migrations (written by `makemigrations`, kept as they were applied);
- data tables: modules that are plain data (task and case templates, hand-written utterance lists); the
  bodies of `TextChoices`/`IntegerChoices` classes (code → Korean label rows, one vocabulary each, which look
  alike because every such table has the same shape, `CODE = "CODE", "라벨"`); and constants (UPPER_CASE
  names) whose value is built from literals and other constants alone (a label dict, a word list, a pattern:
  `LABELS = {"code": "라벨", ...}`, `NOUNS = _words("결제 카드")`, `PATTERN = re.compile(_EDGE + r"...")`; its
  rows may name functions and classes, as a table of declarations does: `DashboardChart(draw=line_chart, ...)`),
  where rows of one shape are the point; class attributes written out as plain literals (an admin's `fields`
  and `list_display`, a Meta's `ordering`): declarative settings, one name per row; and a test's
  `parametrize` table written out as literals.

Those lines are blanked in the copy the tool reads (the lines stay, empty, so the numbers it prints are the
repository's). Every pair it still finds is printed; the command exits 1 when anything is printed, 2 when
the tool is missing or did not finish.

Run: `python scripts/duplicates_check.py` (needs the `duplicates` tool on PATH; it is not a Python package).
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

GENERATED = re.compile(r"(^|/)migrations/")
DATA_MODULES = frozenset(
    {
        "evals/build_tasks.py",
        "evals/build_draft_cases.py",
        "chat/tests/offline_utterances.py",
    }
)
ROW = re.compile(r"^D\d+ ")  # a pair: "D1 a.py:10-24 ~ b.py:40-54 ..."


def is_constant_name(name: str) -> bool:
    return name.lstrip("_").isupper()


def is_literal(node: ast.expr, references: bool = False) -> bool:
    """A value written out as data: constants, other constants (UPPER_CASE names, `re.IGNORECASE`), containers
    and f-strings of them, and calls that only receive them. With `references`, a row may also name a function or
    a class (`draw=line_chart`, `SentField(...)`): a table of declarations, still no code that runs per row."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return is_constant_name(node.id) or references
    if isinstance(node, ast.Attribute):
        return is_constant_name(node.attr) or references
    if isinstance(node, ast.JoinedStr):
        return all(is_literal(part, references) for part in node.values)
    if isinstance(node, ast.FormattedValue | ast.Starred):
        return is_literal(node.value, references)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return all(is_literal(item, references) for item in node.elts)
    if isinstance(node, ast.Dict):
        keys_ok = all(key is not None and is_literal(key, references) for key in node.keys)
        return keys_ok and all(is_literal(value, references) for value in node.values)
    if isinstance(node, ast.BinOp):
        return is_literal(node.left, references) and is_literal(node.right, references)
    if isinstance(node, ast.UnaryOp):
        return is_literal(node.operand, references)
    if isinstance(node, ast.Call):
        args_ok = all(is_literal(arg, references) for arg in node.args)
        return args_ok and all(is_literal(kw.value, references) for kw in node.keywords)
    return False


def is_plain_literal(node: ast.expr) -> bool:
    """Literal rows with no call in them: `fields = ("order", "status")`, `ordering = ["-id"]`."""
    return is_literal(node) and not any(isinstance(part, ast.Call) for part in ast.walk(node))


def without_data(text: str) -> str:
    """The source with every `*Choices` class, literal-valued constant and literal parametrize table blanked,
    line numbers kept."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    lines = text.splitlines()
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            if any(ast.unparse(base).endswith("Choices") for base in node.bases):
                spans.append(node)
            else:
                spans.extend(
                    item
                    for item in node.body
                    if isinstance(item, ast.Assign | ast.AnnAssign)
                    and item.value is not None
                    and is_plain_literal(item.value)
                )
        elif (
            isinstance(node, ast.Assign | ast.AnnAssign)
            and node.value is not None
            and is_literal(node.value, references=True)
        ):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if all(isinstance(t, ast.Name) and is_constant_name(t.id) for t in targets):
                spans.append(node)
        elif isinstance(node, ast.FunctionDef):
            spans.extend(
                decorator
                for decorator in node.decorator_list
                if isinstance(decorator, ast.Call)
                and ast.unparse(decorator.func).endswith("parametrize")
                and is_literal(decorator)
            )
    for node in spans:
        for number in range(node.lineno, (node.end_lineno or node.lineno) + 1):
            lines[number - 1] = ""
    return "\n".join(lines) + "\n"


def main() -> int:
    if shutil.which("duplicates") is None:
        print("duplicates: the tool is not on PATH", file=sys.stderr)
        return 2
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    kept = [name for name in files if not GENERATED.search(name) and name not in DATA_MODULES]
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp)
        for name in kept:
            source = ROOT / name
            if source.is_file():
                (tree / name).parent.mkdir(parents=True, exist_ok=True)
                text = source.read_text(encoding="utf-8", errors="replace")
                if name.endswith(".py"):
                    text = without_data(text)
                (tree / name).write_text(text, encoding="utf-8")
        run = subprocess.run(
            ["duplicates", "--repo", tmp, "--most", "200", "--seconds", "300"], capture_output=True, text=True
        )
        out = run.stdout.splitlines()
        if any(line.startswith("incomplete:") for line in out):
            print("\n".join(out), file=sys.stderr)
            return 2
        left = [line for line in out if ROW.match(line)]
    print(f"{len(kept)} files read; set aside: migrations, {len(DATA_MODULES)} data modules, choices/literal tables")
    print(f"{len(left)} pairs left")
    for line in left:
        print(line)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
