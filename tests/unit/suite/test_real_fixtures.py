"""The committed real fixtures keep their provenance: a source record, a README row and the licence text.

Sweeps sit one folder each (tests/fixtures/real/<sweep>/<point>); expected_curves.json is not a fixture but the
figures worked out from them (its own entries name their sources; devtools/expected_curves.py re-derives it).
"""

from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "fixtures"
REAL = FIXTURES / "real"
LICENSES = REAL / "LICENSES"
DERIVED = {REAL / "expected_curves.json"}


def _data_files() -> list[Path]:
    return sorted(p for p in REAL.rglob("*") if p.is_file() and LICENSES not in p.parents
                  and not p.name.endswith(".source.txt") and p not in DERIVED)


def test_there_are_real_fixtures():
    assert len(_data_files()) >= 10


def test_every_real_fixture_has_a_source_record_a_readme_row_and_its_licence_text():
    readme = (FIXTURES / "README.md").read_text()
    for path in _data_files():
        source = path.with_name(f"{path.name}.source.txt")
        assert source.is_file(), f"{path.name}: no {source.name}"
        fields = dict(line.split(": ", 1) for line in source.read_text().splitlines() if ": " in line
                      and not line.startswith(" "))
        assert {"repo", "path", "license"} <= fields.keys(), f"{source.name}: {sorted(fields)}"
        spdx = fields["license"].split()[0]
        owner, name = fields["repo"].split("/")
        assert (LICENSES / f"{spdx}-{owner}-{name}.txt").is_file(), f"{path.name}: no {spdx} text of {owner}/{name}"
        row = path.relative_to(REAL).as_posix()
        assert f"`{row}`" in readme, f"{row}: no row in {FIXTURES / 'README.md'}"


def test_every_source_record_belongs_to_a_fixture():
    for source in REAL.rglob("*.source.txt"):
        assert source.with_name(source.name.removesuffix(".source.txt")).is_file(), source.name
