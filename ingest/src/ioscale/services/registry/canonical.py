"""Avro schema parsing, validation and Confluent's canonical form.

Confluent's registry stores and serves every Avro schema as Avro Java's ``Schema.toString()`` of
the parsed schema, and gives two submissions the same id when those strings are equal. That string
is compact JSON in which:

- a primitive without attributes is a bare string (``{"type": "int"}`` -> ``"int"``);
- a dotted name is split (``"name": "a.b.R"`` -> ``"name":"R","namespace":"a.b"``) and a namespace
  equal to the enclosing one is omitted; a named type seen before is written as a name reference;
- keys come in a fixed order (record: type, name, namespace, doc, fields, other attributes,
  aliases; field: name, type, doc, default, order, aliases, other attributes);
- ``doc``, defaults, aliases and custom attributes (``logicalType``, ...) are kept, so schemas that
  differ only in documentation get different ids, exactly as with Confluent.

Validation: fastavro's ``parse_schema`` first (what ioscale's own producers use), then the checks
Avro Java adds that fastavro skips (name syntax, duplicate fields and union branches, default values
checked as Avro Java's ``Schema.Parser`` does for new schemas).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import fastavro
import fastavro.schema

from ioscale.services.registry.errors import InvalidSchemaError

PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
# Attributes Avro Java interprets; every other key of a schema object is kept as a property.
SCHEMA_RESERVED = frozenset({"doc", "fields", "items", "name", "namespace", "size", "symbols", "values", "type", "aliases"})
ENUM_RESERVED = SCHEMA_RESERVED | {"default"}
FIELD_RESERVED = frozenset({"default", "doc", "name", "order", "type", "aliases"})
FIELD_ORDERS = ("ascending", "descending", "ignore")
MISSING: Any = object()  # a field without a default (a default may be JSON null)

_NAME_START = re.compile(r"[^\W\d]", re.UNICODE)  # a letter or "_" (Java: Character.isLetter or '_')


class AvroType:
    """One node of a parsed schema. ``type`` is the Avro type name; named types are shared objects."""

    type: str
    props: dict[str, Any]

    def __init__(self, type_: str, props: dict[str, Any] | None = None):
        self.type = type_
        self.props = props or {}


class Named(AvroType):
    def __init__(self, type_: str, name: str, namespace: str | None, doc: str | None, props: dict[str, Any]):
        super().__init__(type_, props)
        self.name = name
        self.namespace = namespace
        self.doc = doc
        self.aliases: list[str] = []  # full names

    @property
    def full_name(self) -> str:
        return f"{self.namespace}.{self.name}" if self.namespace else self.name


@dataclass(eq=False)
class Field:
    name: str
    type: AvroType
    pos: int
    doc: str | None = None
    default: Any = MISSING
    order: str = "ascending"
    aliases: list[str] = field(default_factory=list)
    props: dict[str, Any] = field(default_factory=dict)

    @property
    def has_default(self) -> bool:
        return self.default is not MISSING


class Record(Named):
    def __init__(self, name: str, namespace: str | None, doc: str | None, props: dict[str, Any], is_error: bool):
        super().__init__("record", name, namespace, doc, props)
        self.is_error = is_error
        self.fields: list[Field] = []

    def field(self, name: str) -> Field | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None


class Enum(Named):
    def __init__(self, name: str, namespace: str | None, doc: str | None, props: dict[str, Any],
                 symbols: list[str], default: str | None):
        super().__init__("enum", name, namespace, doc, props)
        self.symbols = symbols
        self.default = default


class Fixed(Named):
    def __init__(self, name: str, namespace: str | None, doc: str | None, props: dict[str, Any], size: int):
        super().__init__("fixed", name, namespace, doc, props)
        self.size = size


class Array(AvroType):
    def __init__(self, items: AvroType, props: dict[str, Any]):
        super().__init__("array", props)
        self.items = items


class Map(AvroType):
    def __init__(self, values: AvroType, props: dict[str, Any]):
        super().__init__("map", props)
        self.values = values


class Union(AvroType):
    def __init__(self, branches: list[AvroType]):
        super().__init__("union")
        self.branches = branches


@dataclass(frozen=True, eq=False)
class ParsedSchema:
    root: AvroType
    canonical: str


# -- parsing -----------------------------------------------------------------------------------------

def parse_schema(schema_str: str) -> ParsedSchema:
    """Parse and validate an Avro schema string; raise ``InvalidSchemaError`` (42201) if it is not one."""
    if schema_str is None or not isinstance(schema_str, str) or not schema_str.strip():
        raise InvalidSchemaError("Empty schema")
    return _parse_cached(schema_str)


@lru_cache(maxsize=4096)
def _parse_cached(schema_str: str) -> ParsedSchema:
    # Stored schemas are re-parsed for every compatibility check; the cache makes that a dict hit.
    try:
        fastavro.parse_schema(json.loads(schema_str))
        root = _Parser().parse(json.loads(schema_str))
    except InvalidSchemaError:
        raise
    except Exception as e:  # json, fastavro and our own checks fail in many shapes
        raise InvalidSchemaError(
            f"Invalid schema {schema_str} with refs [] of type AVRO, details: {_describe(e)}"
        ) from None
    return ParsedSchema(root, canonical_string(root))


def _describe(e: Exception) -> str:
    text = str(e) or type(e).__name__
    if isinstance(e, KeyError):  # fastavro reports a missing attribute as a bare KeyError
        text = f"missing attribute {text}"
    elif isinstance(e, fastavro.schema.UnknownType):
        text = f"Undefined name or unknown type: {json.dumps(e.name, default=str)}"
    return text


class SchemaSyntaxError(Exception):
    pass


def _validate_name(name: Any, what: str) -> str:
    if not isinstance(name, str) or not name:
        raise SchemaSyntaxError(f"{what} must be a non-empty string: {name!r}")
    if not (_NAME_START.match(name[0])):
        raise SchemaSyntaxError(f"Illegal initial character: {name}")
    if any(not (c.isalnum() or c == "_") for c in name[1:]):
        raise SchemaSyntaxError(f"Illegal character in: {name}")
    return name


def _split_name(name: str, space: str | None) -> tuple[str, str | None]:
    """Avro Java ``Name(name, space)``: a dotted name carries its own namespace; "" means none."""
    if "." in name:
        space, _, name = name.rpartition(".")
    return name, (space or None)


class _Parser:
    """Builds the node graph the way Avro Java's ``Schema.parse`` does (names, namespaces, props)."""

    def __init__(self) -> None:
        self.names: dict[str, Named] = {}
        self.space: str | None = None

    def lookup(self, ref: str) -> AvroType | None:
        if ref in PRIMITIVES:
            return AvroType(ref)
        name, space = _split_name(ref, self.space)
        found = self.names.get(f"{space}.{name}" if space else name)
        if found is None and "." not in ref:
            found = self.names.get(ref)  # then the null namespace
        return found

    def define(self, node: Named) -> None:
        if node.namespace is None and node.name in PRIMITIVES:
            raise SchemaSyntaxError(f"Schemas may not be named after primitives: {node.name}")
        if node.full_name in self.names:
            raise SchemaSyntaxError(f"Can't redefine: {node.full_name}")
        self.names[node.full_name] = node

    def parse(self, node: Any) -> AvroType:
        if isinstance(node, str):
            found = self.lookup(node)
            if found is None:
                raise SchemaSyntaxError(f"Undefined name: {json.dumps(node)}")
            return found
        if isinstance(node, list):
            return self.parse_union(node)
        if not isinstance(node, dict):
            raise SchemaSyntaxError(f"Schema is not a string, object or array: {json.dumps(node)}")
        type_ = node.get("type")
        if not isinstance(type_, str):
            raise SchemaSyntaxError(f"No type: {json.dumps(node)}")
        if type_ in PRIMITIVES:
            return AvroType(type_, self.props(node, SCHEMA_RESERVED))
        if type_ in ("record", "error", "enum", "fixed"):
            return self.parse_named(node, type_)
        if type_ == "array":
            if "items" not in node:
                raise SchemaSyntaxError(f"Array has no items type: {json.dumps(node)}")
            return Array(self.parse(node["items"]), self.props(node, SCHEMA_RESERVED))
        if type_ == "map":
            if "values" not in node:
                raise SchemaSyntaxError(f"Map has no values type: {json.dumps(node)}")
            return Map(self.parse(node["values"]), self.props(node, SCHEMA_RESERVED))
        found = self.lookup(type_)  # {"type": "SomeNamedType"} is a reference in Avro Java
        if found is None:
            raise SchemaSyntaxError(f"Type not supported: {type_}")
        return found

    def props(self, node: dict[str, Any], reserved: frozenset[str]) -> dict[str, Any]:
        return {k: v for k, v in node.items() if k not in reserved}

    def parse_named(self, node: dict[str, Any], type_: str) -> Named:
        raw_name = node.get("name")
        if not isinstance(raw_name, str):
            raise SchemaSyntaxError(f"No name in schema: {json.dumps(node)}")
        space = node.get("namespace")
        if space is not None and not isinstance(space, str):
            raise SchemaSyntaxError(f"namespace must be a string: {json.dumps(node)}")
        if space is None:
            space = self.space
        name, space = _split_name(raw_name, space)
        _validate_name(name, "name")
        doc = node.get("doc") if isinstance(node.get("doc"), str) else None
        result: Named
        if type_ in ("record", "error"):
            result = Record(name, space, doc, self.props(node, SCHEMA_RESERVED), type_ == "error")
            self.define(result)  # before the fields: a record may refer to itself
            saved, self.space = self.space, space
            try:
                self.parse_fields(result, node)
            finally:
                self.space = saved
        elif type_ == "enum":
            symbols = node.get("symbols")
            if not isinstance(symbols, list):
                raise SchemaSyntaxError(f"Enum has no symbols: {json.dumps(node)}")
            for s in symbols:
                _validate_name(s, "enum symbol")
            if len(set(symbols)) != len(symbols):
                raise SchemaSyntaxError(f"Duplicate enum symbol in {name}: {symbols}")
            default = node.get("default")
            if default is not None and default not in symbols:
                raise SchemaSyntaxError(f"The Enum Default: {default} is not in the enum symbol set: {symbols}")
            result = Enum(name, space, doc, self.props(node, ENUM_RESERVED), list(symbols), default)
            self.define(result)
        else:
            size = node.get("size")
            if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                raise SchemaSyntaxError(f"Invalid or no size: {json.dumps(node)}")
            result = Fixed(name, space, doc, self.props(node, SCHEMA_RESERVED), size)
            self.define(result)
        for alias in self.aliases(node):
            a_name, a_space = _split_name(alias, space)
            full = f"{a_space}.{a_name}" if a_space else a_name
            if full not in result.aliases:
                result.aliases.append(full)
        return result

    def aliases(self, node: dict[str, Any]) -> list[str]:
        raw = node.get("aliases")
        if raw is None:
            return []
        if not isinstance(raw, list):
            raise SchemaSyntaxError(f"aliases not an array: {json.dumps(node)}")
        if not all(isinstance(a, str) for a in raw):
            raise SchemaSyntaxError(f"alias not a string: {json.dumps(raw)}")
        return list(dict.fromkeys(raw))  # Avro Java keeps aliases in a LinkedHashSet

    def parse_fields(self, record: Record, node: dict[str, Any]) -> None:
        fields = node.get("fields")
        if not isinstance(fields, list):
            raise SchemaSyntaxError(f"Record has no fields: {json.dumps(node)}")
        for pos, f in enumerate(fields):
            if not isinstance(f, dict):
                raise SchemaSyntaxError(f"Field is not an object: {json.dumps(f)}")
            name = _validate_name(f.get("name"), "field name")
            if "type" not in f:
                raise SchemaSyntaxError(f"No field type: {json.dumps(f)}")
            if record.field(name) is not None:
                raise SchemaSyntaxError(f"Duplicate field {name} in record {record.full_name}")
            ftype = self.parse(f["type"])
            order = f.get("order", "ascending")
            if not isinstance(order, str) or order.lower() not in FIELD_ORDERS:
                raise SchemaSyntaxError(f"Invalid order {order!r} for field {name}")
            fld = Field(
                name=name,
                type=ftype,
                pos=pos,
                doc=f.get("doc") if isinstance(f.get("doc"), str) else None,
                default=f["default"] if "default" in f else MISSING,
                order=order.lower(),
                aliases=self.aliases(f),
                props=self.props(f, FIELD_RESERVED),
            )
            if fld.has_default and not is_valid_default(ftype, fld.default):
                raise SchemaSyntaxError(
                    f"Invalid default for field {name}: {json.dumps(fld.default)} not a {canonical_string(ftype)}"
                )
            record.fields.append(fld)

    def parse_union(self, branches: list[Any]) -> Union:
        parsed: list[AvroType] = []
        seen: set[str] = set()
        for b in branches:
            node = self.parse(b)
            if isinstance(node, Union):
                raise SchemaSyntaxError(f"Nested union: {json.dumps(branches)}")
            key = node.full_name if isinstance(node, Named) else node.type
            if key in seen:
                raise SchemaSyntaxError(f"Duplicate in union:{key}")
            seen.add(key)
            parsed.append(node)
        return Union(parsed)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def is_valid_default(schema: AvroType, value: Any, _depth: int = 0) -> bool:
    """Avro Java's ``Schema.isValidDefault`` (Avro 1.11, used by Confluent 7.x): a union's default
    must match its *first* branch; ints must fit 32 bits."""
    if _depth > 64:  # a default is finite JSON; this only guards pathological recursion
        return False
    t = schema.type
    if t in ("string", "bytes", "enum", "fixed"):
        return isinstance(value, str)
    if t == "int":
        return _is_int(value) and -(2**31) <= value < 2**31
    if t == "long":
        return _is_int(value) and -(2**63) <= value < 2**63
    if t in ("float", "double"):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if t == "boolean":
        return isinstance(value, bool)
    if t == "null":
        return value is None
    if isinstance(schema, Array):
        return isinstance(value, list) and all(is_valid_default(schema.items, v, _depth + 1) for v in value)
    if isinstance(schema, Map):
        return isinstance(value, dict) and all(is_valid_default(schema.values, v, _depth + 1) for v in value.values())
    if isinstance(schema, Union):
        return bool(schema.branches) and is_valid_default(schema.branches[0], value, _depth + 1)
    if isinstance(schema, Record):
        if not isinstance(value, dict):
            return False
        for f in schema.fields:
            v = value[f.name] if f.name in value else f.default
            if v is MISSING or not is_valid_default(f.type, v, _depth + 1):
                return False
        return True
    return False


# -- canonical form ----------------------------------------------------------------------------------

def canonical_string(root: AvroType) -> str:
    """Avro Java's ``Schema.toString()``: what Confluent stores, serves and deduplicates on."""
    tree = _Writer().to_json(root, None)
    return json.dumps(tree, separators=(",", ":"), ensure_ascii=False)


class _Writer:
    def __init__(self) -> None:
        self.known: set[str] = set()

    @staticmethod
    def qualified(full: str, name: str, space: str | None, current: str | None) -> str:
        # Name.getQualified: the short name when the namespace is the enclosing one (or none).
        return name if space is None or space == current else full

    def write_name(self, out: dict[str, Any], node: Named, current: str | None) -> None:
        out["name"] = node.name
        if node.namespace is not None:
            if node.namespace != current:
                out["namespace"] = node.namespace
        elif current is not None:
            out["namespace"] = ""  # null namespace inside a non-null one

    def aliases(self, node: Named) -> list[str]:
        out = []
        for full in node.aliases:
            space, _, name = full.rpartition(".")
            out.append(self.qualified(full, name, space or None, node.namespace))
        return out

    def to_json(self, node: AvroType, space: str | None) -> Any:
        if isinstance(node, Named):
            if node.full_name in self.known:
                return self.qualified(node.full_name, node.name, node.namespace, space)
            self.known.add(node.full_name)
            return self.named(node, space)
        if isinstance(node, Union):
            return [self.to_json(b, space) for b in node.branches]
        if isinstance(node, Array):
            return {"type": "array", "items": self.to_json(node.items, space), **node.props}
        if isinstance(node, Map):
            return {"type": "map", "values": self.to_json(node.values, space), **node.props}
        if not node.props:
            return node.type
        return {"type": node.type, **node.props}

    def named(self, node: Named, space: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if isinstance(node, Record):
            out["type"] = "error" if node.is_error else "record"
            self.write_name(out, node, space)
            if node.doc is not None:
                out["doc"] = node.doc
            out["fields"] = [self.field(f, node.namespace) for f in node.fields]
        elif isinstance(node, Enum):
            out["type"] = "enum"
            self.write_name(out, node, space)
            if node.doc is not None:
                out["doc"] = node.doc
            out["symbols"] = list(node.symbols)
            if node.default is not None:
                out["default"] = node.default
        elif isinstance(node, Fixed):
            out["type"] = "fixed"
            self.write_name(out, node, space)
            if node.doc is not None:
                out["doc"] = node.doc
            out["size"] = node.size
        out.update(node.props)
        if node.aliases:
            out["aliases"] = self.aliases(node)
        return out

    def field(self, f: Field, space: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {"name": f.name, "type": self.to_json(f.type, space)}
        if f.doc is not None:
            out["doc"] = f.doc
        if f.has_default:
            out["default"] = f.default
        if f.order != "ascending":
            out["order"] = f.order
        if f.aliases:
            out["aliases"] = list(f.aliases)
        out.update(f.props)
        return out
