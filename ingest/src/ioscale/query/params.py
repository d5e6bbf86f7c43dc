"""Query parameters: the header's declarations, the CLI's ``--param name=value``, checking and coercion.

Values are checked here, before any connection, so a typo or a bad value is reported naming the parameter
and its rule; clickhouse-connect then sends them as server-side parameters (``param_<name>``), never spliced
into the SQL text.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ioscale.query.errors import QueryFileError, QueryLibraryError

if TYPE_CHECKING:
    from ioscale.query.model import NamedQuery

_PARAM_RE = re.compile(
    r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s+(?P<type>[A-Za-z][A-Za-z0-9]*)"
    r"(?:\s*=\s*(?P<default>'[^']*'|[^\s{]+))?"
    r"(?:\s*\{(?P<choices>[^}]*)\})?"
    r"(?:\s+(?P<doc>.*))?$"
)
_INT_RANGES = {f"{'U' if unsigned else ''}Int{bits}": ((0, 2 ** bits - 1) if unsigned
                                                        else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1))
               for bits in (8, 16, 32, 64) for unsigned in (False, True)}
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}
SUPPORTED_TYPES = ("String", "Bool", *sorted(_INT_RANGES), "Float32", "Float64")


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    default: str | None          # as written in the header; None = required
    choices: tuple[str, ...]     # allowed values (as text); empty = any value of the type
    doc: str

    @property
    def required(self) -> bool:
        return self.default is None


def parse_declaration(entry: list[str], fail: Callable[[str], QueryFileError]) -> Param:
    """One ``Parameters:`` entry (its line and continuation lines) -> Param; ``fail`` names the file."""
    m = _PARAM_RE.match(entry[0])
    if m is None:
        raise fail(f"cannot read parameter line {entry[0]!r}: expected `name Type [= default] [{{a|b}}] text`")
    ptype = m["type"]
    if ptype not in SUPPORTED_TYPES:
        raise fail(f"parameter {m['name']}: unsupported type {ptype} (supported: {', '.join(SUPPORTED_TYPES)})")
    default = m["default"]
    if default is not None and len(default) >= 2 and default[0] == default[-1] == "'":
        default = default[1:-1]
    choices = tuple(c.strip() for c in m["choices"].split("|")) if m["choices"] is not None else ()
    param = Param(m["name"], ptype, default, choices, " ".join([m["doc"] or "", *entry[1:]]).strip())
    for choice in choices:
        try:
            coerce(param, choice)
        except QueryLibraryError as e:
            raise fail(f"parameter {param.name}: choice {choice!r} is not a valid {ptype} ({e})") from None
    if default is not None:
        try:
            coerce(param, default)
        except QueryLibraryError as e:
            raise fail(f"parameter {param.name}: default {default!r} is invalid: {e}") from None
    return param


def parse_param_args(items: Iterable[str]) -> dict[str, str]:
    """``["k=v", ...]`` (the CLI's repeated --param) -> {k: v}; the value may contain '=' and be empty."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise QueryLibraryError(f"--param {item!r} is not of the form name=value",
                                    "e.g. --param run_id=sim-demo-... --param step_index=3")
        if key in out:
            raise QueryLibraryError(f"--param {key} is given twice")
        out[key] = value
    return out


def coerce(param: Param, raw: Any) -> Any:
    """The Python value for one parameter; raises QueryLibraryError naming the parameter and the rule."""
    text = _as_text(raw)
    t = param.type
    if t == "String":
        value: Any = text
    elif t == "Bool":
        low = text.strip().lower()
        if low in _TRUE:
            value = True
        elif low in _FALSE:
            value = False
        else:
            raise _bad(param, text, "Bool expects true or false (also 1/0, yes/no, on/off)")
    elif t in _INT_RANGES:
        lo, hi = _INT_RANGES[t]
        try:
            value = int(text.strip(), 10)
        except ValueError:
            raise _bad(param, text, f"{t} expects an integer from {lo} to {hi}") from None
        if not lo <= value <= hi:
            raise _bad(param, text, f"{t} expects an integer from {lo} to {hi}")
    elif t in ("Float32", "Float64"):
        try:
            value = float(text.strip())
        except ValueError:
            raise _bad(param, text, f"{t} expects a number") from None
        if not math.isfinite(value):
            raise _bad(param, text, f"{t} expects a finite number")
    else:  # parse_declaration() admits only SUPPORTED_TYPES
        raise _bad(param, text, f"unsupported type {t}")
    if param.choices and text.strip() not in param.choices and not (
            t != "String" and any(coerce(_plain(param), c) == value for c in param.choices)):
        raise _bad(param, text, f"expected one of {', '.join(param.choices)}")
    return value


def _plain(param: Param) -> Param:
    return Param(param.name, param.type, None, (), "")


def _as_text(raw: Any) -> str:
    if isinstance(raw, bool):
        return "true" if raw else "false"
    return raw if isinstance(raw, str) else str(raw)


def _bad(param: Param, text: str, rule: str) -> QueryLibraryError:
    return QueryLibraryError(f"--param {param.name}={text!r}: {rule}",
                             f"{param.name}: {param.doc}" if param.doc else None)


def bind(query: NamedQuery, params: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``params`` against the query's declared parameters; fill defaults; coerce to Python values."""
    unknown = [k for k in params if query.param(k) is None]
    if unknown:
        known = [p.name for p in query.params]
        close = difflib.get_close_matches(unknown[0], known, n=1)
        raise QueryLibraryError(
            f"query {query.name} has no parameter {unknown[0]!r}"
            + (f" (did you mean {close[0]}?)" if close else ""),
            f"it takes: {', '.join(known) or 'no parameters'} (`ioscale sql {query.name} --describe`)")
    values: dict[str, Any] = {}
    missing: list[Param] = []
    for p in query.params:
        if p.name in params:
            values[p.name] = coerce(p, params[p.name])
        elif p.default is not None:
            values[p.name] = coerce(p, p.default)
        else:
            missing.append(p)
    if missing:
        raise QueryLibraryError(
            f"query {query.name} needs " + ", ".join(f"--param {p.name}=<{p.type}>" for p in missing),
            "; ".join(f"{p.name}: {p.doc}" for p in missing))
    return values
