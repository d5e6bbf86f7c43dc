"""The integration tests share the developer's stack: every statement of theirs that deletes or drops must be
confined to their own data (tests/integration/isolation.py).

Read from the source, never run: each string (f-strings with their placeholders) of tests/integration that holds
DELETE FROM, ALTER TABLE, TRUNCATE or DROP TABLE/DATABASE/VIEW/DICTIONARY, and each call that deletes a Kafka topic
or a registry subject, must either
- keep to the test runs: ``startsWith(run_id, '{PREFIX}')`` in the statement, with no OR beside it, or
- name a scratch object the test made itself: a variable (or fixture) whose value comes from ``scratch_name()``,
  ``unique()`` or ``scratch_database()``, or a literal name with the scratch prefix.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
INTEGRATION = REPO / "tests" / "integration"
ISOLATION = INTEGRATION / "isolation.py"

#: Functions of isolation.py whose result names something a test made itself.
MAKERS = {"scratch_name", "unique", "scratch_database"}
#: Statements that remove data or objects. Word-bounded, so "deleted from" in prose does not count.
DESTRUCTIVE = re.compile(
    r"\b(DELETE\s+FROM|ALTER\s+TABLE|TRUNCATE(?:\s+TABLE)?|DROP\s+(?:TEMPORARY\s+)?(?:TABLE|DATABASE|VIEW|DICTIONARY))"
    r"\s+(?:IF\s+EXISTS\s+)?(\S+)", re.IGNORECASE)
DELETE_CALLS = {"delete_topics", "delete_subject"}
#: Placeholders of an f-string as rendered here: «expression».
PLACEHOLDER = re.compile(r"«([^»]*)»")


_spec = importlib.util.spec_from_file_location("integration_isolation", ISOLATION)
isolation = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(isolation)   # it imports nothing of the stack
PREFIX, SCRATCH_PREFIX = isolation.PREFIX, isolation.SCRATCH_PREFIX


@dataclass(frozen=True)
class Finding:
    path: Path
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}: {self.text}"


def _render(node: ast.AST) -> str | None:
    """A string literal's text; an f-string's with each placeholder as «expression»."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                parts.append(f"«{ast.unparse(value.value)}»")
        return "".join(parts)
    return None


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def _not_statements(tree: ast.AST) -> set[int]:
    """Strings that are not statements: docstrings, and the pieces of an f-string (read as a whole)."""
    return _docstrings(tree) | {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}


def _calls_maker(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in MAKERS
               for n in ast.walk(node))


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _derived(value: ast.AST, found: set[str]) -> bool:
    """Whether an assigned value is a maker's result or built directly on a name already found: the name itself
    (``admin, db = scratch``), an f-string around it (``f"{run}-split"``) or a call taking it
    (``KafkaStore(bootstrap, topic)``)."""
    if _calls_maker(value):
        return True
    if isinstance(value, ast.Name):
        return value.id in found
    if isinstance(value, ast.JoinedStr):
        return any(isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name) and v.value.id in found
                   for v in value.values)
    if isinstance(value, ast.Call):
        return any(isinstance(a, ast.Name) and a.id in found for a in value.args)
    return False


def scratch_names(tree: ast.AST) -> set[str]:
    """Names in the module that hold something a test made itself: fixtures whose body calls a maker (a test's
    parameter of that name) and, to a fixed point, variables assigned from a maker's result or from those."""
    found = {f.name for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
             and any("fixture" in ast.unparse(d) for d in f.decorator_list) and _calls_maker(f)}
    assigns = [(n.targets if isinstance(n, ast.Assign) else [n.target], n.value) for n in ast.walk(tree)
               if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None]
    assigns += [([n.optional_vars], n.context_expr) for n in ast.walk(tree)  # with maker(...) as (db, admin)
                if isinstance(n, ast.withitem) and n.optional_vars is not None]
    while True:
        before = len(found)
        for targets, value in assigns:
            if _derived(value, found):
                for target in targets:
                    found |= _names(target)
        if len(found) == before:
            return found


def _is_scratch(target: str, scratch: set[str]) -> bool:
    """Whether a statement's object (``«db».t``, ``ioscale.«name»``, ``itest_x``) is a scratch object."""
    target = target.strip("`\"'(;,").removeprefix("ioscale.")
    if target.startswith("«"):
        match = PLACEHOLDER.match(target)
        return bool(match) and match.group(1) in scratch
    return target.startswith(SCRATCH_PREFIX) or target.startswith(PREFIX)


def problems_in(path: Path, source: str) -> tuple[list[Finding], int]:
    """(statements not confined to the tests' own data, statements checked) in one module."""
    tree = ast.parse(source)
    scratch = scratch_names(tree)
    skip = _not_statements(tree)
    bad, checked = [], 0
    for node in ast.walk(tree):
        text = None if id(node) in skip else _render(node)
        if text is not None and not text.lstrip().upper().startswith("CHECK GRANT"):
            for match in DESTRUCTIVE.finditer(text):
                checked += 1
                statement = text[match.start():]
                deletes_rows = re.match(r"DELETE\s+FROM|ALTER\s+TABLE\s+\S+\s+DELETE\b", statement, re.IGNORECASE)
                confined = (deletes_rows and "startsWith(run_id, '«PREFIX»')" in statement
                            and not re.search(r"\bOR\b", statement, re.IGNORECASE))
                if not confined and not _is_scratch(match.group(2), scratch):
                    bad.append(Finding(path, node.lineno, statement.strip().splitlines()[0]))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DELETE_CALLS:
            checked += 1
            receiver = _names(node.func.value)
            named = _names(node.args[0]) if node.args else set()
            if not (named and named <= scratch) and not (receiver & scratch):
                bad.append(Finding(path, node.lineno, ast.unparse(node)))
    return sorted(bad, key=lambda f: f.line), checked


def test_every_destructive_statement_keeps_to_the_tests_own_data():
    bad, checked = [], 0
    for path in sorted(INTEGRATION.rglob("*.py")):
        found, n = problems_in(path, path.read_text(encoding="utf-8"))
        bad += found
        checked += n
    for path in sorted(INTEGRATION.rglob("*.sql")):
        text = path.read_text(encoding="utf-8")
        bad += [Finding(path, text[:m.start()].count("\n") + 1, m.group(0)) for m in DESTRUCTIVE.finditer(text)]
    assert not bad, "statements that may touch the developer's data:\n" + "\n".join(map(str, bad))
    assert checked >= 10, f"only {checked} statements found: is the parser still reading tests/integration?"


def test_the_prefix_is_defined_once():
    """Code spells it isolation.PREFIX or SCRATCH_PREFIX (docstrings may show it)."""
    assert PREFIX and SCRATCH_PREFIX == PREFIX.replace("-", "_")
    literal = []
    for path in INTEGRATION.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        literal += [f"{path.relative_to(REPO)}:{n.lineno}" for n in ast.walk(tree) if path != ISOLATION
                    and isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
                    and (PREFIX in n.value or SCRATCH_PREFIX in n.value)]
    assert not literal, f"spell the prefix as isolation.PREFIX / SCRATCH_PREFIX: {literal}"


# --- the checker itself -------------------------------------------------------------------------------------
def _check(source: str) -> list[str]:
    return [f.text for f in problems_in(REPO / "example.py", source)[0]]


def test_the_checker_accepts_deletes_of_the_tests_runs_and_drops_of_scratch_objects():
    assert _check('''
def f(admin, table, run):
    admin.command(f"DELETE FROM ioscale.{table} WHERE run_id = {{run:String}} AND startsWith(run_id, '{PREFIX}')")
    name = scratch_name("codec")
    admin.command(f"DROP DATABASE IF EXISTS {name} SYNC")
    topic = unique("kafka")
    admin.delete_topics([topic])

@pytest.fixture
def scratch(stack):
    yield admin, scratch_name("codec")

def test_y(scratch):
    admin, db = scratch
    admin.command(f"DROP TABLE {db}.t")

@pytest.fixture
def table(stack):
    name = f"ioscale.{scratch_name('access')}"
    yield name

def test_x(table, writer):
    writer.command(f"ALTER TABLE {table} DELETE WHERE 1")
    writer.command(f"TRUNCATE TABLE {table}")
    writer.command("CHECK GRANT DROP DATABASE ON ioscale.*")
''') == []


def test_the_checker_refuses_statements_that_reach_other_data():
    assert _check('''
def f(admin, table, run, name):
    admin.command(f"DELETE FROM ioscale.{table} WHERE run_id = {{run:String}}")
    admin.command(f"DELETE FROM ioscale.io_samples WHERE startsWith(run_id, '{PREFIX}') OR 1")
    admin.command("ALTER TABLE ioscale.io_samples DELETE WHERE run_id LIKE 'x%'")
    admin.command("DROP DATABASE ioscale")
    admin.command(f"DROP TABLE IF EXISTS ioscale.{name}")
    admin.command("TRUNCATE TABLE ioscale.io_samples")
    admin.delete_topics(["ioscale.io_samples"])
''') == [
        "DELETE FROM ioscale.«table» WHERE run_id = {run:String}",
        "DELETE FROM ioscale.io_samples WHERE startsWith(run_id, '«PREFIX»') OR 1",
        "ALTER TABLE ioscale.io_samples DELETE WHERE run_id LIKE 'x%'",
        "DROP DATABASE ioscale",
        "DROP TABLE IF EXISTS ioscale.«name»",
        "TRUNCATE TABLE ioscale.io_samples",
        "admin.delete_topics(['ioscale.io_samples'])",
    ]
