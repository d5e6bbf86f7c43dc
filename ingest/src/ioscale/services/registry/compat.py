"""Avro schema compatibility: the Avro specification's schema-resolution rules, as Confluent applies them.

Reader/writer check (a port of Avro Java's ``SchemaCompatibility``, which Confluent calls): data
written with ``writer`` can be read with ``reader`` when, recursively,

    same primitive type                      ok
    reader long   <- writer int              promotion
    reader float  <- writer int, long        promotion
    reader double <- writer int, long, float promotion
    reader string <-> writer bytes           both ways
    record        names match (reader's short name, or a reader alias = writer full name); each reader
                  field is found in the writer (by name or a reader field alias) and its types are
                  compatible, or has a default; writer fields the reader lacks are skipped
    enum          names match; every writer symbol is a reader symbol, unless the reader has a default
    fixed         names match and sizes are equal
    array / map   items / values compatible
    union         writer union: every branch readable; reader union: some branch reads the writer
    anything else TYPE_MISMATCH

Each problem is an ``Incompatibility`` with Avro's type name, a JSON-pointer location in the reader
schema and Avro's message. Compatibility levels map to directions (Confluent's ``SchemaValidatorBuilder``):

    BACKWARD   new schema reads the latest          FORWARD   latest reads the new schema
    FULL       both                                 *_TRANSITIVE  against every live version
    NONE       no check

and the messages are formatted as Confluent puts them into the 409 answer, e.g.
``{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'c' at path '/fields/2' in
the new schema has no default value and is missing in the old schema', additionalInfo:'c'}``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ioscale.services.registry.canonical import AvroType, Enum, Field, Fixed, Named, ParsedSchema, Record

LEVELS = (
    "NONE",
    "BACKWARD",
    "BACKWARD_TRANSITIVE",
    "FORWARD",
    "FORWARD_TRANSITIVE",
    "FULL",
    "FULL_TRANSITIVE",
)
DEFAULT_LEVEL = "BACKWARD"
MAX_SCHEMA_CHARS_IN_MESSAGE = 10 * 1024  # Confluent truncates {oldSchema: ...} beyond this

# Reader type -> writer types it accepts by promotion.
PROMOTIONS: dict[str, frozenset[str]] = {
    "long": frozenset({"int"}),
    "float": frozenset({"int", "long"}),
    "double": frozenset({"int", "long", "float"}),
    "bytes": frozenset({"string"}),
    "string": frozenset({"bytes"}),
}


@dataclass(frozen=True)
class Incompatibility:
    kind: str  # NAME_MISMATCH, FIXED_SIZE_MISMATCH, MISSING_ENUM_SYMBOLS, READER_FIELD_MISSING_DEFAULT_VALUE, TYPE_MISMATCH, MISSING_UNION_BRANCH
    location: str  # JSON pointer into the reader schema, e.g. /fields/2/type
    message: str


def _java_type(node: AvroType) -> str:
    return "UNION" if node.type == "union" else node.type.upper()


def _pointer(location: list[str]) -> str:
    # The first token is the root (""); JSON-pointer escaping for the rest.
    return "/" + "/".join(t.replace("~", "~0").replace("/", "~1") for t in location[1:])


class _ReaderWriterChecker:
    """One check: memoises (reader, writer) node pairs so recursive types terminate."""

    def __init__(self) -> None:
        self.memo: dict[tuple[int, int], list[Incompatibility] | None] = {}

    def check(self, reader: AvroType, writer: AvroType, token: str = "", location: list[str] | None = None
              ) -> list[Incompatibility]:
        location = [] if location is None else location
        location.append(token)
        key = (id(reader), id(writer))
        if key in self.memo:
            result = self.memo[key] or []  # None: recursion in progress, compatible unless proven otherwise
        else:
            self.memo[key] = None
            result = self.calculate(reader, writer, location)
            self.memo[key] = result
        location.pop()
        return result

    def calculate(self, reader: AvroType, writer: AvroType, location: list[str]) -> list[Incompatibility]:
        rt, wt = reader.type, writer.type
        if rt == wt:
            if rt == "array":
                return self.check(reader.items, writer.items, "items", location)  # type: ignore[attr-defined]
            if rt == "map":
                return self.check(reader.values, writer.values, "values", location)  # type: ignore[attr-defined]
            if rt == "fixed":
                return self.names(reader, writer, location) + self.fixed_size(reader, writer, location)  # type: ignore[arg-type]
            if rt == "enum":
                return self.names(reader, writer, location) + self.enum_symbols(reader, writer, location)  # type: ignore[arg-type]
            if rt == "record":
                return self.names(reader, writer, location) + self.record_fields(reader, writer, location)  # type: ignore[arg-type]
            if rt == "union":
                result = []
                for i, branch in enumerate(writer.branches):  # type: ignore[attr-defined]
                    location.append(str(i))
                    if self.check(reader, branch):  # a fresh location, as in Avro Java
                        result.append(Incompatibility(
                            "MISSING_UNION_BRANCH", _pointer(location),
                            f"reader union lacking writer type: {_java_type(branch)}"))
                    location.pop()
                return result
            return []  # same primitive
        if wt == "union":
            result = []
            for branch in writer.branches:  # type: ignore[attr-defined]
                result += self.check(reader, branch)
            return result
        if rt == "union":
            for branch in reader.branches:  # type: ignore[attr-defined]
                if not self.check(branch, writer):
                    return []
            return [Incompatibility("MISSING_UNION_BRANCH", _pointer(location),
                                    f"reader union lacking writer type: {_java_type(writer)}")]
        if wt in PROMOTIONS.get(rt, ()):
            return []
        return [Incompatibility(
            "TYPE_MISMATCH", _pointer(location),
            f"reader type: {_java_type(reader)} not compatible with writer type: {_java_type(writer)}")]

    def names(self, reader: Named, writer: Named, location: list[str]) -> list[Incompatibility]:
        # Avro Java compares *short* names, then the reader's aliases against the writer's full name.
        if reader.name == writer.name or writer.full_name in reader.aliases:
            return []
        return [Incompatibility("NAME_MISMATCH", _pointer(location + ["name"]), f"expected: {writer.full_name}")]

    def fixed_size(self, reader: Fixed, writer: Fixed, location: list[str]) -> list[Incompatibility]:
        if reader.size == writer.size:
            return []
        return [Incompatibility("FIXED_SIZE_MISMATCH", _pointer(location + ["size"]),
                                f"expected: {writer.size}, found: {reader.size}")]

    def enum_symbols(self, reader: Enum, writer: Enum, location: list[str]) -> list[Incompatibility]:
        missing = sorted(set(writer.symbols) - set(reader.symbols))
        if not missing or (reader.default is not None and reader.default in reader.symbols):
            return []
        return [Incompatibility("MISSING_ENUM_SYMBOLS", _pointer(location + ["symbols"]),
                                "[" + ", ".join(missing) + "]")]

    def record_fields(self, reader: Record, writer: Record, location: list[str]) -> list[Incompatibility]:
        result: list[Incompatibility] = []
        location.append("fields")
        for rf in reader.fields:
            location.append(str(rf.pos))
            wf = lookup_writer_field(writer, rf)
            if wf is not None:
                result += self.check(rf.type, wf.type, "type", location)
            elif not rf.has_default:
                if isinstance(rf.type, Enum) and rf.type.default is not None:
                    # Avro Java quirk: compares the enum with the writer *record* (a TYPE_MISMATCH).
                    result += self.check(rf.type, writer, "type", location)
                else:
                    result.append(Incompatibility("READER_FIELD_MISSING_DEFAULT_VALUE", _pointer(location), rf.name))
            location.pop()
        location.pop()
        return result


def lookup_writer_field(writer: Record, reader_field: Field) -> Field | None:
    """The writer field a reader field reads from: same name, or one of the reader field's aliases."""
    matches = []
    direct = writer.field(reader_field.name)
    if direct is not None:
        matches.append(direct)
    for alias in reader_field.aliases:
        f = writer.field(alias)
        if f is not None:
            matches.append(f)
    if len(matches) > 1:
        raise ValueError(f"reader field {reader_field.name} matches several writer fields")
    return matches[0] if matches else None


def reader_writer_incompatibilities(reader: AvroType, writer: AvroType) -> list[Incompatibility]:
    """Everything that stops ``reader`` from decoding data written with ``writer`` (empty: compatible)."""
    try:
        return _ReaderWriterChecker().check(reader, writer)
    except ValueError as e:
        return [Incompatibility("TYPE_MISMATCH", "/", str(e))]


# -- Confluent's levels and messages ------------------------------------------------------------------

_DESCRIPTIONS = {
    "FIXED_SIZE_MISMATCH": "The size of FIXED type field at path '{path}' in the {reader} schema does not match with the {writer} schema",
    "TYPE_MISMATCH": "The type (path '{path}') of a field in the {reader} schema does not match with the {writer} schema",
    "NAME_MISMATCH": "The name of the schema has changed (path '{path}')",
    "MISSING_ENUM_SYMBOLS": "The {reader} schema is missing enum symbols '{info}' at path '{path}' in the {writer} schema",
    "MISSING_UNION_BRANCH": "The {reader} schema is missing a type inside a union field at path '{path}' in the {writer} schema",
    "READER_FIELD_MISSING_DEFAULT_VALUE": "The field '{info}' at path '{path}' in the {reader} schema has no default value and is missing in the {writer} schema",
}


def describe(inc: Incompatibility, reader_label: str, writer_label: str) -> str:
    """Confluent's ``Difference`` text for one incompatibility."""
    description = _DESCRIPTIONS[inc.kind].format(
        path=inc.location, info=inc.message, reader=reader_label, writer=writer_label)
    return f"{{errorType:'{inc.kind}', description:'{description}', additionalInfo:'{inc.message}'}}"


@dataclass(frozen=True)
class PreviousSchema:
    """A live version of the subject, as the compatibility check sees it."""

    parsed: ParsedSchema
    version: int | None = None


def _old_schema_notes(old: PreviousSchema) -> list[str]:
    notes = []
    if old.version is not None:
        notes.append(f"{{oldSchemaVersion: {old.version}}}")
    text = old.parsed.canonical
    if len(text) <= MAX_SCHEMA_CHARS_IN_MESSAGE:
        notes.append(f"{{oldSchema: '{text}'}}")
    else:
        notes.append(f"{{oldSchema: <truncated to {MAX_SCHEMA_CHARS_IN_MESSAGE} characters> "
                     f"'{text[:MAX_SCHEMA_CHARS_IN_MESSAGE]}'}}")
    return notes


def _check_pair(level: str, new: ParsedSchema, old: PreviousSchema) -> list[str]:
    messages: list[str] = []
    if level.startswith(("FORWARD", "FULL")):
        # The old schema must read data written with the new one.
        found = reader_writer_incompatibilities(old.parsed.root, new.root)
        messages += [describe(i, "old", "new") for i in found]
        if found and level.startswith("FORWARD"):
            messages += _old_schema_notes(old)
    if level.startswith(("BACKWARD", "FULL")):
        # The new schema must read data written with the old one.
        found = reader_writer_incompatibilities(new.root, old.parsed.root)
        messages += [describe(i, "new", "old") for i in found]
        if found:
            messages += _old_schema_notes(old)
    return messages


def check_compatibility(level: str, new: ParsedSchema, previous: list[PreviousSchema]) -> list[str]:
    """Confluent's verdict on registering ``new`` after ``previous`` (chronological, live versions only).

    Returns the messages Confluent reports (empty: compatible). Non-transitive levels check the latest
    version only; transitive levels check from the newest back and stop at the first failing version.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown compatibility level {level}")
    if level == "NONE" or not previous:
        return []
    candidates = list(reversed(previous))
    if not level.endswith("_TRANSITIVE"):
        candidates = candidates[:1]
    for old in candidates:
        messages = _check_pair(level, new, old)
        if messages:
            return messages + [f"{{validateFields: 'false', compatibility: '{level}'}}"]
    return []
